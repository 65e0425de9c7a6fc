//! The units of work of an export: one per demo, or one per segment of a
//! demo split at keyframes (see the module docs of [`super`]).

use super::ExportOptions;
use crate::batch::{load, Input};
use crate::demo::stream::{segments, Segment};
use crate::demo::Demo;

/// Most segments one demo is split into.
pub(crate) const MAX_SEGMENTS: u64 = 256;

/// A unit of work: a whole demo, or one segment of a split one.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Position in the inputs.
    pub input: usize,
    /// The segment, for a split demo.
    pub segment: Option<Segment>,
    /// The demo's first and last unit.
    pub first: bool,
    pub last: bool,
    /// The SHA-256 of the whole demo file, for the segments of a split
    /// demo (hashed once, when it is split); a whole demo is hashed by the
    /// worker that exports it.
    pub sha256: Option<[u8; 32]>,
}

/// The units of work of `inputs`, in output order: one per demo, or one
/// per segment for the demos split at keyframes (see the module docs).
/// Reads each demo of at least [`ExportOptions::split_bytes`] once for its
/// framing (no decoding).
#[doc(hidden)]
pub fn plan_units(inputs: &[Input], opts: &ExportOptions) -> Vec<Unit> {
    let mut units = Vec::with_capacity(inputs.len());
    let mut buf = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let size = input.listed_size();
        let segs = if size >= opts.split_bytes.max(1) && size <= opts.limits.max_demo_file_bytes {
            split_input(input, opts, size, &mut buf)
        } else {
            (Vec::new(), None)
        };
        let (segs, sha256) = segs;
        if segs.len() <= 1 {
            units.push(Unit {
                input: i,
                segment: None,
                first: true,
                last: true,
                sha256: None,
            });
            continue;
        }
        let n = segs.len();
        units.extend(segs.into_iter().enumerate().map(|(k, s)| Unit {
            input: i,
            segment: Some(s),
            first: k == 0,
            last: k + 1 == n,
            sha256,
        }));
    }
    units
}

/// The segments of a demo to split (none when it cannot be read or its
/// table needs the whole demo), and the SHA-256 of the demo when it is
/// split.
/// An archive member is loaded here and again by each of its units: a
/// `.tar.gz` stream is told so, and keeps its bytes meanwhile
/// ([`crate::batch::archive::Member::set_loads`]).
fn split_input(
    input: &Input,
    opts: &ExportOptions,
    size: u64,
    buf: &mut Vec<u8>,
) -> (Vec<Segment>, Option<[u8; 32]>) {
    let member = match input {
        Input::Member(m) => Some(m),
        _ => None,
    };
    if let Some(m) = member {
        m.set_loads(2);
    }
    let segs = split_loaded(input, opts, size, buf);
    if let Some(m) = member {
        // One load per unit: the segments, or the whole demo.
        m.set_loads(segs.0.len().max(1) as u32);
    }
    segs
}

fn split_loaded(
    input: &Input,
    opts: &ExportOptions,
    size: u64,
    buf: &mut Vec<u8>,
) -> (Vec<Segment>, Option<[u8; 32]>) {
    let none = (Vec::new(), None);
    let Ok(bytes) = load(input, opts.mmap, buf) else {
        return none;
    };
    let Ok(demo) = Demo::parse(&bytes) else {
        return none;
    };
    if !opts.tables.splittable(demo.decode_protocol()) {
        return none;
    }
    let count = size
        .div_ceil(opts.split_bytes.max(1))
        .clamp(1, MAX_SEGMENTS);
    let segs = segments(&demo, count as usize);
    if segs.len() <= 1 {
        return none;
    }
    use sha2::{Digest, Sha256};
    (segs, Some(Sha256::digest(&bytes[..]).into()))
}
