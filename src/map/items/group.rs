//! Group items (type 4).

use super::reader::{too_short, Reader};
use super::view::{self, GroupItem};
use super::{Clip, Group};
use crate::datafile::Item;
use crate::map::error::{MapError, MapSection, MapWarningKind as W};

/// Group `i`.
pub(super) fn read_group(
    r: &mut Reader<'_, '_>,
    i: usize,
    it: &Item<'_>,
) -> Result<Group, MapError> {
    let s = MapSection::Group(i as u32);
    let v = view::of(it, GroupItem::new);
    if v.len() < GroupItem::CLIPPING {
        return Err(too_short(s, it));
    }
    let version = v.version();
    // 7: v1; 12: v2; 15: v3 (DDNet and 0.7).
    if ![7, 12, 15].contains(&v.len()) {
        r.warn(W::OddItemSize, s, it.offset);
    }
    let clip = (version >= 2 && v.len() >= GroupItem::NAME).then(|| Clip {
        enabled: v.clipping() != 0,
        x: v.clip_x(),
        y: v.clip_y(),
        width: v.clip_w(),
        height: v.clip_h(),
    });
    let name = if version >= 3 {
        r.item_name(it, GroupItem::NAME, GroupItem::NAME_LEN, s)
    } else {
        String::new()
    };
    Ok(Group {
        version,
        offset: (v.offset_x(), v.offset_y()),
        parallax: (v.parallax_x(), v.parallax_y()),
        start_layer: v.start_layer(),
        num_layers: v.num_layers(),
        clip,
        name,
        item_offset: it.offset,
    })
}
