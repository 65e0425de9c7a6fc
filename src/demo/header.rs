//! Version header, fixed header, timeline markers, SHA-256 extension and map.

use super::chunk::Chunks;
use super::{DemoError, DemoErrorKind, DemoWarning, DemoWarningKind, Section};
use crate::bytes::be_i32;
use crate::codec::snapshot::Protocol;
use crate::warn::{Discard, Warn};

/// The first 7 bytes of every demo.
pub const DEMO_MAGIC: &[u8; 7] = b"TWDEMO\0";

/// UUID `6be6da4a-cebd-380c-9b5b-1289c842d780` ("demoitem-sha256@ddnet.tw")
/// that announces the map's SHA-256 in version 6.
pub const SHA256_UUID: [u8; 16] = [
    0x6b, 0xe6, 0xda, 0x4a, 0xce, 0xbd, 0x38, 0x0c, 0x9b, 0x5b, 0x12, 0x89, 0xc8, 0x42, 0xd7, 0x80,
];

const HEADER_END: usize = 8 + 168;
const MAX_TIMELINE_MARKERS: usize = 64;
const MARKERS_LEN: usize = 4 + 4 * MAX_TIMELINE_MARKERS;

/// A parsed demo: header fields, embedded map, and where the chunks start.
///
/// Everything borrows from the input bytes; nothing is copied.
#[derive(Clone)]
pub struct Demo<'a> {
    bytes: &'a [u8],
    version: u8,
    net_version: &'a [u8],
    map_name: &'a [u8],
    map_size: u32,
    map_crc: u32,
    kind: &'a [u8],
    length: i32,
    timestamp: &'a [u8],
    num_timeline_markers: usize,
    timeline_markers: [i32; MAX_TIMELINE_MARKERS],
    map_sha256: Option<[u8; 32]>,
    map_offset: usize,
    chunks_offset: usize,
}

impl std::fmt::Debug for Demo<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        f.debug_struct("Demo")
            .field("version", &self.version)
            .field("net_version", &text(self.net_version))
            .field("map_name", &text(self.map_name))
            .field("map_size", &self.map_size)
            .field("map_crc", &format_args!("{:08x}", self.map_crc))
            .field("type", &text(self.kind))
            .field("length", &self.length)
            .field("timestamp", &text(self.timestamp))
            .field("timeline_markers", &self.timeline_markers())
            .field("map_sha256", &self.map_sha256.map(hex::encode))
            .field("map_offset", &self.map_offset)
            .field("chunks_offset", &self.chunks_offset)
            .field("file_len", &self.bytes.len())
            .finish()
    }
}

/// Whether a fixed-size string field has non-zero bytes after its first NUL.
fn has_padding(field: &[u8]) -> bool {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    field[end..].iter().any(|&b| b != 0)
}

/// The bytes of a fixed-size string field up to its first NUL.
fn c_str(field: &[u8]) -> &[u8] {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    &field[..end]
}

impl<'a> Demo<'a> {
    /// Parses the header, markers, SHA-256 extension and map framing.
    ///
    /// Chunks are not looked at; see [`Demo::chunks`]. Warnings are dropped;
    /// see [`Demo::parse_with_warnings`].
    pub fn parse(bytes: &'a [u8]) -> Result<Demo<'a>, DemoError> {
        Demo::parse_with_warnings(bytes, &mut Discard)
    }

    /// [`Demo::parse`], pushing header and timeline-marker warnings to
    /// `warnings`.
    pub fn parse_with_warnings(
        bytes: &'a [u8],
        warnings: &mut impl Warn<DemoWarning>,
    ) -> Result<Demo<'a>, DemoError> {
        Demo::parse_inner(bytes, warnings, false)
    }

