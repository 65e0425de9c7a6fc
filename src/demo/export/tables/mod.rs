//! The tables of `demos export`: their Arrow schemas and the item layouts
//! the item tables read.
//!
//! Item tables (`positions`, `projectiles`, `lasers`, `pickups`, `flags`,
//! `game`, `events`) take their fields from [`ItemLayout`]s: for each item
//! type of each protocol (or DDNet extended type, by its UUID's name), the
//! column each data int goes to. Message tables (`chat`, `kills`,
//! `broadcasts`, `finishes`, `records`) come from the decoded messages,
//! with names resolved by the player tracker at that tick;
//! `player_changes` compares each snapshot's players with the previous
//! snapshot's and `players` has one row per session (see
//! [`super::TableBuilder`]). Every per-player table has a `session` column
//! ([`crate::demo::players::sessions`]).
//!
//! This file lists the tables and parses `--tables`; the columns (schemas,
//! units, meanings) are in `schema.rs`, the item layouts and code names in
//! `layouts.rs`.

use crate::codec::snapshot::Protocol;

mod layouts;
mod schema;

pub(crate) use layouts::DDNET_CHARACTER_LAYOUT;
pub use layouts::{
    emote_name, team_name, weapon_name, CodeNames, ItemLayout, TypeRef, CODE_NAMES,
    DDNET_CHARACTER, POSITION_FIELDS,
};
pub use schema::dictionary;

/// The columns every table starts with: the demo's path (as the records
/// of `demos index` write it), the SHA-256 of the demo file (lowercase hex,
/// the `sha256` of `demos index`), the absolute server tick, the ticks
/// since the demo's first tick marker (`tick - first_tick`, Int32) and the
/// same as seconds (`demo_tick / 50`, Float64); see
/// [`super::builder::time_of`].
pub(crate) const LEADING_COLUMNS: [&str; 5] =
    ["demo", "demo_sha256", "tick", "demo_tick", "time_s"];

/// The tables `demos export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Table {
    Positions,
    Players,
    #[cfg_attr(feature = "cli", value(name = "player_changes"))]
    PlayerChanges,
    Projectiles,
    Lasers,
    Pickups,
    Flags,
    Game,
    Events,
    Chat,
    Kills,
    Broadcasts,
    Finishes,
    Records,
    /// One row per demo: its header, embedded map and tick span.
    Demos,
}

impl Table {
    pub const ALL: [Table; 15] = [
        Table::Positions,
        Table::Players,
        Table::PlayerChanges,
        Table::Projectiles,
        Table::Lasers,
        Table::Pickups,
        Table::Flags,
        Table::Game,
        Table::Events,
        Table::Chat,
        Table::Kills,
        Table::Broadcasts,
        Table::Finishes,
        Table::Records,
        Table::Demos,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Table::Positions => "positions",
            Table::Players => "players",
            Table::PlayerChanges => "player_changes",
            Table::Projectiles => "projectiles",
            Table::Lasers => "lasers",
            Table::Pickups => "pickups",
            Table::Flags => "flags",
            Table::Game => "game",
            Table::Events => "events",
            Table::Chat => "chat",
            Table::Kills => "kills",
            Table::Broadcasts => "broadcasts",
            Table::Finishes => "finishes",
            Table::Records => "records",
            Table::Demos => "demos",
        }
    }

    /// Whether a demo's rows of this table can be made segment by
    /// segment, each segment starting at a keyframe (full snapshot) with
    /// fresh state: the item tables, whose rows come from one snapshot
    /// each. The message tables, `players`, `player_changes` and
    /// `positions` carry state through the whole demo: `positions`' (like
    /// the others') `session` numbers the sessions from the demo's start
    /// (see [`crate::demo::players::sessions`]), which a segment starting
    /// at a keyframe cannot know (0.7 `positions` also takes names from
    /// messages). `demos` is made from the header and framing by the
    /// demo's first unit, whatever the split. The protocol no longer
    /// matters; it is kept for callers.
    pub fn splittable(self, _protocol: Protocol) -> bool {
        match self {
            Table::Positions => false,
            Table::Demos => true,
            t => !t.layouts().is_empty(),
        }
    }

    /// The table named `name` on the command line.
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.name() == name)
    }

    pub(crate) fn needs_tracker(self) -> bool {
        matches!(
            self,
            Table::Positions
                | Table::Players
                | Table::PlayerChanges
                | Table::Chat
                | Table::Kills
                | Table::Finishes
        )
    }

    pub(crate) fn needs_messages(self) -> bool {
        matches!(
            self,
            Table::Positions
                | Table::Players
                | Table::PlayerChanges
                | Table::Chat
                | Table::Kills
                | Table::Broadcasts
                | Table::Finishes
                | Table::Records
        )
    }
}

