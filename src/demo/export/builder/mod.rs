//! The builder that turns one demo's decoded stream into a table's rows,
//! appended straight into the table's column buffers ([`Columns`]).
//!
//! This file sets the builder up and takes its events; `items.rs` makes
//! the rows of the item tables and `positions`, `messages.rs` those of
//! `players`, `player_changes` and the message tables.

use super::columns::Columns;
use super::tables::{ItemLayout, Table, TypeRef, DDNET_CHARACTER_LAYOUT};
use crate::codec::snapshot::{Changes, Protocol, Snapshot};
use crate::demo::players::{PlayerChanges, PlayerTracker, TrackerConfig};
use crate::warn::Discard;
use arrow_array::RecordBatch;
use items::{ItemRow, Resolved, Slab};
use messages::PlayerState;
use std::collections::BTreeMap;

/// Most item columns of a table (the bits of a row's validity mask).
pub(crate) const MAX_BLOCK: usize = 64;

/// Builds one table's rows from one demo's events.
///
/// Feed it [`TableBuilder::snapshot_changed`] (or
/// [`TableBuilder::snapshot`]) and [`TableBuilder::message`] in stream
/// order; rows collect in the builder's column buffers, which the caller
/// takes as an Arrow [`RecordBatch`] ([`TableBuilder::take_batch`])
/// whenever it wants to pass them on. Rows come by tick, then by id
/// (client id, item id), then in stream order; only ticks in `from..=to`
/// give rows, but every event before them still updates the players
/// (names at the first exported tick are right).
///
/// Item tables and `positions` keep each item of the previous snapshot as
/// its row's ints, by (id, type), and follow what each delta changed
/// ([`Changes`]): a removed item drops its row, an updated or added one is
/// (re)filled, and every other row is repeated as it was. So a delta that
/// touches 3 of 300 items costs 3 item fills
/// ([`TableBuilder::items_seen`]), whatever the snapshot holds. A full
/// snapshot, a change not described item by item, a change to a UUID
/// declaration or a snapshot after ticks out of range fills every row
/// anew. A snapshot's rows are appended column by column.
///
/// Every tick ([`TableBuilder::set_every_tick`]): item tables and
/// `positions` also give rows at the tick markers without a snapshot
/// chunk ([`TableBuilder::tick`]), one per item of the snapshot in effect,
/// with `filled` true. A demo recorder writes a tick marker for every
/// snapshot it records and a delta only when that snapshot differs from
/// the previous one (DDNet's `CDemoRecorder::RecordSnapshot` skips an
/// empty delta), so such a marker's snapshot *is* the previous one: the
/// carried rows are the recorded state, not an estimate. Ticks between
/// markers have no snapshot in the demo and give no rows.
pub struct TableBuilder {
    table: Table,
    protocol: Protocol,
    /// The demo's first tick ([`first_tick`]): `demo_tick` and `time_s`
    /// count from it.
    first_tick: i32,
    from: i32,
    to: i32,
    layouts: Vec<Resolved>,
    /// The `kind` values of the table's layouts, in key order.
    kinds: Vec<&'static str>,
    /// By ordinal type id: the layout index, for this protocol.
    by_ordinal: Vec<Option<usize>>,
    /// Layouts of extended types, by netobject name.
    by_ex: Vec<(&'static str, usize)>,
    /// Extended types declared in the current snapshot: (type id, layout).
    ex_in_snap: Vec<(u16, usize)>,
    ddnet_character: Option<Resolved>,
    /// The table column of each int of the block.
    block_cols: Vec<usize>,
    /// The `filled` column (item tables and `positions`).
    filled_col: Option<usize>,
    /// Rows at tick markers without a snapshot chunk too
    /// ([`TableBuilder::set_every_tick`]).
    every_tick: bool,
    /// Keeps chat lines only for the `chat` table, which takes each as it
    /// comes ([`PlayerTracker::drain_chat`]): no table holds the chat of
    /// the whole demo.
    tracker: Option<PlayerTracker>,
    /// `chat`: the lines of the current message, taken from the tracker
    /// (reused).
    chat: Vec<crate::demo::players::ChatLine>,
    /// `finishes`: the finishes of the current message (reused).
    finishes: Vec<crate::demo::finishes::Finish>,
    /// `player_changes`: the previous snapshot's players, by client id
    /// (`None` before the first snapshot in range).
    players: Option<Vec<PlayerState>>,
    /// `player_changes`: room for the next snapshot's list.
    players_spare: Vec<PlayerState>,
    /// Item tables and `positions`: the current snapshot's items by (id,
    /// type) (`positions`: by (id, 0)), in output order.
    cache: BTreeMap<(u16, u16), ItemRow>,
    /// Their ints.
    slab: Slab,
    /// `cache` in output order as (slot, id, kind), rebuilt after items
    /// come or go.
    order: Vec<(u32, i32, i32)>,
    order_stale: bool,
    /// Whether `cache` and `ex_in_snap` are those of the snapshot before
    /// (else the next snapshot is read whole).
    cache_valid: bool,
    /// What the current snapshot changed in the player items (fed to the
    /// tracker right away).
    player_changes: PlayerChanges,
    /// `positions`: the name each client id had in the previous row, with
    /// its key in the batch numbered `.2`.
    names: Vec<Option<(String, i32, u64)>>,
    /// `positions`: each row's name key, team and session (reused).
    name_team: Vec<(Option<i32>, Option<i32>, Option<i32>)>,
    /// Batches taken so far (the name keys' batch number).
    batch_no: u64,
    cols: Cols,
    /// The name columns of block codes.
    code_names: Vec<CodeName>,
    columns: Columns,
    /// Rows made so far.
    pub rows_made: u64,
    /// Snapshot items read into rows by the item tables (work counter:
    /// item fills, not rows repeated).
    pub items_seen: u64,
}

/// The time columns of a row at `tick` of a demo whose first tick is
/// `first_tick`: `demo_tick` (`tick - first_tick`, wrapping: never more
/// than the two ticks' distance for the ticks a stream accepts) and
/// `time_s` (`demo_tick / 50`, [`crate::demo::TICKS_PER_SECOND`]).
#[inline]
pub fn time_of(tick: i32, first_tick: i32) -> (i32, f64) {
    let demo_tick = tick.wrapping_sub(first_tick);
    (
        demo_tick,
        f64::from(demo_tick) / f64::from(crate::demo::TICKS_PER_SECOND),
    )
}

/// The SHA-256 of `bytes` in lowercase hex: the `demo_sha256` column (and
/// the `sha256` of `demos index`).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes))
}

