// Tests: demo_stream
