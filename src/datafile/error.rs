//! Errors and warnings of the datafile layer.
//!
//! Both are small `Copy + Eq + Hash` values so a batch can count them by kind
//! across an archive. Each carries the [`Section`] it arose in and the byte
//! offset in the file (for data blocks: the offset of the block's compressed
//! bytes in the file).

use std::fmt;

/// Where in a datafile something happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// Magic and version (bytes 0..8).
    VersionHeader,
    /// The seven header ints (bytes 8..36).
    Header,
    ItemTypes,
    ItemOffsets,
    DataOffsets,
    DataSizes,
    /// The item with this index.
    Item(u32),
    /// The data block with this index.
    Data(u32),
}

impl Section {
    /// A short stable name for reports: `header`, `item 12`, `data 3`, ...
    pub fn name(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Section::VersionHeader => f.write_str("version header"),
            Section::Header => f.write_str("header"),
            Section::ItemTypes => f.write_str("item types"),
            Section::ItemOffsets => f.write_str("item offsets"),
            Section::DataOffsets => f.write_str("data offsets"),
            Section::DataSizes => f.write_str("data sizes"),
            Section::Item(i) => write!(f, "item {i}"),
            Section::Data(i) => write!(f, "data {i}"),
        }
    }
}

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file ends before a part the header announces.
    Truncated,
    /// Neither `DATA` nor `ATAD`.
    BadMagic,
    /// A version other than 3 or 4.
    UnsupportedVersion,
    /// A count or size in the header is negative.
    NegativeCount,
    /// An item type's id does not fit in 16 bits, or its range of items is
    /// outside the item table, or types overlap or repeat.
    BadItemType,
    /// An item offset points outside the item section or goes backwards.
    BadItemOffset,
    /// An item's size is negative, not a multiple of 4, or overruns its slot.
    BadItemSize,
    /// An item's type id differs from the type whose range it is in.
    ItemTypeMismatch,
    /// A data offset points outside the data section or goes backwards.
    BadDataOffset,
    /// A v4 uncompressed size is negative or larger than zlib can produce
    /// from the block's compressed bytes.
    BadDataSize,
    /// zlib rejected a data block.
    Inflate,
    /// A data block inflated to another size than the size table says.
    DataSizeMismatch,
    /// Decompressing would exceed [`super::InflateLimits::max_decompressed_bytes`].
    LimitExceeded,
    /// A data block index out of range was asked for.
    NoSuchData,
}

crate::kind::kind_names!(ErrorKind {
    Truncated => "truncated",
    BadMagic => "bad_magic",
    UnsupportedVersion => "unsupported_version",
    NegativeCount => "negative_count",
    BadItemType => "bad_item_type",
    BadItemOffset => "bad_item_offset",
    BadItemSize => "bad_item_size",
    ItemTypeMismatch => "item_type_mismatch",
    BadDataOffset => "bad_data_offset",
    BadDataSize => "bad_data_size",
    Inflate => "inflate",
    DataSizeMismatch => "data_size_mismatch",
    LimitExceeded => "limit_exceeded",
    NoSuchData => "no_such_data",
});

impl ErrorKind {
    /// What went wrong, in words (the start of the error's message).
    pub(crate) fn describe(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "file ends before the part the header announces",
            ErrorKind::BadMagic => "not a datafile (magic is neither DATA nor ATAD)",
            ErrorKind::UnsupportedVersion => "unsupported datafile version (not 3 or 4)",
            ErrorKind::NegativeCount => "negative count or size in the header",
            ErrorKind::BadItemType => "invalid item type entry",
            ErrorKind::BadItemOffset => "item offset out of range",
            ErrorKind::BadItemSize => "invalid item size",
            ErrorKind::ItemTypeMismatch => "item's type differs from its item type range",
            ErrorKind::BadDataOffset => "data offset out of range",
            ErrorKind::BadDataSize => "invalid uncompressed data size",
            ErrorKind::Inflate => "zlib stream is corrupt",
            ErrorKind::DataSizeMismatch => "data inflates to another size than the size table says",
            ErrorKind::LimitExceeded => "decompressed size limit exceeded",
            ErrorKind::NoSuchData => "no data block with that index",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())
    }
}

/// A fatal problem: the kind, the section and the byte offset in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    pub kind: ErrorKind,
    pub section: Section,
    pub offset: u64,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, section: Section, offset: usize) -> Error {
        Error {
            kind,
            section,
            offset: offset as u64,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} in {} at byte {}",
            self.kind.describe(),
            self.section,
            self.offset
        )
    }
}

impl std::error::Error for Error {}

/// A non-fatal oddity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum WarningKind {
    /// The header `size` field matches neither the correct nor the old
    /// ("crude") computation.
    HeaderSizeMismatch,
    /// The header `swaplen` field matches neither computation.
    SwaplenMismatch,
    /// Bytes follow the data section.
    TrailingBytes,
    /// An item occupies less than the space up to the next item.
    ItemGap,
    /// More than [`super::MAX_WARNINGS`] warnings: this one stands for the
    /// first left out, later ones are dropped.
    TooManyWarnings,
}

crate::kind::kind_names!(WarningKind {
    HeaderSizeMismatch => "header_size_mismatch",
    SwaplenMismatch => "swaplen_mismatch",
    TrailingBytes => "trailing_bytes",
    ItemGap => "item_gap",
    TooManyWarnings => crate::kind::TOO_MANY_WARNINGS,
});

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())
    }
}

/// A warning: the kind, the section and the byte offset in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Warning {
    pub kind: WarningKind,
    pub section: Section,
    pub offset: u64,
}

impl crate::warn::TooMany for Warning {
    fn too_many(self) -> Self {
        Warning {
            kind: WarningKind::TooManyWarnings,
            ..self
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} in {} at byte {}",
            self.kind, self.section, self.offset
        )
    }
}