/// The tick `demo_tick` and `time_s` count from in `demo`: that of its
/// first tick marker ([`crate::demo::Demo::first_tick`], read from the
/// chunk framing, so every segment of a split demo finds the same), or
/// `-1` (the tick of data before any tick marker) when it has none.
pub fn first_tick(demo: &crate::demo::Demo<'_>) -> i32 {
    demo.first_tick().unwrap_or(-1)
}

/// A column of names of the codes of a column of the item block
/// (`weapon_name` of `weapon`, see [`super::tables::CODE_NAMES`]).
#[derive(Clone, Copy)]
struct CodeName {
    /// The name column.
    col: usize,
    /// The code's position in the block.
    block: usize,
    names: fn(i32) -> Option<&'static str>,
}

/// The positions of the columns the builder fills by position, found by
/// name in the table's schema (other columns may come between them).
#[derive(Clone, Copy, Debug)]
struct Cols {
    demo_sha256: usize,
    tick: usize,
    demo_tick: usize,
    time_s: usize,
    /// `positions`' `client_id`, the item tables' `id`.
    id: usize,
    /// The item tables' `kind`.
    kind: usize,
    /// `positions`' `session`.
    session: usize,
    /// `positions`' `name`, `team` and `team_name`.
    name: usize,
    team: usize,
    team_name: usize,
}

impl Cols {
    fn of(table: Table) -> Cols {
        let at = |name: &str| table.column_index(name).unwrap_or(usize::MAX);
        Cols {
            demo_sha256: at("demo_sha256"),
            tick: at("tick"),
            demo_tick: at("demo_tick"),
            time_s: at("time_s"),
            id: if table == Table::Positions {
                at("client_id")
            } else {
                at("id")
            },
            kind: at("kind"),
            session: at("session"),
            name: at("name"),
            team: at("team"),
            team_name: at("team_name"),
        }
    }
}

