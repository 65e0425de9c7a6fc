//! Plumbing of the tests, the benchmarks and `teebatch bench`: not API
//! (hidden from the docs; it changes with the tests).

use crate::codec::{huffman, varint};
use crate::demo::stream::{MAX_INTS, MAX_PAYLOAD};
use crate::demo::{ChunkKind, Demo};
use std::path::{Path, PathBuf};

/// Environment variable naming the shared real-file datasets folder.
pub const DATASETS_ENV: &str = "TEEBATCH_DATASETS";

/// The shared datasets folder (`$TEEBATCH_DATASETS`, else `../shared/datasets`
/// beside the crate at `manifest_dir`), if it exists.
pub fn shared_datasets_dir(manifest_dir: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(DATASETS_ENV) {
        let p = PathBuf::from(p);
        return p.is_dir().then_some(p);
    }
    let p = Path::new(manifest_dir).join("../shared/datasets");
    p.is_dir().then_some(p)
}

/// The shared datasets for a unit test: `None` where they are missing, after
/// saying on stderr (uncaptured: one line for the one unit test that reads
/// them) that the test skips; a panic instead with
/// `TEEBATCH_REQUIRE_DATASETS` set. (The integration tests count their
/// skips in `tests/common`.)
#[cfg(test)]
pub(crate) fn test_datasets() -> Option<PathBuf> {
    use std::io::Write;
    let found = shared_datasets_dir(env!("CARGO_MANIFEST_DIR"));
    if found.is_none() {
        if std::env::var_os("TEEBATCH_REQUIRE_DATASETS").is_some() {
            panic!("TEEBATCH_REQUIRE_DATASETS is set but ../shared/datasets is missing");
        }
        let test = std::thread::current().name().unwrap_or("").to_owned();
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test} for lack of data: ../shared/datasets not found (set TEEBATCH_DATASETS)"
        );
    }
    found
}

/// A data chunk's payload as decoded by [`decoded_payloads`].
pub struct DecodedPayload<'a> {
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