/// A set of tables (`--tables`), iterated in [`Table::ALL`] order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TableSet(u32);

impl TableSet {
    /// Every table.
    pub fn all() -> TableSet {
        TableSet::from_iter(Table::ALL)
    }

    /// The set of one table.
    pub fn one(t: Table) -> TableSet {
        TableSet(1 << t as u32)
    }

    pub fn insert(&mut self, t: Table) {
        self.0 |= 1 << t as u32;
    }

    pub fn contains(self, t: Table) -> bool {
        self.0 & (1 << t as u32) != 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The tables, in [`Table::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Table> {
        Table::ALL.into_iter().filter(move |&t| self.contains(t))
    }

    /// The position of `t` in [`TableSet::iter`]'s order.
    pub fn position(self, t: Table) -> Option<usize> {
        self.iter().position(|u| u == t)
    }

    /// Whether a demo of `protocol` can be split for every table of the
    /// set ([`Table::splittable`]), and is worth splitting: `demos` alone
    /// reads no stream.
    pub fn splittable(self, protocol: Protocol) -> bool {
        self.iter().all(|t| t.splittable(protocol)) && self.iter().any(|t| t != Table::Demos)
    }

    /// Parses `--tables`: `all`, or table names separated by commas (each
    /// at most once).
    pub fn parse(s: &str) -> Result<TableSet, String> {
        if s.trim() == "all" {
            return Ok(TableSet::all());
        }
        let mut set = TableSet::default();
        for name in s.split(',').map(str::trim) {
            let t = Table::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
                format!(
                    "no table {name:?}; the tables are {} (or `all`)",
                    names.join(", ")
                )
            })?;
            if set.contains(t) {
                return Err(format!("table {name} is named twice"));
            }
            set.insert(t);
        }
        Ok(set)
    }
}

impl FromIterator<Table> for TableSet {
    fn from_iter<I: IntoIterator<Item = Table>>(iter: I) -> TableSet {
        let mut s = TableSet::default();
        for t in iter {
            s.insert(t);
        }
        s
    }
}

impl std::str::FromStr for TableSet {
    type Err = String;
    fn from_str(s: &str) -> Result<TableSet, String> {
        TableSet::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::snapshot::Protocol::{V06, V07};
    use arrow_schema::DataType;

    /// `positions`' character columns are the two protocols' character
    /// items' columns, 0.6's order first, then what only 0.7 has.
    #[test]
    fn position_fields_are_both_character_items() {
        let mut union: Vec<&str> = Vec::new();
        for l in Table::Positions.layouts() {
            for c in l.columns() {
                if !union.contains(&c) {
                    union.push(c);
                }
            }
        }
        assert_eq!(union, POSITION_FIELDS);
        assert_eq!(
            Table::Positions.layouts()[0].ty,
            TypeRef::Ordinal(V06, crate::codec::snapshot::v06::CHARACTER)
        );
    }

    /// Every extended type a layout reads is one DDNet registers, and
    /// every ordinal one takes all the ints of its type.
    #[test]
    fn layouts_name_known_types() {
        let known = crate::codec::snapshot::uuid::KNOWN_TYPE_NAMES;
        for t in Table::ALL {
            for l in t.layouts() {
                match l.ty {
                    TypeRef::Ex(name) => {
                        assert!(known.iter().any(|k| k.1 == name), "{}: {name}", t.name())
                    }
                    TypeRef::Ordinal(p, id) => {
                        let ty = p.item_type(id).unwrap();
                        assert_eq!(l.fields.len(), ty.size as usize, "{}", ty.name);
                    }
                }
            }
        }
    }

    #[test]
    fn table_sets_parse() {
        assert_eq!(TableSet::parse("all").unwrap().len(), Table::ALL.len());
        let s = TableSet::parse("chat,positions").unwrap();
        let v: Vec<Table> = s.iter().collect();
        assert_eq!(v, [Table::Positions, Table::Chat]);
        assert_eq!(s.position(Table::Chat), Some(1));
        assert!(TableSet::parse("chat,chat").is_err());
        assert!(TableSet::parse("chat,nope")
            .unwrap_err()
            .contains("positions"));
        assert!(TableSet::parse("").is_err());
        for t in Table::ALL {
            assert_eq!(Table::from_name(t.name()), Some(t));
            assert_eq!(TableSet::one(t).iter().collect::<Vec<_>>(), [t]);
        }
        assert!(!TableSet::parse("positions,players")
            .unwrap()
            .splittable(V06));
        // `positions` is never split (its sessions count from the start).
        assert!(!TableSet::parse("positions,lasers").unwrap().splittable(V06));
        assert!(!TableSet::parse("positions,lasers").unwrap().splittable(V07));
        assert!(TableSet::parse("game,lasers").unwrap().splittable(V06));
        assert!(TableSet::parse("lasers,demos").unwrap().splittable(V07));
        assert!(!TableSet::one(Table::Demos).splittable(V06));
    }

    #[test]
    fn schemas_are_well_formed() {
        for t in Table::ALL {
            let s = t.schema();
            let mut names: Vec<_> = s.fields().iter().map(|c| c.name().as_str()).collect();
            assert_eq!(names[..LEADING_COLUMNS.len()], LEADING_COLUMNS);
            assert_eq!(
                s.field_with_name("time_s").unwrap().data_type(),
                &DataType::Float64
            );
            names.sort_unstable();
            let n = names.len();
            names.dedup();
            assert_eq!(names.len(), n, "{} has duplicate columns", t.name());
            for l in t.layouts() {
                for f in l.columns() {
                    assert!(t.column_index(f).is_some(), "{}: {f}", t.name());
                }
            }
        }
        let p = Table::Positions;
        let first = p.column_index("core_tick").unwrap();
        assert_eq!(p.column_index("client_id"), Some(LEADING_COLUMNS.len()));
        // The character fields, each code with its name beside it, then
        // the player's name.
        let names = CODE_NAMES
            .iter()
            .filter(|c| POSITION_FIELDS.contains(&c.1))
            .count();
        assert_eq!(names, 2);
        assert_eq!(
            p.column_index("name"),
            Some(first + POSITION_FIELDS.len() + names)
        );
        assert_eq!(
            p.column_index("weapon_name"),
            p.column_index("weapon").map(|c| c + 1)
        );
        assert_eq!(p.column_index("demo_sha256"), Some(1));
        assert_eq!(
            p.column_index("session"),
            p.column_index("client_id").map(|c| c + 1)
        );
        // `filled` is in every item table and `positions`, whatever the
        // options (the schema does not depend on `--every-tick`), and only
        // there.
        for t in Table::ALL {
            let filled = t.column_index("filled");
            assert_eq!(filled.is_some(), !t.layouts().is_empty(), "{}", t.name());
            if let Some(c) = filled {
                let f = t.schema().field(c).clone();
                assert_eq!(f.data_type(), &DataType::Boolean);
                assert!(!f.is_nullable());
            }
        }
    }
}
