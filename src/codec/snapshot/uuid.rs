//! DDNet extended (UUID) item types.
//!
//! Type ids are 16 bits on the wire but ordinal types are few, so DDNet
//! declares further item types per snapshot: an item of **type 0** whose
//! **id** is the type number used in this snapshot (`0x4000..=0x7fff`, handed
//! out counting down from `0x7fff`) and whose first 4 data ints are the 16
//! UUID bytes, each int holding 4 bytes big-endian. Items whose type is
//! `>= 0x4000` are resolved through that declaration (DDNet's
//! `CSnapshot::GetExternalItemType`; a declaration shorter than 4 ints
//! resolves to nothing).
//!
//! UUIDs are name-based, version 3 (MD5) over the Teeworlds namespace
//! `e05ddaaa-c4e6-4cfb-b642-5d48e80c0029`. They are computed from the names
//! at first use, never written down.

use super::{item_id, item_type, Snapshot};
use std::sync::OnceLock;
use uuid::Uuid;

/// The first type number of extended types (DDNet's `OFFSET_UUID_TYPE`).
pub const OFFSET_UUID_TYPE: u16 = 0x4000;

/// The namespace DDNet's and Teeworlds' name-based UUIDs are made in.
pub const TEEWORLDS_NAMESPACE: Uuid = Uuid::from_u128(0xe05ddaaa_c4e6_4cfb_b642_5d48e80c0029);

/// The UUID of a Teeworlds/DDNet name (v3 over [`TEEWORLDS_NAMESPACE`]).
pub fn uuid_from_name(name: &str) -> Uuid {
    Uuid::new_v3(&TEEWORLDS_NAMESPACE, name.as_bytes())
}

/// An extended item type DDNet knows by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KnownType {
    /// The name the UUID is made from, e.g. `character@netobj.ddnet.tw`.
    pub uuid_name: &'static str,
    /// DDNet's netobject name, e.g. `DDNetCharacter`.
    pub name: &'static str,
    /// The UUID of `uuid_name`.
    pub uuid: Uuid,
}

/// (UUID name, netobject name) of the extended snapshot item types DDNet
/// registers (objects and events).
pub(crate) const KNOWN_TYPE_NAMES: [(&str, &str); 18] = [
    ("my-own-object@heinrich5991.de", "MyOwnObject"),
    ("character@netobj.ddnet.tw", "DDNetCharacter"),
    ("player@netobj.ddnet.tw", "DDNetPlayer"),
    ("gameinfo@netobj.ddnet.tw", "GameInfoEx"),
    ("projectile@netobj.ddnet.tw", "DDRaceProjectile"),
    ("laser@netobj.ddnet.tw", "DDNetLaser"),
    ("ddnet-projectile@netobj.ddnet.tw", "DDNetProjectile"),
    ("pickup@netobj.ddnet.tw", "DDNetPickup"),
    ("spectator-info@netobj.ddnet.org", "DDNetSpectatorInfo"),
    ("spectator-count@netobj.ddnet.org", "SpectatorCount"),
    ("spec-char@netobj.ddnet.tw", "SpecChar"),
    ("switch-state@netobj.ddnet.tw", "SwitchState"),
    ("entity-ex@netobj.ddnet.tw", "EntityEx"),
    ("map-best-time@netobj.ddnet.org", "MapBestTime"),
    ("my-own-event@heinrich5991.de", "MyOwnEvent"),
    ("birthday@netevent.ddnet.org", "Birthday"),
    ("finish@netevent.ddnet.org", "Finish"),
    ("map-sound-world@netevent.ddnet.org", "MapSoundWorld"),
];

/// All known extended types, UUIDs computed on first use.
pub(crate) fn known_types() -> &'static [KnownType] {
    static KNOWN: OnceLock<Vec<KnownType>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        KNOWN_TYPE_NAMES
            .iter()
            .map(|&(uuid_name, name)| KnownType {
                uuid_name,
                name,
                uuid: uuid_from_name(uuid_name),
            })
            .collect()
    })
}

