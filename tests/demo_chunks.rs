// Tests: demo_chunks
