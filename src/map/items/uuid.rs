//! UUID index items (type 0xFFFF): item types declared by UUID.

use super::reader::Reader;
use super::view::{self, UuidIndexItem};
use super::{UuidType, ITEM_UUID_INDEX};
use crate::map::error::{MapSection, MapWarningKind as W};
use crate::map::uuids;

/// The item types declared by UUID, in item order; malformed and duplicate
/// declarations are warned about and left out.
pub(super) fn read_uuid_types(r: &mut Reader<'_, '_>) -> Vec<UuidType> {
    let mut out: Vec<UuidType> = Vec::new();
    // Type ids and UUIDs seen, and the item count of every type: one pass
    // each, so the UUID index costs O(items) however long it is.
    let mut seen_ids = std::collections::HashSet::new();
    let mut seen_uuids = std::collections::HashSet::new();
    let counts: std::collections::HashMap<u16, usize> =
        r.df.item_types()
            .iter()
            .map(|t| (t.type_id, t.num))
            .collect();
    for it in r.df.items_of_type(ITEM_UUID_INDEX) {
        let s = MapSection::UuidIndex(it.index as u32);
        let v = view::of(&it, UuidIndexItem::new);
        if v.len() != 4 {
            r.warn(W::BadUuidIndex, s, it.offset);
            if v.len() < 4 {
                continue;
            }
        }
        let uuid = uuids::uuid_from_ints([v.uuid0(), v.uuid1(), v.uuid2(), v.uuid3()]);
        let uuid_s = uuid.to_string();
        if seen_ids.contains(&it.id) || seen_uuids.contains(&uuid) {
            r.warn(W::DuplicateUuidIndex, s, it.offset);
            continue;
        }
        seen_ids.insert(it.id);
        seen_uuids.insert(uuid);
        out.push(UuidType {
            type_id: it.id,
            name: uuids::name_of_uuid(&uuid),
            uuid: uuid_s,
            items: counts.get(&it.id).copied().unwrap_or(0),
        });
    }
    out
}