/// The known extended type with this UUID, if any.
pub fn lookup_uuid(uuid: &Uuid) -> Option<&'static KnownType> {
    known_types().iter().find(|k| k.uuid == *uuid)
}

/// One extended type declared in a snapshot (a type-0 item).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExtendedType {
    /// The type number items of this type use in this snapshot.
    pub type_id: u16,
    pub uuid: Uuid,
    /// The name, if DDNet knows the UUID.
    pub known: Option<&'static KnownType>,
}

impl std::fmt::Display for ExtendedType {
    /// `uuid (Name)` as the golden summaries key them, or the bare UUID when
    /// the name is unknown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.known {
            Some(k) => write!(f, "{} ({})", self.uuid.hyphenated(), k.name),
            None => write!(f, "{}", self.uuid.hyphenated()),
        }
    }
}

/// The UUID held in the first 4 ints of a type-0 item, if it has 4.
pub fn uuid_from_ints(data: &[i32]) -> Option<Uuid> {
    let d = data.first_chunk::<4>()?;
    let mut b = [0u8; 16];
    for (out, v) in b.chunks_exact_mut(4).zip(d) {
        out.copy_from_slice(&v.to_be_bytes());
    }
    Some(Uuid::from_bytes(b))
}

/// The 4 ints a type-0 item holds for `uuid`.
pub fn uuid_to_ints(uuid: &Uuid) -> [i32; 4] {
    let b = uuid.as_bytes();
    let mut out = [0i32; 4];
    for (o, c) in out.iter_mut().zip(b.chunks_exact(4)) {
        *o = i32::from_be_bytes([c[0], c[1], c[2], c[3]]);
    }
    out
}

/// The extended types a snapshot declares, in item order: type-0 items with
/// an id `>= 0x4000` and at least 4 data ints.
pub fn extended_types(snap: &Snapshot) -> impl Iterator<Item = ExtendedType> + '_ {
    snap.iter().filter_map(|(key, data)| {
        if item_type(key) != 0 || item_id(key) < OFFSET_UUID_TYPE {
            return None;
        }
        let uuid = uuid_from_ints(data)?;
        Some(ExtendedType {
            type_id: item_id(key),
            uuid,
            known: lookup_uuid(&uuid),
        })
    })
}

/// What an item's type number means in one snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemType {
    /// A protocol type (`< 0x4000`), including type 0 itself.
    Ordinal(u16),
    /// An extended type resolved through its type-0 declaration.
    Extended(ExtendedType),
    /// A type `>= 0x4000` without a (valid) declaration in the snapshot.
    Undeclared(u16),
}

/// Resolves `type_id` within `snap`, the way DDNet's `GetExternalItemType` does.
pub fn resolve_type(snap: &Snapshot, type_id: u16) -> ItemType {
    if type_id < OFFSET_UUID_TYPE {
        return ItemType::Ordinal(type_id);
    }
    let decl = snap
        .get(super::item_key(0, type_id))
        .and_then(uuid_from_ints);
    match decl {
        Some(uuid) => ItemType::Extended(ExtendedType {
            type_id,
            uuid,
            known: lookup_uuid(&uuid),
        }),
        None => ItemType::Undeclared(type_id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_ints_round_trip() {
        let u = uuid_from_name("character@netobj.ddnet.tw");
        assert_eq!(u.get_version_num(), 3);
        assert_eq!(uuid_from_ints(&uuid_to_ints(&u)), Some(u));
        assert_eq!(uuid_from_ints(&[1, 2, 3]), None);
        assert_eq!(lookup_uuid(&u).map(|k| k.name), Some("DDNetCharacter"));
        // Each int holds 4 UUID bytes big-endian.
        let ints = uuid_to_ints(&u);
        assert_eq!(ints[0].to_be_bytes(), u.as_bytes()[..4]);
    }
}
