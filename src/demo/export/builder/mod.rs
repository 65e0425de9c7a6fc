//! The builder that turns one demo's decoded stream into a table's rows,
//! appended straight into the table's column buffers ([`Columns`]).

use super::columns::Columns;
use super::tables::{ItemLayout, Table, TypeRef, DDNET_CHARACTER_LAYOUT};
use crate::codec::snapshot::uuid::{lookup_uuid, uuid_from_ints, OFFSET_UUID_TYPE};
use crate::codec::snapshot::{item_id, item_key, item_type, Changes, Protocol, Snapshot};
use crate::demo::message::ChatMode;
use crate::demo::players::{PlayerChanges, PlayerTracker, PlayerView, TrackerConfig};
use crate::warn::Discard;
use arrow_array::RecordBatch;
use std::collections::BTreeMap;

/// A layout with the positions of its fields in the table's block of
/// item ints (see [`TableBuilder`]).
struct Resolved {
    /// The key of the layout's kind in every batch's `kind` dictionary.
    kind: i32,
    /// Block position of each field.
    slots: Vec<usize>,
}

impl Resolved {
    /// Writes `data` into an item's ints; ints the item lacks are left as
    /// they are.
    fn fill(&self, ints: &mut [i32], valid: &mut u64, data: &[i32]) {
        for (&k, &v) in self.slots.iter().zip(data) {
            ints[k] = v;
            *valid |= 1 << k;
        }
    }

    /// Marks the layout's ints null.
    fn clear(&self, valid: &mut u64) {
        for &k in &self.slots {
            *valid &= !(1 << k);
        }
    }
}

/// One player's state as the `player_changes` table compares it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PlayerState {
    client_id: u16,
    session: Option<i32>,
    name: Option<String>,
    clan: Option<String>,
    country: Option<i32>,
    skin: Option<String>,
    team: Option<i32>,
    score: Option<i32>,
    local: bool,
}

impl PlayerState {
    fn same_as(&self, v: &PlayerView) -> bool {
        self.name == v.name
            && self.clan == v.clan
            && self.country == v.country
            && self.skin == v.skin
            && self.team == v.team
            && self.score == v.score
            && self.local == v.local
    }

    fn set(&mut self, v: &PlayerView) {
        self.client_id = v.client_id;
        self.name.clone_from(&v.name);
        self.clan.clone_from(&v.clan);
        self.country = v.country;
        self.skin.clone_from(&v.skin);
        self.team = v.team;
        self.score = v.score;
        self.local = v.local;
    }

    fn from_view(v: &PlayerView, session: Option<i32>) -> PlayerState {
        let mut s = PlayerState {
            client_id: 0,
            session,
            name: None,
            clan: None,
            country: None,
            skin: None,
            team: None,
            score: None,
            local: false,
        };
        s.set(v);
        s
    }
}

fn chat_mode(m: ChatMode) -> &'static str {
    match m {
        ChatMode::All => "all",
        ChatMode::Team => "team",
        ChatMode::Whisper => "whisper",
        ChatMode::WhisperSent => "whisper_sent",
        ChatMode::WhisperReceived => "whisper_received",
        ChatMode::Other(_) => "other",
    }
}

/// Where an item goes in an item table (or `positions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// A row of its own, with this layout.
    Row(usize),
    /// `positions`: the DDNet character fields of the row of the character
    /// with the same id.
    Ddnet,
}

/// An item's row as the current snapshot has it: where its ints are in
/// the [`Slab`].
#[derive(Clone, Copy, Debug)]
struct ItemRow {
    /// Key of the kind (item tables).
    kind: i32,
    /// The character's layout (`positions`).
    layout: usize,
    slot: u32,
}

/// The ints of the current snapshot's rows, one row of the table's block
/// of item columns per slot, in one flat buffer, and which of them are
/// set (bit `k` of a slot's mask: block column `k`; slots of removed items
/// are reused).
#[derive(Debug, Default)]
struct Slab {
    width: usize,
    ints: Vec<i32>,
    valid: Vec<u64>,
    free: Vec<u32>,
}

/// Most item columns of a table (the bits of a row's validity mask).
pub(crate) const MAX_BLOCK: usize = 64;

