//! The key index of a [`Snapshot`](super::Snapshot): an open-addressing map
//! from item key to item position.

const EMPTY_SLOT: u64 = u64::MAX;
/// Index half of a slot whose key was removed (a tombstone: probe chains
/// run on through it). Item positions are below
/// [`MAX_ITEMS`](super::MAX_ITEMS), and `key << 32 | DEAD` never equals
/// [`EMPTY_SLOT`].
const DEAD: u32 = u32::MAX - 1;

/// Open-addressing (linear probing) map from item key to item position. A
/// slot packs `key << 32 | position`. At most half the slots are used
/// (live or tombstones); a key has at most one slot.
#[derive(Debug, Default)]
pub(super) struct KeyIndex {
    pub(super) slots: Vec<u64>,
    shift: u32,
    /// Used slots, tombstones included.
    used: usize,
}

impl Clone for KeyIndex {
    fn clone(&self) -> Self {
        KeyIndex {
            slots: self.slots.clone(),
            shift: self.shift,
            used: self.used,
        }
    }
    /// Reuses `self`'s slots (the derived one would reallocate).
    fn clone_from(&mut self, source: &Self) {
        self.slots.clone_from(&source.slots);
        self.shift = source.shift;
        self.used = source.used;
    }
}

impl KeyIndex {
    /// Empties the index, sized for `items` items without growing.
    pub(super) fn reset(&mut self, items: usize) {
        let want = (items.max(8) * 2).next_power_of_two();
        self.slots.clear();
        self.slots.resize(want, EMPTY_SLOT);
        self.shift = 32 - want.trailing_zeros();
        self.used = 0;
    }

    #[inline]
    fn home(&self, key: u32) -> usize {
        (key.wrapping_mul(0x9e37_79b9) >> self.shift) as usize
    }

    /// The slot holding `key` (live or dead).
    #[inline]
    fn slot_of(&self, key: u32) -> Option<usize> {
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = self.home(key);
        for _ in 0..self.slots.len() {
            let s = self.slots[i & mask];
            if s == EMPTY_SLOT {
                return None;
            }
            if (s >> 32) as u32 == key {
                return Some(i & mask);
            }
            i = (i & mask) + 1;
        }
        None
    }

    #[inline]
    pub(super) fn find(&self, key: u32) -> Option<usize> {
        let s = self.slots[self.slot_of(key)?] as u32;
        (s != DEAD).then_some(s as usize)
    }

    /// Marks `key` removed, if present.
    #[inline]
    pub(super) fn remove(&mut self, key: u32) {
        if let Some(i) = self.slot_of(key) {
            self.slots[i] = (key as u64) << 32 | DEAD as u64;
        }
    }

    /// Moves the live `key` to `position`.
    #[inline]
    pub(super) fn set(&mut self, key: u32, position: usize) {
        if let Some(i) = self.slot_of(key) {
            self.slots[i] = (key as u64) << 32 | position as u64;
        }
    }

    /// Inserts `key -> position` (reviving its tombstone if it has one), or
    /// returns the position already stored for a live `key`.
    #[inline]
    pub(super) fn insert(&mut self, key: u32, position: usize) -> Result<(), usize> {
        if (self.used + 1) * 2 > self.slots.len() {
            self.rehash();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key) & mask;
        loop {
            let s = self.slots[i];
            if s == EMPTY_SLOT {
                self.slots[i] = (key as u64) << 32 | position as u64;
                self.used += 1;
                return Ok(());
            }
            if (s >> 32) as u32 == key {
                if s as u32 == DEAD {
                    self.slots[i] = (key as u64) << 32 | position as u64;
                    return Ok(());
                }
                return Err(s as u32 as usize);
            }
            i = (i + 1) & mask;
        }
    }

    /// Rebuilds without tombstones, with at most a quarter of the slots
    /// used, so that at least as many inserts as there are live keys come
    /// before the next rebuild (amortised O(1) per insert). Sized for one
    /// more live key only, a table just under half full after the rebuild
    /// (e.g. 120 live keys in 256 slots) was rebuilt after every few new
    /// keys.
    #[cold]
    fn rehash(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let live = old
            .iter()
            .filter(|&&s| s != EMPTY_SLOT && s as u32 != DEAD)
            .count();
        self.reset(2 * (live + 1));
        for s in old {
            if s != EMPTY_SLOT && s as u32 != DEAD {
                let _ = self.insert((s >> 32) as u32, s as u32 as usize);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_index_tombstones() {
        let mut ix = KeyIndex::default();
        ix.reset(8);
        // Churn far more keys through than the table holds: removed keys
        // leave tombstones, rehashing clears them. With 3 or 4 live keys
        // the table settles at 32 slots (a rebuild leaves at most a
        // quarter used) and stays there.
        let mut rehashes = 0;
        for k in 0..1000u32 {
            let before = (ix.slots.len(), ix.used);
            assert_eq!(ix.insert(k, (k % 7) as usize), Ok(()));
            if ix.used <= before.1 {
                rehashes += 1;
            }
            assert_eq!(ix.insert(k, 99), Err((k % 7) as usize));
            if k >= 3 {
                ix.remove(k - 3);
                assert_eq!(ix.find(k - 3), None);
            }
            if k >= 100 {
                assert_eq!(ix.slots.len(), 32, "key {k}");
            }
        }
        // Each rebuild leaves room for at least 12 new keys (16 − 4 live).
        assert!(rehashes <= 1000 / 12 + 1, "{rehashes} rebuilds");
        for k in 997..1000u32 {
            assert_eq!(ix.find(k), Some((k % 7) as usize));
        }
        // A removed key comes back in its own tombstone.
        ix.remove(998);
        let used = ix.used;
        assert_eq!(ix.insert(998, 5), Ok(()));
        assert_eq!(ix.used, used);
        assert_eq!(ix.find(998), Some(5));
        ix.set(998, 6);
        assert_eq!(ix.find(998), Some(6));
        // Keys that look like the empty slot or a tombstone still work.
        assert_eq!(ix.insert(u32::MAX, 1), Ok(()));
        assert_eq!(ix.find(u32::MAX), Some(1));
        ix.remove(u32::MAX);
        assert_eq!(ix.find(u32::MAX), None);
        assert_eq!(ix.insert(u32::MAX, 2), Ok(()));
        assert_eq!(ix.find(u32::MAX), Some(2));
    }
}
