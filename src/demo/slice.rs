//! Cutting a tick range out of a demo.
//!
//! The slice keeps the original's tick markers, snapshots (as the snapshot
//! in effect at each tick) and messages for ticks `from..=to`. Its first tick
//! marker is a keyframe followed by a full snapshot of the snapshot in
//! effect, so the slice plays on its own; later snapshots are written as
//! deltas against the previous one (full after the original's keyframes).
//! Optionally chat messages are dropped. The header is the original's
//! (version, and the net version, map name, type and timestamp fields byte
//! for byte, whatever their encoding); length and timeline markers are
//! recomputed. Snapshots and messages are handled with the protocol the
//! decoder uses ([`Demo::decode_protocol`]), so every demo `demos index`
//! decodes can be sliced.

use super::message::{self, Body};
use super::stream::{Decoder, Event, StreamError};
use super::write::{DemoHeader, DemoVersion, DemoWriter, WriteError};
use super::{Demo, DemoError};
use crate::backend::Backend;
use crate::codec::snapshot::{Protocol, Snapshot};

/// Options of [`slice()`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SliceOptions {
    /// Leave out chat messages (`Sv_Chat`).
    pub drop_chat: bool,
}

/// Why a slice could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SliceError {
    #[error(transparent)]
    Demo(#[from] DemoError),
    #[error(transparent)]
    Stream(#[from] StreamError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("demo version {0} cannot be written")]
    Version(u8),
    #[error("empty range: --from {from} is after --to {to}")]
    EmptyRange { from: i32, to: i32 },
    #[error("no tick in {from}..={to}: {}", ticks_seen(*.first, *.last))]
    NoTicks {
        from: i32,
        to: i32,
        /// The demo's first and last tick markers (`None`: it has none).
        first: Option<i32>,
        last: Option<i32>,
    },
    #[error("no snapshot at or before tick {0}: nothing to start the slice with")]
    NoSnapshot(i32),
}

fn ticks_seen(first: Option<i32>, last: Option<i32>) -> String {
    match (first, last) {
        (Some(a), Some(b)) => format!("the demo's ticks run from {a} to {b}"),
        _ => "the demo has no tick".to_owned(),
    }
}

/// The header fields copied byte for byte from the original: net version,
/// map name, type and timestamp (offset, length; the same in every
/// version).
const COPIED_HEADER_FIELDS: [(usize, usize); 4] = [(8, 64), (72, 64), (144, 8), (156, 20)];

/// What a slice holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SliceStats {
    pub ticks: u64,
    pub snapshots: u64,
    pub messages: u64,
    pub chat_dropped: u64,
}

/// One data chunk of the tick being collected.
enum Pending {
    Snapshot,
    Message(Vec<u8>),
}

/// Cuts ticks `from..=to` (absolute server ticks, as `demos dump --ticks`
/// lists them) out of `bytes` into a new demo.
///
/// Errors: `from > to` ([`SliceError::EmptyRange`]); no tick marker in the
/// range ([`SliceError::NoTicks`], naming the demo's first and last tick).
pub fn slice(
    bytes: &[u8],
    from: i32,
    to: i32,
    opts: SliceOptions,
) -> Result<(Vec<u8>, SliceStats), SliceError> {
    if from > to {
        return Err(SliceError::EmptyRange { from, to });
    }
    let demo = Demo::parse(bytes)?;
    let protocol: Protocol = demo.decode_protocol();
    let version =
        DemoVersion::from_number(demo.version()).ok_or(SliceError::Version(demo.version()))?;
    // The text fields are written empty, then overwritten with the
    // original's bytes (which need not be UTF-8).
    let header = DemoHeader {
        demo_type: "",
        timestamp: "",
        ..DemoHeader::new(version, protocol, "", demo.map())
    };
    let mut w = DemoWriter::new_vec(&header)?;
    let mut first_tick = None;
    let mut last_tick = None;
    let mut stats = SliceStats::default();

    let mut decoder = Decoder::new(Backend::default());
    // A slice is the chunks of a range; the stream's warnings are not part
    // of it.
    let mut stream = decoder.stream(&demo, crate::warn::Discard);
    // The snapshot in effect and the data chunks of the current tick.
    let mut current = Snapshot::new();
    let mut have_snapshot = false;
    let mut pending: Vec<Pending> = Vec::new();
    let mut started = false;
    while let Some(ev) = stream.next_event() {
        match ev? {
            Event::Snapshot(s) => {
                current.clone_from(s.snapshot);
                have_snapshot = true;
                if (from..=to).contains(&s.tick) {
                    pending.push(Pending::Snapshot);
                }
            }
            Event::Message(m) => {
                if !(from..=to).contains(&m.tick) {
                    continue;
                }
                let is_chat = opts.drop_chat
                    && matches!(
                        message::decode(m.bytes, protocol, &mut Vec::new()),
                        Ok(message::Message {
                            body: Body::Chat(_),
                            ..
                        })
                    );
                if is_chat {
                    stats.chat_dropped += 1;
                } else {
                    pending.push(Pending::Message(m.bytes.to_vec()));
                }
            }
            Event::Tick(t) => {
                first_tick.get_or_insert(t.tick);
                last_tick = Some(t.tick);
                if t.tick > to {
                    if started {
                        break;
                    }
                    // Nothing in the range: read on to name the last tick.
                    continue;
                }
                if t.tick < from {
                    continue;
                }
                if !started {
                    if !have_snapshot {
                        return Err(SliceError::NoSnapshot(t.tick));
                    }
                    w.tick(t.tick, true)?;
                    w.full_snapshot(&current)?;
                    stats.snapshots += 1;
                    pending.retain(|p| !matches!(p, Pending::Snapshot));
                    started = true;
                } else {
                    w.tick(t.tick, t.keyframe)?;
                }
                stats.ticks += 1;
                for p in pending.drain(..) {
                    match p {
                        Pending::Snapshot => {
                            w.snapshot(&current)?;
                            stats.snapshots += 1;
                        }
                        Pending::Message(b) => {
                            w.message(&b)?;
                            stats.messages += 1;
                        }
                    }
                }
            }
            Event::Unknown(_) => {}
        }
    }
    if !started {
        return Err(SliceError::NoTicks {
            from,
            to,
            first: first_tick,
            last: last_tick,
        });
    }
    let mut out = w.finish_vec()?;
    for (offset, len) in COPIED_HEADER_FIELDS {
        out[offset..offset + len].copy_from_slice(&bytes[offset..offset + len]);
    }
    Ok((out, stats))
}
