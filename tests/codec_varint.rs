// Tests: codec_varint
