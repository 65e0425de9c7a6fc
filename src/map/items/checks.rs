//! Checks across items: items outside the type table, quads' envelope
//! references, group layer ranges, physics layers.

use super::reader::Reader;
use super::view::QuadData;
use super::{Group, Layer, LayerKind, QuadsLayer, QUAD_SIZE};
use crate::bytes::LeI32s;
use crate::map::error::{MapError, MapSection, MapWarningKind as W};
use crate::map::tiles::PhysicsKind;

/// Warns about every item outside the ranges of the item type table: no
/// view can see those, so counts would silently leave them out.
pub(super) fn warn_uncovered_items(r: &mut Reader<'_, '_>) {
    let mut covered = vec![false; r.df.num_items()];
    for t in r.df.item_types() {
        for c in covered.iter_mut().skip(t.start).take(t.num) {
            *c = true;
        }
    }
    for (i, c) in covered.iter().enumerate() {
        if !c {
            let offset = r.df.item(i).map_or(0, |it| it.offset);
            r.warn(W::ItemNotInTypeTable, MapSection::Item(i as u32), offset);
        }
    }
}

/// Whether quads layer `li`'s data block holds exactly the quads the layer
/// claims (checked against the size table, nothing inflated). A layer
/// claiming quads that its data does not hold (a missing or out-of-range
/// block, or one of another size) warns [`W::QuadsDataSize`]; a layer of
/// no quads (or a negative count) holds nothing and is not checked.
pub(super) fn quads_data_size(
    r: &mut Reader<'_, '_>,
    li: usize,
    l: &Layer,
    q: &QuadsLayer,
) -> bool {
    let (claimed, stored) = q.claimed_and_stored(r.df);
    if claimed == 0 {
        return false;
    }
    if stored != claimed * QUAD_SIZE as u64 {
        r.warn(
            W::QuadsDataSize,
            MapSection::Layer(li as u32),
            l.item_offset,
        );
        return false;
    }
    true
}

/// Inflates the data of quads layer `li`, whose size [`quads_data_size`]
/// found right, to check its quads' envelope references (the first bad
/// one warns).
pub(super) fn check_quads(
    r: &mut Reader<'_, '_>,
    li: usize,
    q: &QuadsLayer,
    num_envelopes: usize,
) -> Result<(), MapError> {
    let (Ok(n), Ok(data)) = (usize::try_from(q.num_quads), usize::try_from(q.data)) else {
        return Ok(());
    };
    r.inflate(data)?;
    let off = r.data_offset(data);
    let bad_ref = |v: i32| v != -1 && usize::try_from(v).map_or(true, |e| e >= num_envelopes);
    let bad = r.scratch.chunks_exact(QUAD_SIZE).take(n).any(|bytes| {
        let quad = QuadData::new(LeI32s::new(bytes), 0);
        bad_ref(quad.pos_env()) || bad_ref(quad.color_env())
    });
    if bad {
        r.warn(W::RefOutOfRange, MapSection::Layer(li as u32), off);
    }
    Ok(())
}

/// Gives every layer the first group whose layer range holds it; a range
/// outside the layers, or overlapping an earlier group's, warns.
pub(super) fn assign_groups(r: &mut Reader<'_, '_>, groups: &[Group], layers: &mut [Layer]) {
    for (gi, g) in groups.iter().enumerate() {
        let range = usize::try_from(g.start_layer)
            .ok()
            .zip(usize::try_from(g.num_layers).ok())
            .and_then(|(s, n)| Some(s..s.checked_add(n)?))
            .filter(|rg| rg.end <= layers.len());
        match range {
            Some(rg) => {
                let mut overlap = false;
                for l in &mut layers[rg] {
                    overlap |= l.group.is_some();
                    l.group.get_or_insert(gi);
                }
                if overlap {
                    r.warn(
                        W::GroupLayerRange,
                        MapSection::Group(gi as u32),
                        g.item_offset,
                    );
                }
            }
            None => r.warn(
                W::GroupLayerRange,
                MapSection::Group(gi as u32),
                g.item_offset,
            ),
        }
    }
}

/// Physics layers: one game layer, at most one of each other kind.
pub(super) fn check_physics_layers(r: &mut Reader<'_, '_>, layers: &[Layer]) {
    let mut seen = [0usize; 7];
    for (li, l) in layers.iter().enumerate() {
        if let LayerKind::Tilemap(tm) = &l.kind {
            let k = tm.kind as usize;
            seen[k] += 1;
            if tm.kind != PhysicsKind::Tiles && seen[k] == 2 {
                r.warn(
                    W::DuplicatePhysicsLayer,
                    MapSection::Layer(li as u32),
                    l.item_offset,
                );
            }
        }
    }
    if seen[PhysicsKind::Game as usize] == 0 {
        r.warn(W::MissingGameLayer, MapSection::Map, 0);
    }
}