    /// Like [`Demo::parse`], but an embedded map cut off by the end of the
    /// file is returned as the bytes that are there (and the demo has no
    /// chunks), so a report on a truncated demo can keep its header.
    pub fn parse_truncated_map(bytes: &'a [u8]) -> Result<Demo<'a>, DemoError> {
        Demo::parse_inner(bytes, &mut Discard, true)
    }

    fn parse_inner(
        bytes: &'a [u8],
        warnings: &mut impl Warn<DemoWarning>,
        clamp_map: bool,
    ) -> Result<Demo<'a>, DemoError> {
        let mut warn = |kind, section, offset| {
            warnings.warn(DemoWarning {
                kind,
                section,
                offset,
            });
        };
        let err = |kind, section, offset| DemoError {
            kind,
            section,
            offset,
        };
        let end = |section, offset| err(DemoErrorKind::UnexpectedEnd, section, offset);
        let field = |off: usize, len: usize| bytes.get(off..off + len);

        let magic = field(0, 7).ok_or(end(Section::Header, bytes.len()))?;
        if magic != DEMO_MAGIC {
            return Err(err(DemoErrorKind::BadMagic, Section::Header, 0));
        }
        let version = *bytes.get(7).ok_or(end(Section::Header, bytes.len()))?;
        if !(3..=6).contains(&version) {
            return Err(err(DemoErrorKind::UnsupportedVersion, Section::Header, 7));
        }
        let header = field(8, 168).ok_or(end(Section::Header, bytes.len()))?;
        let net_version = c_str(&header[0..64]);
        let map_name = c_str(&header[64..128]);
        let map_size = be_i32(header, 128).unwrap_or(0);
        let map_crc = be_i32(header, 132).unwrap_or(0) as u32;
        let kind = c_str(&header[136..144]);
        let length = be_i32(header, 144).unwrap_or(0);
        let timestamp = c_str(&header[148..168]);
        let map_size = u32::try_from(map_size)
            .map_err(|_| err(DemoErrorKind::NegativeMapSize, Section::Header, 8 + 128))?;
        for (start, len, kind) in [
            (0, 64, DemoWarningKind::NetVersionPadding),
            (64, 64, DemoWarningKind::MapNamePadding),
            (148, 20, DemoWarningKind::TimestampPadding),
        ] {
            if has_padding(&header[start..start + len]) {
                warn(kind, Section::Header, 8 + start);
            }
        }
        if (kind != b"client" && kind != b"server") || has_padding(&header[136..144]) {
            warn(DemoWarningKind::UnknownType, Section::Header, 8 + 136);
        }

        let mut pos = HEADER_END;
        let mut num_timeline_markers = 0;
        let mut timeline_markers = [0; MAX_TIMELINE_MARKERS];
        if version >= 4 {
            let markers =
                field(pos, MARKERS_LEN).ok_or(end(Section::TimelineMarkers, bytes.len()))?;
            let count = be_i32(markers, 0).unwrap_or(0);
            num_timeline_markers = usize::try_from(count)
                .ok()
                .filter(|&n| n <= MAX_TIMELINE_MARKERS)
                .ok_or(err(
                    DemoErrorKind::TimelineMarkerCount,
                    Section::TimelineMarkers,
                    pos,
                ))?;
            for (i, slot) in timeline_markers.iter_mut().enumerate() {
                *slot = be_i32(markers, 4 + 4 * i).unwrap_or(0);
            }
            let (valid, unused) = timeline_markers.split_at(num_timeline_markers);
            if unused.iter().any(|&m| m != 0) {
                let at = pos + 4 + 4 * num_timeline_markers;
                warn(
                    DemoWarningKind::TimelineMarkerPadding,
                    Section::TimelineMarkers,
                    at,
                );
            }
            if valid.windows(2).any(|w| w[0] >= w[1]) {
                warn(
                    DemoWarningKind::TimelineMarkersNotIncreasing,
                    Section::TimelineMarkers,
                    pos,
                );
            }
            pos += MARKERS_LEN;
        }

        let mut map_sha256 = None;
        if version >= 6 && field(pos, 16) == Some(&SHA256_UUID[..]) {
            let sha = field(pos + 16, 32).ok_or(end(Section::Sha256, bytes.len()))?;
            let mut digest = [0; 32];
            digest.copy_from_slice(sha);
            map_sha256 = Some(digest);
            pos += 48;
        }

        let map_offset = pos;
        let chunks_offset = match map_offset
            .checked_add(map_size as usize)
            .filter(|&e| e <= bytes.len())
        {
            Some(e) => e,
            None if clamp_map => bytes.len(),
            None => return Err(end(Section::Map, bytes.len())),
        };

        Ok(Demo {
            bytes,
            version,
            net_version,
            map_name,
            map_size,
            map_crc,
            kind,
            length,
            timestamp,
            num_timeline_markers,
            timeline_markers,
            map_sha256,
            map_offset,
            chunks_offset,
        })
    }

