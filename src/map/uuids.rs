//! DDNet's UUID item types.
//!
//! DDNet gives newer item types a UUID instead of a fixed type id: a UUID
//! index item (type 0xFFFF, id = the map-internal type id, e.g. 0x7FFF)
//! holds the 16 UUID bytes as 4 ints read big-endian. The UUIDs are v3
//! (MD5) UUIDs of a name in DDNet's namespace
//! `e05ddaaa-c4e6-4cfb-b642-5d48e80c0029` (`src/engine/shared/uuid_manager.cpp`);
//! the names are from `src/game/mapitems_ex_types.h`. They are computed here,
//! never written out.

use std::sync::OnceLock;
use uuid::Uuid;

/// DDNet's UUID namespace.
pub(crate) const DDNET_NAMESPACE: Uuid = Uuid::from_u128(0xe05ddaaa_c4e6_4cfb_b642_5d48e80c0029);

/// The name of DDNet's item type of bezier tangents.
pub const BEZIER_ITEM: &str = "mapitemtype-envpoints-bezier@ddnet.tw";

/// Names of the map item types DDNet declares by UUID.
pub(crate) const KNOWN_NAMES: &[&str] = &[
    "mapitemtype-test@ddnet.tw",
    "mapitemtype-automapper-config@ddnet.tw",
    BEZIER_ITEM,
    "mapitemtype-group-ex@ddnet.tw",
];

/// The UUID DDNet derives from `name`.
pub fn uuid_of_name(name: &str) -> Uuid {
    Uuid::new_v3(&DDNET_NAMESPACE, name.as_bytes())
}

fn table() -> &'static [(Uuid, &'static str)] {
    static TABLE: OnceLock<Vec<(Uuid, &'static str)>> = OnceLock::new();
    TABLE.get_or_init(|| KNOWN_NAMES.iter().map(|&n| (uuid_of_name(n), n)).collect())
}

/// The name of a known item type UUID.
pub fn name_of_uuid(uuid: &Uuid) -> Option<&'static str> {
    table().iter().find(|(u, _)| u == uuid).map(|&(_, n)| n)
}

/// The UUID held by the 4 ints of a UUID index item (each int big-endian).
pub fn uuid_from_ints(ints: [i32; 4]) -> Uuid {
    let mut b = [0u8; 16];
    for (dst, v) in b.chunks_exact_mut(4).zip(ints) {
        dst.copy_from_slice(&v.to_be_bytes());
    }
    Uuid::from_bytes(b)
}

/// The 4 ints that store `uuid` in a UUID index item.
pub fn uuid_to_ints(uuid: &Uuid) -> [i32; 4] {
    let b = uuid.as_bytes();
    let mut out = [0i32; 4];
    for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
        *o = i32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automapper_uuid() {
        // The auto mapper config UUID as 59 UUID index items of the real
        // maps hold it. (map.md prints it as 16271b3e-8c17-7839-9bd9-b11ae041d0d8,
        // a garbled byte order; the maps agree with the v3 computation.)
        let u = uuid_of_name("mapitemtype-automapper-config@ddnet.tw");
        assert_eq!(u.to_string(), "3e1b2716-178c-3978-9bd9-b11ae0410dd8");
        assert_eq!(
            uuid_of_name("mapitemtype-envpoints-bezier@ddnet.tw").to_string(),
            "3ab4f84d-d9cc-3c78-b585-0d6ccdb2e25c"
        );
        assert_eq!(
            name_of_uuid(&u),
            Some("mapitemtype-automapper-config@ddnet.tw")
        );
        assert_eq!(uuid_from_ints(uuid_to_ints(&u)), u);
    }
}
