// Tests: codec_snapshot
