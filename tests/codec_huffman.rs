// Tests: codec_huffman
