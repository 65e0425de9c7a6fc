//! Demo messages: system and game messages, DDNet extended messages.