    /// The whole file.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// Format version, 3..=6.
    pub fn version(&self) -> u8 {
        self.version
    }
    /// Network protocol string, e.g. `0.6 626fce9a778df4d4` (bytes before NUL).
    pub fn net_version(&self) -> &'a [u8] {
        self.net_version
    }
    /// The protocol [`Demo::net_version`] names, if it is one of the two
    /// known strings.
    pub fn protocol(&self) -> Option<Protocol> {
        std::str::from_utf8(self.net_version)
            .ok()
            .and_then(Protocol::from_net_version)
    }
    /// The protocol snapshots are decoded with: [`Demo::protocol`], else
    /// DDNet's fallback (a net version starting with `0.7` means 0.7,
    /// anything else 0.6).
    pub fn decode_protocol(&self) -> Protocol {
        self.protocol()
            .unwrap_or(match self.net_version.starts_with(b"0.7") {
                true => Protocol::V07,
                false => Protocol::V06,
            })
    }
    /// Map name (bytes before NUL).
    pub fn map_name(&self) -> &'a [u8] {
        self.map_name
    }
    /// Size of the embedded map as stored in the header.
    pub fn map_size(&self) -> u32 {
        self.map_size
    }
    /// CRC-32 of the map as stored in the header.
    pub fn map_crc(&self) -> u32 {
        self.map_crc
    }
    /// Demo type, `client` or `server` (bytes before NUL).
    pub fn demo_type(&self) -> &'a [u8] {
        self.kind
    }
    /// Length in seconds as stored in the header.
    pub fn length(&self) -> i32 {
        self.length
    }
    /// Recording time, `YYYY-MM-DD_HH-MM-SS` (bytes before NUL).
    pub fn timestamp(&self) -> &'a [u8] {
        self.timestamp
    }
    /// The valid timeline markers (ticks); empty before version 4.
    pub fn timeline_markers(&self) -> &[i32] {
        &self.timeline_markers[..self.num_timeline_markers]
    }
    /// The map's SHA-256 from the version-6 extension, if present.
    pub fn map_sha256(&self) -> Option<&[u8; 32]> {
        self.map_sha256.as_ref()
    }
    /// The embedded map (a datafile; empty when `map_size` is 0).
    pub fn map(&self) -> &'a [u8] {
        &self.bytes[self.map_offset..self.chunks_offset]
    }
    /// File offset of the embedded map.
    pub fn map_offset(&self) -> usize {
        self.map_offset
    }
    /// File offset of the first chunk.
    pub fn chunks_offset(&self) -> usize {
        self.chunks_offset
    }
    /// Whether tick markers use the version-5 layout (inline-delta flag).
    pub fn has_inline_tick_flag(&self) -> bool {
        self.version >= 5
    }

    /// Iterates over the chunks from the start of the chunk data.
    pub fn chunks(&self) -> Chunks<'a> {
        Chunks::new(self.bytes, self.chunks_offset, self.version, 0, None)
    }

    /// The tick of the first tick marker of the chunk data, from the
    /// framing alone (no decoding; usually the very first chunk): the tick
    /// `demos index` reports as `first_tick` for a demo whose stream
    /// accepts that marker. `None` when no tick marker comes before the
    /// end of the data or a framing error.
    pub fn first_tick(&self) -> Option<i32> {
        self.chunks().find_map(|c| match c {
            Ok(super::Chunk {
                kind: super::ChunkKind::Tick { tick, .. },
                ..
            }) => Some(tick),
            _ => None,
        })
    }

    /// Iterates from a chunk boundary found earlier (e.g. a keyframe's tick
    /// marker, to split decoding across threads): `offset` and `index` are
    /// that chunk's [`super::Chunk::offset`] and [`super::Chunk::index`],
    /// `tick` the tick in effect before it (relevant if it is a delta).
    ///
    /// An `offset` outside the chunk data yields nothing.
    pub fn chunks_at(&self, offset: usize, index: usize, tick: i32) -> Chunks<'a> {
        let offset = offset.max(self.chunks_offset);
        Chunks::new(self.bytes, offset, self.version, index, Some(tick))
    }
}