impl Slab {
    /// A slot of nulls.
    fn alloc(&mut self) -> u32 {
        let w = self.width;
        if let Some(s) = self.free.pop() {
            self.valid[s as usize] = 0;
            return s;
        }
        let s = self.valid.len() as u32;
        self.ints.resize(self.ints.len() + w, 0);
        self.valid.push(0);
        s
    }

    fn release(&mut self, slot: u32) {
        self.free.push(slot);
    }

    fn clear(&mut self) {
        self.ints.clear();
        self.valid.clear();
        self.free.clear();
    }

    fn row(&mut self, slot: u32) -> (&mut [i32], &mut u64) {
        let at = slot as usize * self.width;
        (
            &mut self.ints[at..at + self.width],
            &mut self.valid[slot as usize],
        )
    }
}

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
            layouts.any(|l| l.fields.contains(&name))
                || (table == Table::Positions && DDNET_CHARACTER_LAYOUT.fields.contains(&name))
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
                    .fields
                    .iter()
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

    /// Brings the cached rows from the previous snapshot to `snap`.
    fn follow_items(&mut self, snap: &Snapshot, changes: &Changes) {
        let is_declaration = |k: u32| item_type(k) == 0 && item_id(k) >= OFFSET_UUID_TYPE;
        let whole = !self.cache_valid
            || (!(self.by_ex.is_empty() && self.ddnet_character.is_none())
                && changes.touches(snap, is_declaration))
            || !changes.is_known();
        if whole {
            self.declared_types(snap);
            self.cache.clear();
            self.slab.clear();
            self.order_stale = true;
            for i in 0..snap.len() {
                self.add_item(snap, i, true);
            }
            self.cache_valid = true;
            return;
        }
        for &(key, _) in changes.removed() {
            self.remove_item(key);
        }
        for &i in changes.updated() {
            self.update_item(snap, i as usize);
        }
        for i in changes.added_from()..snap.len() {
            self.add_item(snap, i, false);
        }
    }

    /// Where an item of type `ty` goes in this table, if anywhere.
    fn slot(&self, ty: u16) -> Option<Slot> {
        if ty >= OFFSET_UUID_TYPE {
            let &(_, l) = self.ex_in_snap.iter().find(|&&(t, _)| t == ty)?;
            return Some(match l {
                usize::MAX => Slot::Ddnet,
                l => Slot::Row(l),
            });
        }
        self.by_ordinal
            .get(usize::from(ty))
            .copied()
            .flatten()
            .map(Slot::Row)
    }

    /// The DDNet character type declared in the current snapshot.
    fn ddnet_type(&self) -> Option<u16> {
        self.ex_in_snap
            .iter()
            .find(|&&(_, l)| l == usize::MAX)
            .map(|&(t, _)| t)
    }

    /// The cache key of an item: `positions` has one row per character id.
    fn cache_key(&self, id: u16, ty: u16) -> (u16, u16) {
        if self.table == Table::Positions {
            (id, 0)
        } else {
            (id, ty)
        }
    }

    /// Adds the row of item `i` of `snap` (`whole`: the snapshot is read
    /// from scratch, so a character finds its DDNet fields itself and the
    /// DDNet items need no pass of their own).
    fn add_item(&mut self, snap: &Snapshot, i: usize, whole: bool) {
        let Some((key, data)) = snap.item(i) else {
            return;
        };
        let (ty, id) = (item_type(key), item_id(key));
        match self.slot(ty) {
            Some(Slot::Row(layout)) => {
                self.items_seen += 1;
                let ddnet = self.ddnet_type().and_then(|t| snap.get(item_key(t, id)));
                let slot = self.slab.alloc();
                let l = &self.layouts[layout];
                let row = ItemRow {
                    kind: l.kind,
                    layout,
                    slot,
                };
                let (ints, valid) = self.slab.row(slot);
                l.fill(ints, valid, data);
                if let (Some(dd), Some(d)) = (&self.ddnet_character, ddnet) {
                    dd.fill(ints, valid, d);
                }
                let k = self.cache_key(id, ty);
                if let Some(old) = self.cache.insert(k, row) {
                    self.slab.release(old.slot);
                }
                self.order_stale = true;
            }
            Some(Slot::Ddnet) if !whole => self.set_ddnet(id, Some(data)),
            _ => {}
        }
    }

    /// Refills the row of the kept item `i` of `snap`, which the delta
    /// updated.
    fn update_item(&mut self, snap: &Snapshot, i: usize) {
        let Some((key, data)) = snap.item(i) else {
            return;
        };
        let (ty, id) = (item_type(key), item_id(key));
        match self.slot(ty) {
            Some(Slot::Row(layout)) => {
                let k = self.cache_key(id, ty);
                let positions = self.table == Table::Positions;
                if let Some(row) = self.cache.get_mut(&k) {
                    self.items_seen += 1;
                    let (ints, valid) = self.slab.row(row.slot);
                    if positions {
                        // A character's ints are read whole: one of
                        // another size leaves no stale field.
                        self.layouts[row.layout].clear(valid);
                        row.layout = layout;
                    }
                    self.layouts[layout].fill(ints, valid, data);
                }
            }
            Some(Slot::Ddnet) => self.set_ddnet(id, Some(data)),
            None => {}
        }
    }

    /// Drops the row of the removed item `key`.
    fn remove_item(&mut self, key: u32) {
        let (ty, id) = (item_type(key), item_id(key));
        match self.slot(ty) {
            Some(Slot::Row(_)) => {
                let k = self.cache_key(id, ty);
                if let Some(old) = self.cache.remove(&k) {
                    self.slab.release(old.slot);
                    self.order_stale = true;
                }
            }
            Some(Slot::Ddnet) => self.set_ddnet(id, None),
            None => {}
        }
    }

    /// Sets (or with `None` clears) the DDNet fields of character `id`'s
    /// row, if it has one.
    fn set_ddnet(&mut self, id: u16, data: Option<&[i32]>) {
        let Some(dd) = &self.ddnet_character else {
            return;
        };
        let Some(row) = self.cache.get(&(id, 0)) else {
            return;
        };
        self.items_seen += 1;
        let (ints, valid) = self.slab.row(row.slot);
        dd.clear(valid);
        if let Some(d) = data {
            dd.fill(ints, valid, d);
        }
    }

    /// Finds the extended types of this table declared in `snap`.
    fn declared_types(&mut self, snap: &Snapshot) {
        self.ex_in_snap.clear();
        if self.by_ex.is_empty() && self.ddnet_character.is_none() {
            return;
        }
        for (key, data) in snap.iter() {
            if item_type(key) != 0 || item_id(key) < OFFSET_UUID_TYPE {
                continue;
            }
            let Some(known) = uuid_from_ints(data).and_then(|u| lookup_uuid(&u)) else {
                continue;
            };
            let layout = if self.ddnet_character.is_some()
                && known.name == DDNET_CHARACTER_LAYOUT.kind_name()
            {
                usize::MAX
            } else if let Some(&(_, l)) = self.by_ex.iter().find(|(n, _)| *n == known.name) {
                l
            } else {
                continue;
            };
            self.ex_in_snap.push((item_id(key), layout));
        }
    }

    /// Brings `order` up to date with `cache`.
    fn refresh_order(&mut self) {
        if self.order_stale {
            self.order.clear();
            self.order.extend(
                self.cache
                    .iter()
                    .map(|(&(id, _), r)| (r.slot, i32::from(id), r.kind)),
            );
            self.order_stale = false;
        }
    }

    /// Appends the rows of the cached items at `tick`, column by column:
    /// the time columns, id (column `id_col`), the block of item ints and
    /// `filled`.
    fn emit_rows(&mut self, tick: i32, id_col: usize, filled: bool) {
        self.refresh_order();
        let n = self.order.len();
        if let Some(c) = self.filled_col {
            self.columns.bool(c).extend_value(filled, n);
        }
        let order = &self.order;
        let (demo_tick, time_s) = time_of(tick, self.first_tick);
        let c = self.cols;
        self.columns
            .i32(c.tick)
            .values
            .extend(std::iter::repeat_n(tick, n));
        self.columns
            .i32(c.demo_tick)
            .values
            .extend(std::iter::repeat_n(demo_tick, n));
        self.columns
            .f64(c.time_s)
            .values
            .extend(std::iter::repeat_n(time_s, n));
        self.columns
            .i32(id_col)
            .values
            .extend(order.iter().map(|&(_, id, _)| id));
        let w = self.slab.width;
        let (ints, valid) = (&self.slab.ints, &self.slab.valid);
        // The columns every row has: their validity is all set.
        let (mut all, mut any) = (u64::MAX, 0);
        for &(s, _, _) in order {
            all &= valid[s as usize];
            any |= valid[s as usize];
        }
        for (k, &c) in self.block_cols.iter().enumerate() {
            let col = self.columns.i32(c);
            let bit = 1u64 << k;
            if any & bit == 0 {
                // No row has it: nulls (values are never read).
                col.values.extend(std::iter::repeat_n(0, n));
                col.valid.push_n(false, n);
                continue;
            }
            col.values
                .extend(order.iter().map(|&(s, _, _)| ints[s as usize * w + k]));
            if all & bit != 0 {
                col.valid.push_n(true, n);
            } else {
                col.valid
                    .extend(order.iter().map(|&(s, _, _)| valid[s as usize] & bit != 0));
            }
        }
        for cn in &self.code_names {
            let names = self.columns.dict(cn.col);
            let bit = 1u64 << cn.block;
            for &(s, _, _) in order {
                let set = valid[s as usize] & bit != 0;
                names.push_static(if set {
                    (cn.names)(ints[s as usize * w + cn.block])
                } else {
                    None
                });
            }
        }
        self.rows_made += n as u64;
        self.columns.add_rows(n);
    }

    /// One row per character, with the current name and team of its
    /// client.
    fn emit_positions(&mut self, tick: i32, filled: bool) {
        self.refresh_order();
        let mut name_team = std::mem::take(&mut self.name_team);
        name_team.clear();
        for i in 0..self.order.len() {
            let id = self.order[i].1 as u16;
            let (name, team) = self.name_key_and_team(id);
            let session = self.tracker.as_ref().and_then(|t| t.session_of(id));
            name_team.push((name, team, session));
        }
        let names = self.columns.dict(self.cols.name);
        for &(name, _, _) in &name_team {
            names.push_key(name);
        }
        let teams = self.columns.i32(self.cols.team);
        for &(_, team, _) in &name_team {
            teams.push(team);
        }
        let team_names = self.columns.dict(self.cols.team_name);
        for &(_, team, _) in &name_team {
            team_names.push_static(team.and_then(super::tables::team_name));
        }
        let sessions = self.columns.i32(self.cols.session);
        for &(_, _, session) in &name_team {
            sessions.push(session);
        }
        self.name_team = name_team;
        self.emit_rows(tick, self.cols.id, filled);
    }

    /// One row per item of the table, repeated from the cache.
    fn emit_items(&mut self, tick: i32, filled: bool) {
        self.refresh_order();
        let kinds = self.columns.dict(self.cols.kind);
        for &(_, _, kind) in &self.order {
            kinds.push_key(Some(kind));
        }
        self.emit_rows(tick, self.cols.id, filled);
    }

    /// The key of the current name of client `id` in this batch's `name`
    /// dictionary (looked up once per batch while the name does not
    /// change), and its team.
    fn name_key_and_team(&mut self, id: u16) -> (Option<i32>, Option<i32>) {
        let Some(t) = &self.tracker else {
            return (None, None);
        };
        let views = t.current_view();
        let Ok(at) = views.binary_search_by_key(&id, |v| v.client_id) else {
            return (None, None);
        };
        let v = &views[at];
        let Some(name) = &v.name else {
            return (None, v.team);
        };
        let slot = usize::from(id);
        if self.names.len() <= slot {
            self.names.resize(slot + 1, None);
        }
        let cached = &mut self.names[slot];
        let key = match cached {
            Some((n, key, batch)) if *batch == self.batch_no && n == name => *key,
            _ => {
                let key = self.columns.dict(self.cols.name).key(name);
                *cached = Some((name.clone(), key, self.batch_no));
                key
            }
        };
        (Some(key), v.team)
    }
}

mod messages;
#[cfg(test)]
mod tests;
