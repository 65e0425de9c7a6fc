//! Cutting a tick range out of a demo.
//!
//! The slice keeps the original's tick markers, snapshots (as the snapshot
//! in effect at each tick) and messages for ticks `from..=to`. Its first tick
//! marker is a keyframe followed by a full snapshot of the snapshot in
//! effect, so the slice plays on its own; later snapshots are written as
//! deltas against the previous one (full after the original's keyframes).
//! Optionally chat messages are dropped. The header is the original's
//! (version, net version, map, type, timestamp); length and timeline markers
//! are recomputed.

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
    #[error("header field is not UTF-8")]
    HeaderText,
    #[error("no snapshot at or before tick {0}: nothing to start the slice with")]
    NoSnapshot(i32),
}

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

fn text(b: &[u8]) -> Result<&str, SliceError> {
    std::str::from_utf8(b).map_err(|_| SliceError::HeaderText)
}

/// Cuts ticks `from..=to` out of `bytes` into a new demo.
pub fn slice(
    bytes: &[u8],
    from: i32,
    to: i32,
    opts: SliceOptions,
) -> Result<(Vec<u8>, SliceStats), SliceError> {
    let demo = Demo::parse(bytes)?;
    let net_version = text(demo.net_version())?;
    let protocol = Protocol::from_net_version(net_version).unwrap_or(Protocol::V06);
    let version =
        DemoVersion::from_number(demo.version()).ok_or(SliceError::Version(demo.version()))?;
    let header = DemoHeader {
        demo_type: text(demo.demo_type())?,
        timestamp: text(demo.timestamp())?,
        ..DemoHeader::new(version, protocol, text(demo.map_name())?, demo.map())
    };
    let mut w = DemoWriter::new_vec(&header)?;
    let mut stats = SliceStats::default();

    let mut decoder = Decoder::new(Backend::default());
    let mut stream = decoder.stream(&demo);
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
                if t.tick > to {
                    break;
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
    Ok((w.finish_vec()?, stats))
}
