//! The state shared while reading one map's items, and the checked reads
//! every item reader uses (references, strings).

use super::super::error::{
    MapError, MapErrorKind as E, MapSection, MapWarning, MapWarningKind as W,
};
use super::super::strings::{c_string, item_i32_string, CStrEnd, MAX_STRING_LEN};
use crate::datafile::{Datafile, Inflater, Item};
use crate::warn::Warn;

/// Shared state while reading one map.
pub(super) struct Reader<'r, 'a> {
    /// The caller's sink.
    pub df: &'r Datafile<'a>,
    pub inflater: &'r mut Inflater,
    pub scratch: &'r mut Vec<u8>,
    pub warnings: &'r mut dyn Warn<MapWarning>,
}

impl Reader<'_, '_> {
    pub fn warn(&mut self, kind: W, section: MapSection, offset: usize) {
        self.warnings.warn(MapWarning::new(kind, section, offset));
    }

    /// An optional data index: -1 is none; out of range warns.
    pub fn opt_data(&mut self, v: i32, section: MapSection, offset: usize) -> Option<usize> {
        if v == -1 {
            return None;
        }
        match usize::try_from(v) {
            Ok(i) if i < self.df.num_data() => Some(i),
            _ => {
                self.warn(W::RefOutOfRange, section, offset);
                None
            }
        }
    }

    /// An optional reference to the `n` items of some type.
    pub fn opt_ref(
        &mut self,
        v: i32,
        n: usize,
        section: MapSection,
        offset: usize,
    ) -> Option<usize> {
        if v == -1 {
            return None;
        }
        match usize::try_from(v) {
            Ok(i) if i < n => Some(i),
            _ => {
                self.warn(W::RefOutOfRange, section, offset);
                None
            }
        }
    }

    pub fn data_offset(&self, index: usize) -> usize {
        self.df.data_range(index).map_or(0, |r| r.start)
    }

    /// Inflates data block `index` into the scratch buffer.
    pub fn inflate(&mut self, index: usize) -> Result<(), MapError> {
        self.df
            .decompress(index, self.inflater, self.scratch)
            .map_err(MapError::from)
    }

    pub fn note_end(&mut self, end: CStrEnd, section: MapSection, offset: usize) {
        match end {
            CStrEnd::Terminated => {}
            CStrEnd::Unterminated => self.warn(W::StringUnterminated, section, offset),
            CStrEnd::Truncated => self.warn(W::StringTruncated, section, offset),
        }
    }

    /// The CString in data block `index`: only the bytes a string can use
    /// are inflated ([`MAX_STRING_LEN`] and one more, to see a cut).
    pub fn data_string(&mut self, index: usize, section: MapSection) -> Result<String, MapError> {
        self.df
            .decompress_prefix(index, MAX_STRING_LEN + 1, self.inflater, self.scratch)
            .map_err(MapError::from)?;
        let (s, end) = c_string(self.scratch);
        let off = self.data_offset(index);
        self.note_end(end, section, off);
        Ok(s)
    }

    pub fn opt_string(
        &mut self,
        v: i32,
        section: MapSection,
        offset: usize,
    ) -> Result<Option<String>, MapError> {
        match self.opt_data(v, section, offset) {
            Some(i) => self.data_string(i, section).map(Some),
            None => Ok(None),
        }
    }

    /// The I32String name at ints `start..start + len` of item `it`,
    /// warning when it lacks its terminator; empty when the item is too
    /// short for it.
    pub fn item_name(&mut self, it: &Item<'_>, start: usize, len: usize, s: MapSection) -> String {
        match item_i32_string(it.data, start, len) {
            Some((name, terminated)) => {
                if !terminated {
                    self.warn(W::StringUnterminated, s, it.data_offset() + 4 * start);
                }
                name
            }
            None => String::new(),
        }
    }
}

/// The error for an item shorter than its fixed fields.
pub(super) fn too_short(section: MapSection, item: &Item<'_>) -> MapError {
    MapError::new(E::ItemTooShort, section, item.offset)
}
