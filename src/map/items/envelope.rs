//! Envelope items (type 3) and the envelope points item (type 6).

use super::reader::{too_short, Reader};
use super::view::{self, EnvPoint, EnvelopeItem};
use super::{EnvPoints, Envelope, ITEM_ENVPOINTS};
use crate::datafile::Item;
use crate::map::error::{MapError, MapSection, MapWarningKind as W};

/// Envelope `i`.
pub(super) fn read_envelope(
    r: &mut Reader<'_, '_>,
    i: usize,
    it: &Item<'_>,
) -> Result<Envelope, MapError> {
    let s = MapSection::Envelope(i as u32);
    let v = view::of(it, EnvelopeItem::new);
    if v.len() < EnvelopeItem::NAME {
        return Err(too_short(s, it));
    }
    let version = v.version();
    let name = r.item_name(it, EnvelopeItem::NAME, EnvelopeItem::NAME_LEN, s);
    let synchronized = version >= 2 && v.synchronized() != 0;
    // 4/5: 2007-era; 12: v1; 13: v2 and v3.
    if ![4, 5, 12, 13].contains(&v.len()) {
        r.warn(W::OddItemSize, s, it.offset);
    }
    Ok(Envelope {
        version,
        channels: v.channels(),
        start_point: v.start_point(),
        num_points: v.num_points(),
        name,
        synchronized,
        item_offset: it.offset,
    })
}

/// The envelope points item (6 ints per point, 22 when `bezier`); with
/// `check`, the curve types. Every envelope's point range must lie inside.
pub(super) fn read_env_points(
    r: &mut Reader<'_, '_>,
    envelopes: &[Envelope],
    bezier: bool,
    check: bool,
) -> EnvPoints {
    let ints_per_point = if bezier {
        EnvPoint::BEZIER_INTS
    } else {
        EnvPoint::INTS
    };
    let mut items = r.df.items_of_type(ITEM_ENVPOINTS);
    let item = items.next();
    if let Some(extra) = items.next() {
        r.warn(W::DuplicateItem, MapSection::EnvPoints, extra.offset);
    }
    let count = item.map_or(0, |it| it.data.len() / ints_per_point);
    if let Some(it) = &item {
        if it.data.len() % ints_per_point != 0 {
            r.warn(W::OddItemSize, MapSection::EnvPoints, it.offset);
        }
        if check {
            let point = |p: usize| EnvPoint::nth(it.data, it.data_offset(), ints_per_point, p);
            let bad = (0..count)
                .map_while(point)
                .find(|pt| !(0..=5).contains(&pt.curve_type()));
            if let Some(pt) = bad {
                r.warn(
                    W::BadCurveType,
                    MapSection::EnvPoints,
                    pt.offset_of(EnvPoint::CURVE_TYPE),
                );
            }
        }
    }
    for (i, e) in envelopes.iter().enumerate() {
        let ok = usize::try_from(e.start_point)
            .ok()
            .zip(usize::try_from(e.num_points).ok())
            .and_then(|(s, n)| s.checked_add(n))
            .is_some_and(|end| end <= count);
        if !ok {
            r.warn(
                W::EnvPointRange,
                MapSection::Envelope(i as u32),
                e.item_offset,
            );
        }
    }
    EnvPoints {
        count,
        ints_per_point,
    }
}
