//! Writing demos (version 6 and 5).
