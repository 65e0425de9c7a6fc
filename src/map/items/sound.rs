//! Sound items (type 7).

use super::reader::{too_short, Reader};
use super::view::{self, SoundItem};
use super::Sound;
use crate::datafile::Item;
use crate::map::error::{MapError, MapSection, MapWarningKind as W};

/// Sound `i`; its name is inflated only when `names` is set.
pub(super) fn read_sound(
    r: &mut Reader<'_, '_>,
    i: usize,
    it: &Item<'_>,
    names: bool,
) -> Result<Sound, MapError> {
    let s = MapSection::Sound(i as u32);
    let v = view::of(it, SoundItem::new);
    if v.len() < SoundItem::DATA_SIZE {
        return Err(too_short(s, it));
    }
    if v.len() != 5 {
        r.warn(W::OddItemSize, s, it.offset);
    }
    let external = v.external() != 0;
    if external {
        r.warn(W::ExternalSound, s, it.offset);
    }
    let name = if names {
        r.opt_string(v.name(), s, it.offset)?
    } else {
        r.opt_data(v.name(), s, it.offset);
        None
    };
    let data = r.opt_data(v.data(), s, it.offset);
    let size = data.and_then(|i| r.df.data_size(i)).unwrap_or(0);
    Ok(Sound {
        version: v.version(),
        external,
        name,
        data,
        size,
        item_offset: it.offset,
    })
}
