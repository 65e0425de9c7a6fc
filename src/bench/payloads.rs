//! The decode-every-payload loop that `teebatch bench codecs` and the
//! criterion benches (`benches/codecs`) share: every data chunk payload of
//! a demo Huffman- and varint-decoded, the inputs of the codec kernels'
//! figures.

use crate::codec::{huffman, varint};
use crate::demo::stream::{MAX_INTS, MAX_PAYLOAD};
use crate::demo::{ChunkKind, Demo};

/// A data chunk's payload as decoded by [`decoded_payloads`].
pub struct DecodedPayload<'a> {
    /// The chunk's kind (snapshot, delta, message or unknown).
    pub kind: ChunkKind<'a>,
    /// The payload as stored (Huffman-compressed).
    pub compressed: &'a [u8],
    /// The Huffman output, `None` if it does not decompress.
    pub decompressed: Option<Vec<u8>>,
    /// The unpacked ints, `None` if the payload does not decompress or unpack.
    pub ints: Option<Vec<i32>>,
}

/// Every data chunk payload (snapshot, delta, message, unknown) of `demo`
/// in file order, Huffman- and varint-decoded, up to the first chunk that
/// does not frame: the one decode-every-payload loop of the benchmarks and
/// `teebatch bench`.
pub fn decoded_payloads<'a>(demo: &Demo<'a>) -> Vec<DecodedPayload<'a>> {
    let mut out = vec![0u8; MAX_PAYLOAD];
    let mut ints = vec![0i32; MAX_INTS];
    let mut warnings = Vec::new();
    let mut payloads = Vec::new();
    for chunk in demo.chunks() {
        let Ok(chunk) = chunk else { break };
        let Some(compressed) = chunk.kind.payload() else {
            continue;
        };
        let n = huffman::decompress(compressed, &mut out).ok();
        let k = n.and_then(|n| varint::unpack(&out[..n], &mut ints, &mut warnings).ok());
        payloads.push(DecodedPayload {
            kind: chunk.kind,
            compressed,
            decompressed: n.map(|n| out[..n].to_vec()),
            ints: k.map(|k| ints[..k].to_vec()),
        });
    }
    payloads
}

/// The snapshot and delta chunks of `demo`, Huffman- and varint-decoded:
/// (is a delta, ints) per chunk in file order, up to the first chunk that
/// does not decode (a delta chain cannot skip one). The input of the
/// snapshot codec's benchmarks (`teebatch bench codecs` and the criterion
/// bench), which apply them with [`crate::demo::Demo::decode_protocol`].
pub fn unpacked_snapshot_chunks(demo: &Demo<'_>) -> Vec<(bool, Vec<i32>)> {
    let mut chunks = Vec::new();
    for p in decoded_payloads(demo) {
        let is_delta = match p.kind {
            ChunkKind::Snapshot(_) => false,
            ChunkKind::Delta(_) => true,
            _ => continue,
        };
        let Some(ints) = p.ints else {
            break;
        };
        chunks.push((is_delta, ints));
    }
    chunks
}
