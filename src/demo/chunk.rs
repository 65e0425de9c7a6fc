//! Chunk framing.
//!
//! Every chunk starts with one header byte (bits from the most significant):
//!
//! ```text
//! data chunk        0ttS SSSS   t: 1 snapshot, 2 message, 3 snapshot delta
//!                               S: payload size; 30 = one size byte follows,
//!                                  31 = a little-endian u16 size follows
//! tick, version 3/4 1kDD DDDD   k: keyframe; D: tick delta, or 0 = a
//!                                  big-endian i32 absolute tick follows
//! tick, version 5/6 1kiD DDDD   i: D is the tick delta; else D is padding
//!                                  and a big-endian i32 absolute tick follows
//! ```
//!
//! Payloads are Huffman-compressed varint streams and are returned as they
//! are. Type 0 is not used by any writer; such a chunk is skipped by its
//! size and surfaced as [`ChunkKind::Unknown`].

use super::{DemoError, DemoErrorKind, DemoWarning, DemoWarningKind, Section};
use crate::bytes::be_i32;
use crate::warn::Warn;

/// Chunk header bits (read here, written by [`super::write`]).
pub(crate) const TICK_MARKER: u8 = 0x80;
pub(crate) const KEYFRAME: u8 = 0x40;
pub(crate) const INLINE_TICK: u8 = 0x20;
/// Data chunk types (bits 5..7 of the header; 0 is unknown).
pub(crate) const CHUNK_SNAPSHOT: u8 = 1;
pub(crate) const CHUNK_MESSAGE: u8 = 2;
pub(crate) const CHUNK_DELTA: u8 = 3;

/// One chunk with its position in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// File offset of the chunk's header byte.
    pub offset: usize,
    /// Index among all chunks of the file (tick markers included).
    pub index: usize,
    pub kind: ChunkKind<'a>,
}

/// What a chunk holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkKind<'a> {
    /// A tick marker; `tick` is absolute (deltas already applied).
    Tick { tick: i32, keyframe: bool },
    /// A full snapshot (compressed).
    Snapshot(&'a [u8]),
    /// A snapshot delta against the previous snapshot (compressed).
    Delta(&'a [u8]),
    /// A network message (compressed).
    Message(&'a [u8]),
    /// A data chunk of type 0, skipped by its size.
    Unknown { chunk_type: u8, data: &'a [u8] },
}

impl<'a> ChunkKind<'a> {
    /// The compressed payload of a data chunk; `None` for tick markers.
    pub fn payload(&self) -> Option<&'a [u8]> {
        match *self {
            ChunkKind::Tick { .. } => None,
            ChunkKind::Snapshot(d) | ChunkKind::Delta(d) | ChunkKind::Message(d) => Some(d),
            ChunkKind::Unknown { data, .. } => Some(data),
        }
    }

    /// A short name: `Tick`, `Snapshot`, `Delta`, `Message`, `Unknown`.
    pub fn name(&self) -> &'static str {
        match self {
            ChunkKind::Tick { .. } => "Tick",
            ChunkKind::Snapshot(_) => "Snapshot",
            ChunkKind::Delta(_) => "Delta",
            ChunkKind::Message(_) => "Message",
            ChunkKind::Unknown { .. } => "Unknown",
        }
    }
}

/// Iterator over the chunks of a demo; see [`super::Demo::chunks`].
///
/// Yields chunks in file order; a chunk cut off by the end of the file
/// yields one error (section [`Section::Chunk`], offset of that chunk's
/// header byte) and then the iterator ends.
#[derive(Clone, Debug)]
pub struct Chunks<'a> {
    bytes: &'a [u8],
    pos: usize,
    index: usize,
    tick: i32,
    /// Whether a tick is known (an absolute marker was seen, or given).
    have_tick: bool,
    inline_flag: bool,
    done: bool,
}

impl<'a> Chunks<'a> {
    pub(super) fn new(
        bytes: &'a [u8],
        pos: usize,
        version: u8,
        index: usize,
        tick: Option<i32>,
    ) -> Self {
        Chunks {
            bytes,
            pos,
            index,
            tick: tick.unwrap_or(0),
            have_tick: tick.is_some(),
            inline_flag: version >= 5,
            done: false,
        }
    }

