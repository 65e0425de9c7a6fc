//! What a demo stream hands its [`Visitor`]: positions, payloads and
//! events.

use crate::codec::snapshot::{Changes, Snapshot};

/// Where a chunk is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkPos {
    /// Index among all chunks (tick markers included).
    pub index: usize,
    /// File offset of the chunk's header byte.
    pub offset: usize,
}

/// A data chunk's payload at each decoding stage.
#[derive(Clone, Copy, Debug)]
pub struct Payload<'a> {
    /// Index among data chunks only (the golden `chunks.tsv` index).
    pub data_index: usize,
    /// As stored in the file (Huffman-coded).
    pub compressed: &'a [u8],
    /// After Huffman decompression.
    pub decompressed: &'a [u8],
    /// After varint unpacking.
    pub ints: &'a [i32],
}

/// Full snapshot or delta.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SnapshotKind {
    Full,
    Delta,
}

impl SnapshotKind {
    /// `S` or `D`, as in the golden files.
    pub fn letter(self) -> char {
        match self {
            SnapshotKind::Full => 'S',
            SnapshotKind::Delta => 'D',
        }
    }
}

/// A completed tick: emitted after the data chunks of its tick.
#[derive(Clone, Copy, Debug)]
pub struct TickEvent<'a> {
    pub tick: i32,
    pub keyframe: bool,
    /// Whether a snapshot or delta chunk followed the marker in this tick.
    pub had_snapshot_chunk: bool,
    /// The tick marker chunk.
    pub pos: ChunkPos,
    /// The snapshot in effect (`None` before the first snapshot).
    pub snapshot: Option<&'a Snapshot>,
    /// Its checksum (0 without snapshot).
    pub checksum: i32,
}

/// A reconstructed snapshot.
#[derive(Clone, Copy, Debug)]
pub struct SnapshotEvent<'a> {
    pub tick: i32,
    pub kind: SnapshotKind,
    pub pos: ChunkPos,
    pub payload: Payload<'a>,
    pub snapshot: &'a Snapshot,
    /// What this chunk changed in the previous snapshot: known for deltas
    /// applied in place, unknown (every item new) for full snapshots and
    /// the oracle tier's copying application.
    pub changes: &'a Changes,
    /// Wrapping sum of the item data.
    pub checksum: i32,
}

/// A message chunk, unpacked to ints; the message layer decodes them.
#[derive(Clone, Copy, Debug)]
pub struct MessageEvent<'a> {
    pub tick: i32,
    pub pos: ChunkPos,
    pub payload: Payload<'a>,
    /// The ints as little-endian bytes: the message as DDNet hands it to
    /// its message unpacker.
    pub bytes: &'a [u8],
}

/// A data chunk of type 0, decoded like the others.
#[derive(Clone, Copy, Debug)]
pub struct UnknownEvent<'a> {
    pub tick: i32,
    pub pos: ChunkPos,
    pub chunk_type: u8,
    pub payload: Payload<'a>,
}

/// One step of the stream.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    Tick(TickEvent<'a>),
    Snapshot(SnapshotEvent<'a>),
    Message(MessageEvent<'a>),
    Unknown(UnknownEvent<'a>),
}

impl Event<'_> {
    /// The tick: of the marker for [`Event::Tick`], else of the latest
    /// tick marker (`-1` before any).
    pub fn tick(&self) -> i32 {
        match self {
            Event::Tick(e) => e.tick,
            Event::Snapshot(e) => e.tick,
            Event::Message(e) => e.tick,
            Event::Unknown(e) => e.tick,
        }
    }

    /// The chunk the event comes from (the tick marker for [`Event::Tick`]).
    pub fn pos(&self) -> ChunkPos {
        match self {
            Event::Tick(e) => e.pos,
            Event::Snapshot(e) => e.pos,
            Event::Message(e) => e.pos,
            Event::Unknown(e) => e.pos,
        }
    }

    /// The payload of a data chunk; `None` for [`Event::Tick`].
    pub fn payload(&self) -> Option<&Payload<'_>> {
        match self {
            Event::Tick(_) => None,
            Event::Snapshot(e) => Some(&e.payload),
            Event::Message(e) => Some(&e.payload),
            Event::Unknown(e) => Some(&e.payload),
        }
    }
}

/// Something that consumes events (dumps, statistics).
pub trait Visitor {
    fn visit(&mut self, event: &Event<'_>);
}

impl<V: Visitor + ?Sized> Visitor for &mut V {
    fn visit(&mut self, event: &Event<'_>) {
        (**self).visit(event)
    }
}

/// Both visitors see every event (e.g. statistics and a dump in one pass).
impl<A: Visitor, B: Visitor> Visitor for (A, B) {
    fn visit(&mut self, event: &Event<'_>) {
        self.0.visit(event);
        self.1.visit(event);
    }
}

/// Every visitor sees every event, in order.
impl<V: Visitor> Visitor for Vec<V> {
    fn visit(&mut self, event: &Event<'_>) {
        for v in self {
            v.visit(event);
        }
    }
}
