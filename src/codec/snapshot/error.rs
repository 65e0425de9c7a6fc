//! The errors and warnings of snapshot parsing and delta application:
//! their kinds and the int offsets they apply to.

use std::fmt;

/// What went wrong; see [`Error`] for where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The stream ends before a field or an item's data.
    Truncated,
    /// `num_items`, `num_removed` or `num_item_deltas` is negative.
    NegativeCount,
    /// `num_removed` or `num_item_deltas` needs more ints than remain.
    CountTooLarge,
    /// `data_size` or an explicit item size is negative.
    NegativeSize,
    /// `data_size` or an item offset is not a multiple of 4 bytes.
    UnalignedSize,
    /// An item offset is out of order, out of range, leaves no room for the
    /// item key, or the first is not 0 (or there is data but no item).
    BadOffset,
    /// Ints follow the last item of a full snapshot.
    TrailingData,
    /// Two items of a snapshot have the same key.
    DuplicateKey,
    /// More than [`MAX_ITEMS`](super::MAX_ITEMS) items.
    TooManyItems,
    /// More than [`MAX_SIZE`](super::MAX_SIZE) bytes.
    TooLarge,
    /// An item of more than [`MAX_ITEM_SIZE`](super::MAX_ITEM_SIZE) bytes.
    ItemTooLarge,
    /// An item delta's type is outside `0..=MAX_TYPE`.
    TypeOutOfRange,
    /// An item delta's id is outside `0..=MAX_ID`.
    IdOutOfRange,
    /// An item delta updates an item of another size (or, when creating a
    /// delta, an item's size differs from the old one or the pre-agreed one).
    SizeMismatch,
}

crate::kind::kind_names!(ErrorKind {
    Truncated => "truncated",
    NegativeCount => "negative_count",
    CountTooLarge => "count_too_large",
    NegativeSize => "negative_size",
    UnalignedSize => "unaligned_size",
    BadOffset => "bad_offset",
    TrailingData => "trailing_data",
    DuplicateKey => "duplicate_key",
    TooManyItems => "too_many_items",
    TooLarge => "too_large",
    ItemTooLarge => "item_too_large",
    TypeOutOfRange => "type_out_of_range",
    IdOutOfRange => "id_out_of_range",
    SizeMismatch => "size_mismatch",
});

impl ErrorKind {
    /// What the kind means, for messages.
    fn describe(self) -> &'static str {
        match self {
            ErrorKind::Truncated => "truncated",
            ErrorKind::NegativeCount => "negative count",
            ErrorKind::CountTooLarge => "count larger than the remaining ints",
            ErrorKind::NegativeSize => "negative size",
            ErrorKind::UnalignedSize => "size or offset not a multiple of 4",
            ErrorKind::BadOffset => "bad item offset",
            ErrorKind::TrailingData => "trailing data after the last item",
            ErrorKind::DuplicateKey => "duplicate item key",
            ErrorKind::TooManyItems => "too many items",
            ErrorKind::TooLarge => "snapshot too large",
            ErrorKind::ItemTooLarge => "item too large",
            ErrorKind::TypeOutOfRange => "item type out of range",
            ErrorKind::IdOutOfRange => "item id out of range",
            ErrorKind::SizeMismatch => "item size mismatch",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// A snapshot or delta error: its kind and the int offset in the input stream
/// (for [`Snapshot::push`](super::Snapshot::push) and [`create_delta`](super::create_delta), the index of the item).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{kind} at int {offset}")]
pub struct Error {
    pub kind: ErrorKind,
    pub offset: usize,
}

impl Error {
    #[inline]
    pub(crate) fn new(kind: ErrorKind, offset: usize) -> Error {
        Error { kind, offset }
    }
}

/// A non-fatal oddity met while applying a delta.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WarningKind {
    /// A removed key is not in the old snapshot (DDNet ignores it).
    RemovedKeyMissing,
    /// An item delta repeats a key already added by this delta; like DDNet,
    /// the later one replaces the earlier one's data in place.
    DuplicateItemDelta,
    /// The `_zero` header field is not zero.
    NonZeroPadding,
    /// Ints follow the last item delta (DDNet ignores them).
    TrailingData,
}

crate::kind::kind_names!(WarningKind {
    RemovedKeyMissing => "removed_key_missing",
    DuplicateItemDelta => "duplicate_item_delta",
    NonZeroPadding => "non_zero_padding",
    TrailingData => "trailing_data",
});

/// A warning kind and the int offset it applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Warning {
    pub kind: WarningKind,
    pub offset: usize,
}
