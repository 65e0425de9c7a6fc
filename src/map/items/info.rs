//! The info item (type 1).

use super::reader::Reader;
use super::view::{self, InfoItem};
use super::{Info, ITEM_INFO};
use crate::map::error::{MapError, MapSection, MapWarningKind as W};
use crate::map::strings::settings_lines;

/// The info item with its strings and settings, `None` without one.
pub(super) fn read_info(r: &mut Reader<'_, '_>) -> Result<Option<Info>, MapError> {
    let mut items = r.df.items_of_type(ITEM_INFO);
    let Some(it) = items.next() else {
        return Ok(None);
    };
    if let Some(extra) = items.next() {
        r.warn(W::DuplicateItem, MapSection::Info, extra.offset);
    }
    let s = MapSection::Info;
    let v = view::of(&it, InfoItem::new);
    if v.len() != 5 && v.len() != 6 {
        r.warn(W::OddItemSize, s, it.offset);
    }
    let at = |i| v.offset_of(i);
    let mut info = Info {
        author: r.opt_string(v.author(), s, at(InfoItem::AUTHOR))?,
        map_version: r.opt_string(v.map_version(), s, at(InfoItem::MAP_VERSION))?,
        credits: r.opt_string(v.credits(), s, at(InfoItem::CREDITS))?,
        license: r.opt_string(v.license(), s, at(InfoItem::LICENSE))?,
        settings: Vec::new(),
    };
    if let Some(i) = r.opt_data(v.settings(), s, at(InfoItem::SETTINGS)) {
        r.inflate(i)?;
        let (lines, end) = settings_lines(r.scratch);
        let off = r.data_offset(i);
        r.note_end(end, s, off);
        info.settings = lines;
    }
    Ok(Some(info))
}
