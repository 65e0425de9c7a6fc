//! The rows of the item tables and `positions`: each item of the current
//! snapshot kept as its row's ints ([`Slab`]), followed delta by delta
//! ([`Changes`]), and appended column by column.

use super::{time_of, Table, TableBuilder};
use crate::codec::snapshot::uuid::{lookup_uuid, uuid_from_ints, OFFSET_UUID_TYPE};
use crate::codec::snapshot::{item_id, item_key, item_type, Changes, Snapshot};
use crate::demo::export::tables::{team_name, DDNET_CHARACTER_LAYOUT};

/// A layout with the positions of its fields in the table's block of
/// item ints (see [`TableBuilder`]).
pub(super) struct Resolved {
    /// The key of the layout's kind in every batch's `kind` dictionary.
    pub(super) kind: i32,
    /// Block position of each field.
    pub(super) slots: Vec<usize>,
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
pub(super) struct ItemRow {
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
pub(super) struct Slab {
    pub(super) width: usize,
    ints: Vec<i32>,
    valid: Vec<u64>,
    free: Vec<u32>,
}

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

impl TableBuilder {
    /// Brings the cached rows from the previous snapshot to `snap`.
    pub(super) fn follow_items(&mut self, snap: &Snapshot, changes: &Changes) {
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
    pub(super) fn emit_positions(&mut self, tick: i32, filled: bool) {
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
            team_names.push_static(team.and_then(team_name));
        }
        let sessions = self.columns.i32(self.cols.session);
        for &(_, _, session) in &name_team {
            sessions.push(session);
        }
        self.name_team = name_team;
        self.emit_rows(tick, self.cols.id, filled);
    }

    /// One row per item of the table, repeated from the cache.
    pub(super) fn emit_items(&mut self, tick: i32, filled: bool) {
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
