// Tests: demo_messages
