//! Bounds-checked little- and big-endian reads from byte slices.
//!
//! Parsers read every field through these helpers, so an offset or count taken
//! from a file can never index past the buffer: a short read is `None`, which
//! the caller turns into an error carrying its section and byte offset.

/// Reads a little-endian `i32` at `off`.
#[inline]
pub fn le_i32(buf: &[u8], off: usize) -> Option<i32> {
    let b = buf.get(off..off.checked_add(4)?)?;
    Some(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Reads a little-endian `u32` at `off`.
#[inline]
pub fn le_u32(buf: &[u8], off: usize) -> Option<u32> {
    le_i32(buf, off).map(|v| v as u32)
}

/// Reads a big-endian `i32` at `off`.
#[inline]
pub fn be_i32(buf: &[u8], off: usize) -> Option<i32> {
    let b = buf.get(off..off.checked_add(4)?)?;
    Some(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Reads a big-endian `u32` at `off`.
#[inline]
pub fn be_u32(buf: &[u8], off: usize) -> Option<u32> {
    be_i32(buf, off).map(|v| v as u32)
}

/// A view of a byte slice as little-endian `i32`s, with no alignment needs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct LeI32s<'a> {
    bytes: &'a [u8],
}

impl<'a> LeI32s<'a> {
    /// Wraps `bytes`; a trailing partial int (len % 4 != 0) is ignored.
    pub fn new(bytes: &'a [u8]) -> Self {
        let n = bytes.len() / 4 * 4;
        LeI32s { bytes: &bytes[..n] }
    }
    pub fn len(&self) -> usize {
        self.bytes.len() / 4
    }
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
    /// The `i`-th int, or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<i32> {
        le_i32(self.bytes, i.checked_mul(4)?)
    }
    /// The raw bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
    pub fn iter(&self) -> impl ExactSizeIterator<Item = i32> + 'a {
        self.bytes
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn to_vec(&self) -> Vec<i32> {
        self.iter().collect()
    }
}

impl std::fmt::Debug for LeI32s<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Declares a typed view over a run of little-endian `i32` fields (a file
/// header, a table entry, an item), read by name instead of by position, in
/// the manner of the `object` crate's header structs.
///
/// Each field `name: INDEX = i` gets the constant `INDEX` (its position) and
/// an accessor `name()` returning the int, or the field's default (0 unless
/// written `= i or D`) when the run is too short to hold it. `get(i)` reads
/// any position, named or not, and `offset_of(i)` gives the file offset of
/// int `i`, for errors and warnings.
macro_rules! int_view {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident: $index:ident = $i:literal $(or $default:literal)?,
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug)]
        $vis struct $name<'a> {
            ints: $crate::bytes::LeI32s<'a>,
            base: usize,
        }

        #[allow(dead_code)]
        impl<'a> $name<'a> {
            $(pub const $index: usize = $i;)*

            /// The view of `ints`, whose first int is at byte `base` of the file.
            pub fn new(ints: $crate::bytes::LeI32s<'a>, base: usize) -> Self {
                $name { ints, base }
            }
            /// Number of ints in the run (named or not).
            pub fn len(&self) -> usize {
                self.ints.len()
            }
            pub fn is_empty(&self) -> bool {
                self.ints.is_empty()
            }
            /// Int `i`, or `None` past the end.
            pub fn get(&self, i: usize) -> Option<i32> {
                self.ints.get(i)
            }
            /// File offset of int `i`.
            pub fn offset_of(&self, i: usize) -> usize {
                self.base + 4 * i
            }
            /// The ints of the run.
            pub fn ints(&self) -> $crate::bytes::LeI32s<'a> {
                self.ints
            }
            $(
                $(#[$fmeta])*
                pub fn $field(&self) -> i32 {
                    self.ints.get($i).unwrap_or($crate::bytes::int_view!(@default $($default)?))
                }
            )*
        }
    };
    (@default) => { 0 };
    (@default $d:literal) => { $d };
}
pub(crate) use int_view;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounds_checked() {
        let b = [1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 7];
        assert_eq!(le_i32(&b, 0), Some(1));
        assert_eq!(le_i32(&b, 4), Some(-1));
        assert_eq!(le_i32(&b, 6), None);
        assert_eq!(le_i32(&b, usize::MAX - 1), None);
        assert_eq!(be_u32(&b, 0), Some(0x0100_0000));
        let v = LeI32s::new(&b);
        assert_eq!(v.len(), 2);
        assert_eq!(v.to_vec(), vec![1, -1]);
        assert_eq!(v.get(2), None);
    }

    int_view! {
        struct Pair {
            first: FIRST = 0,
            second: SECOND = 1 or -1,
        }
    }

    #[test]
    fn int_views_read_by_name_with_defaults() {
        let b = [5, 0, 0, 0, 9, 0, 0, 0];
        let full = Pair::new(LeI32s::new(&b), 100);
        assert_eq!((full.first(), full.second()), (5, 9));
        assert_eq!(full.offset_of(Pair::SECOND), 104);
        let short = Pair::new(LeI32s::new(&b[..4]), 100);
        assert_eq!((short.first(), short.second(), short.len()), (5, -1, 1));
        let empty = Pair::new(LeI32s::new(&[]), 0);
        assert_eq!((empty.first(), empty.get(Pair::FIRST)), (0, None));
    }
}