impl TableBuilder {
    /// A builder of `table`'s rows of a demo of `protocol` whose path (the
    /// `demo` column) is `demo` and whose first tick is `first_tick` (see
    /// [`first_tick`]); ticks `from..=to` (absolute) give rows. Its
    /// `demo_sha256` is empty until [`TableBuilder::set_demo_sha256`]
    /// ([`TableBuilder::for_demo`] sets it).
    pub fn new(
        table: Table,
        protocol: Protocol,
        demo: &str,
        first_tick: i32,
        from: i32,
        to: i32,
    ) -> TableBuilder {
        let schema = table.schema();
        let filled_col = table.column_index("filled");
        let cols = Cols::of(table);
        // The block: the item columns (those the layouts fill), in table
        // order.
        let item_field = |name: &str| {
            let mut layouts = table.layouts().iter();
            layouts.any(|l| l.columns().any(|c| c == name))
                || (table == Table::Positions
                    && DDNET_CHARACTER_LAYOUT.columns().any(|c| c == name))
        };
        let block_cols: Vec<usize> = schema
            .fields()
            .iter()
            .enumerate()
            .filter(|(c, f)| *c != cols.id && item_field(f.name()))
            .map(|(c, _)| c)
            .collect();
        let resolve = |l: &ItemLayout, kinds: &mut Vec<&'static str>| {
            let kind = match kinds.iter().position(|&k| k == l.kind) {
                Some(k) => k,
                None => {
                    kinds.push(l.kind);
                    kinds.len() - 1
                }
            };
            Resolved {
                kind: kind as i32,
                slots: l
                    .columns()
                    .map(|f| {
                        let c = table.column_index(f).expect("layout field in schema");
                        block_cols
                            .iter()
                            .position(|&b| b == c)
                            .expect("layout field in the block")
                    })
                    .collect(),
            }
        };
        let mut kinds = Vec::new();
        let mut layouts = Vec::new();
        let mut by_ordinal = Vec::new();
        let mut by_ex = Vec::new();
        for l in table.layouts() {
            match l.ty {
                TypeRef::Ordinal(p, t) if p == protocol => {
                    let t = usize::from(t);
                    if by_ordinal.len() <= t {
                        by_ordinal.resize(t + 1, None);
                    }
                    by_ordinal[t] = Some(layouts.len());
                }
                TypeRef::Ordinal(..) => continue,
                TypeRef::Ex(name) => by_ex.push((name, layouts.len())),
            }
            layouts.push(resolve(l, &mut kinds));
        }
        let ddnet_character =
            (table == Table::Positions).then(|| resolve(&DDNET_CHARACTER_LAYOUT, &mut Vec::new()));
        let code_names: Vec<CodeName> = block_cols
            .iter()
            .enumerate()
            .filter_map(|(k, &c)| {
                let (name, names) = table.code_name_of(schema.field(c).name())?;
                Some(CodeName {
                    col: table.column_index(name)?,
                    block: k,
                    names,
                })
            })
            .collect();
        let width = block_cols.len();
        assert!(width <= MAX_BLOCK, "{}: {width} item columns", table.name());
        let mut b = TableBuilder {
            table,
            protocol,
            first_tick,
            from,
            to,
            layouts,
            kinds,
            by_ordinal,
            by_ex,
            ex_in_snap: Vec::new(),
            ddnet_character,
            block_cols,
            filled_col,
            every_tick: false,
            tracker: table.needs_tracker().then(|| {
                let config = TrackerConfig {
                    keep_chat: table == Table::Chat,
                    ..TrackerConfig::default()
                };
                PlayerTracker::new(protocol, config)
            }),
            chat: Vec::new(),
            finishes: Vec::new(),
            players: None,
            players_spare: Vec::new(),
            cache: BTreeMap::new(),
            slab: Slab::default(),
            order: Vec::new(),
            order_stale: true,
            cache_valid: false,
            player_changes: PlayerChanges::new(),
            names: Vec::new(),
            name_team: Vec::new(),
            batch_no: 0,
            cols,
            code_names,
            columns: Columns::new(schema, 0, demo),
            rows_made: 0,
            items_seen: 0,
        };
        b.slab.width = width;
        b.columns.set_const(cols.demo_sha256, "");
        b.seed_kinds();
        b
    }

    /// Sets the `demo_sha256` column: the SHA-256 of the demo file, in
    /// lowercase hex ([`sha256_hex`]).
    pub fn set_demo_sha256(&mut self, hex: &str) {
        self.columns.set_const(self.cols.demo_sha256, hex);
    }

    /// [`TableBuilder::new`] for `demo`: its protocol, first tick and
    /// SHA-256 (of all of `demo`'s bytes, hashed here: a caller that makes
    /// several builders of one demo hashes it once and uses
    /// [`TableBuilder::for_demo_keyed`]).
    pub fn for_demo(
        table: Table,
        demo: &crate::demo::Demo<'_>,
        path: &str,
        from: i32,
        to: i32,
    ) -> TableBuilder {
        let sha = sha256_hex(demo.bytes());
        TableBuilder::for_demo_keyed(table, demo, path, &sha, from, to)
    }

    /// [`TableBuilder::for_demo`] with the demo's SHA-256 (hex) given.
    pub fn for_demo_keyed(
        table: Table,
        demo: &crate::demo::Demo<'_>,
        path: &str,
        sha256_hex: &str,
        from: i32,
        to: i32,
    ) -> TableBuilder {
        let mut b = TableBuilder::new(
            table,
            demo.decode_protocol(),
            path,
            first_tick(demo),
            from,
            to,
        );
        b.set_demo_sha256(sha256_hex);
        b
    }

    /// With `true`, the item tables and `positions` also give rows at the
    /// tick markers without a snapshot chunk, carried from the snapshot in
    /// effect, `filled` true (see the type docs and [`TableBuilder::tick`]);
    /// the default, `false`, gives rows only where a snapshot chunk
    /// arrived.
    pub fn set_every_tick(&mut self, every_tick: bool) {
        self.every_tick = every_tick;
    }

    /// A completed tick marker ([`crate::demo::stream::TickEvent`]): with
    /// [`TableBuilder::set_every_tick`], a tick in range whose marker had
    /// no snapshot chunk gives one row per item of `snap`, the snapshot in
    /// effect (the cached rows, or `snap` read whole when the cache is not
    /// that snapshot's), with `filled` true. Otherwise nothing.
    pub fn tick(&mut self, tick: i32, had_snapshot_chunk: bool, snap: Option<&Snapshot>) {
        if !self.every_tick || had_snapshot_chunk || !self.in_range(tick) {
            return;
        }
        let Some(snap) = snap else {
            return;
        };
        let positions = self.table == Table::Positions;
        if !positions && self.table.layouts().is_empty() {
            return;
        }
        if !self.cache_valid {
            let mut whole = Changes::default();
            whole.set_unknown();
            self.follow_items(snap, &whole);
        }
        if positions {
            self.emit_positions(tick, true);
        } else {
            self.emit_items(tick, true);
        }
    }

    /// Puts the layouts' kinds in the fresh batch's `kind` dictionary, so
    /// that a kind's key is its position in `kinds`.
    fn seed_kinds(&mut self) {
        if self.table == Table::Positions || self.layouts.is_empty() {
            return;
        }
        let dict = self.columns.dict(self.cols.kind);
        for (i, k) in self.kinds.iter().enumerate() {
            let key = dict.key(k);
            debug_assert_eq!(key as usize, i);
        }
    }

    /// Chat lines held (kept by the player tracker or waiting to become
    /// rows), with the room reserved for them: what the chat of a demo
    /// costs the export, which does not grow with the demo's chat.
    pub fn chat_lines_held(&self) -> usize {
        let kept = self.tracker.as_ref().map_or(0, |t| t.chat().len());
        kept + self.chat.capacity()
    }

    /// The table this builder makes.
    pub fn table(&self) -> Table {
        self.table
    }

    /// The number of rows made since the last [`TableBuilder::take_batch`].
    pub fn len(&self) -> usize {
        self.columns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// The end of the demo's events (or of the segment's, or the first
    /// event after `to`): makes the rows that wait for it, `players`' one
    /// row per session. Call it once, before taking the last batch.
    pub fn finish(&mut self) {
        if self.table == Table::Players {
            self.sessions();
        }
    }

    /// Takes the rows made so far as a record batch of the table's schema.
    pub fn take_batch(&mut self) -> RecordBatch {
        let batch = self.columns.take_batch();
        self.batch_no += 1;
        self.seed_kinds();
        batch
    }

    fn in_range(&self, tick: i32) -> bool {
        (self.from..=self.to).contains(&tick)
    }

    /// A snapshot of tick `tick`, read whole (as after a full snapshot).
    pub fn snapshot(&mut self, tick: i32, snap: &Snapshot) {
        let mut whole = Changes::default();
        whole.set_unknown();
        self.snapshot_changed(tick, snap, &whole);
    }

    /// A snapshot of tick `tick` that `changes` made from the previous
    /// snapshot fed (see the type docs).
    pub fn snapshot_changed(&mut self, tick: i32, snap: &Snapshot, changes: &Changes) {
        if let Some(t) = &mut self.tracker {
            self.player_changes.note(t.protocol(), snap, changes);
            // Tables are rows: the players' warnings are not part of them.
            t.feed_snapshot_changed(tick, snap, &self.player_changes, &mut Discard);
            self.player_changes.clear();
        }
        if !self.in_range(tick) {
            self.cache_valid = false;
            return;
        }
        match self.table {
            Table::PlayerChanges => self.player_changes(tick),
            Table::Positions => {
                self.follow_items(snap, changes);
                self.emit_positions(tick, false);
            }
            t if !t.layouts().is_empty() => {
                self.follow_items(snap, changes);
                self.emit_items(tick, false);
            }
            _ => {}
        }
    }
}

mod items;
mod messages;
#[cfg(test)]
mod tests;
