//! The Teeworlds datafile container (maps), versions 3 and 4.
//!
//! Reference: `libtw2-doc/datafile.md`; DDNet `src/engine/shared/datafile.cpp`.
//! All integers are little-endian `i32`.
//!
//! ```text
//! offset  size            part
//! 0       4               magic "DATA" (or "ATAD", written by big-endian hosts)
//! 4       4               version (3 or 4)
//! 8       4               size     = file size - 16
//! 12      4               swaplen  = bytes of ints from offset 16 to the data section
//! 16      4 × 5           num_item_types, num_items, num_data, item_size, data_size
//! 36      12 × types      item types: type_id, start, num
//!         4 × items       item offsets (relative to the item section)
//!         4 × data        data offsets (relative to the data section)
//!         4 × data        uncompressed data sizes (version 4 only)
//!         item_size       items: (type_id << 16 | id), size in bytes, size/4 ints
//!         data_size       data blocks: zlib streams (v4) or raw bytes (v3)
//! ```
//!
//! Quirks handled here:
//!
//! - **Crude v4.** Old writers computed `size` and `swaplen` as if the file
//!   were version 3, leaving out the 4 × num_data bytes of the size table.
//!   The reference never reads those fields; such files are reported as
//!   [`Version::V4Crude`].
//! - **v3 data is stored raw**: the reference only inflates version 4 blocks.
//! - Every count and offset is checked against the buffer in [`Datafile::parse`],
//!   so access afterwards cannot fail; decompression checks the claimed size
//!   against what zlib can produce at most from the block's bytes (1032:1) and
//!   against [`InflateLimits`] before allocating, so a bomb is an error, not an
//!   out-of-memory.

mod error;
mod inflate;
mod parse;
mod write;

pub use error::{Error, ErrorKind, Section, Warning, WarningKind};
pub use inflate::{InflateLimits, Inflater, DEFAULT_MAX_DECOMPRESSED_BYTES};
pub use parse::{Datafile, Item, ItemType, ItemTypeId, Layout, Version, MAX_WARNINGS};
pub use write::DatafileWriter;

/// Item type id of DDNet's UUID index items (the "ex" type).
pub const ITEMTYPE_EX: u16 = 0xffff;
