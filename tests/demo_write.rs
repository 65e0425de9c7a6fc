// Tests: demo_write
