//! Teeworlds Huffman coding (see huffman.md).