    /// The next chunk, pushing its warnings to `warnings`.
    #[inline(always)]
    pub fn next_with_warnings(
        &mut self,
        warnings: &mut impl Warn<DemoWarning>,
    ) -> Option<Result<Chunk<'a>, DemoError>> {
        if self.done || self.pos >= self.bytes.len() {
            return None;
        }
        let r = self.next_chunk(warnings);
        if r.is_err() {
            self.done = true;
        }
        Some(r)
    }

    /// File offset of the next chunk.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// The tick of the latest tick marker (or the starting tick).
    pub fn tick(&self) -> i32 {
        self.tick
    }

    #[inline(always)]
    fn next_chunk(
        &mut self,
        warnings: &mut impl Warn<DemoWarning>,
    ) -> Result<Chunk<'a>, DemoError> {
        let start = self.pos;
        let section = Section::Chunk(self.index);
        let error = DemoError {
            kind: DemoErrorKind::UnexpectedEnd,
            section,
            offset: start,
        };
        let mut warn = |kind| {
            warnings.warn(DemoWarning {
                kind,
                section,
                offset: start,
            })
        };
        let bytes = self.bytes;
        let header = *bytes.get(start).ok_or(error)?;
        let mut pos = start + 1;
        let kind = if header & TICK_MARKER != 0 {
            let keyframe = header & KEYFRAME != 0;
            let delta = if self.inline_flag {
                (header & INLINE_TICK != 0).then_some(header & 0x1f)
            } else {
                Some(header & 0x3f).filter(|&d| d != 0)
            };
            match delta {
                Some(d) => {
                    if keyframe {
                        warn(DemoWarningKind::KeyframeDeltaTick);
                    }
                    if !self.have_tick {
                        warn(DemoWarningKind::DeltaTickFirst);
                    }
                    if d == 0 {
                        warn(DemoWarningKind::ZeroTickDelta);
                    }
                    let (tick, overflow) = self.tick.overflowing_add(i32::from(d));
                    if overflow {
                        warn(DemoWarningKind::TickOverflow);
                    }
                    self.tick = tick;
                }
                None => {
                    if self.inline_flag && header & 0x1f != 0 {
                        warn(DemoWarningKind::TickPadding);
                    }
                    let tick = be_i32(bytes, pos).ok_or(error)?;
                    if self.have_tick && tick <= self.tick {
                        warn(DemoWarningKind::TickNotIncreasing);
                    }
                    self.tick = tick;
                    self.have_tick = true;
                    pos += 4;
                }
            }
            ChunkKind::Tick {
                tick: self.tick,
                keyframe,
            }
        } else {
            let chunk_type = header >> 5 & 3;
            let size = match header & 0x1f {
                30 => {
                    let s = usize::from(*bytes.get(pos).ok_or(error)?);
                    pos += 1;
                    if s < 30 {
                        warn(DemoWarningKind::OverlongChunkSize);
                    }
                    s
                }
                31 => {
                    let s = bytes.get(pos..pos + 2).ok_or(error)?;
                    let s = usize::from(u16::from_le_bytes([s[0], s[1]]));
                    pos += 2;
                    if s <= 255 {
                        warn(DemoWarningKind::OverlongChunkSize);
                    }
                    s
                }
                s => usize::from(s),
            };
            if chunk_type == 0 {
                warn(DemoWarningKind::UnknownChunkType);
            }
            let data = bytes.get(pos..pos + size).ok_or(error)?;
            pos += size;
            match chunk_type {
                CHUNK_SNAPSHOT => ChunkKind::Snapshot(data),
                CHUNK_MESSAGE => ChunkKind::Message(data),
                CHUNK_DELTA => ChunkKind::Delta(data),
                _ => ChunkKind::Unknown { chunk_type, data },
            }
        };
        self.pos = pos;
        let chunk = Chunk {
            offset: start,
            index: self.index,
            kind,
        };
        self.index += 1;
        Ok(chunk)
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Result<Chunk<'a>, DemoError>;

    /// The next chunk; warnings are dropped (see [`Chunks::next_with_warnings`]).
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        self.next_with_warnings(&mut crate::warn::Discard)
    }
}

impl std::iter::FusedIterator for Chunks<'_> {}
