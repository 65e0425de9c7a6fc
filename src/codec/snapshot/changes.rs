//! What one snapshot chunk changed, item by item ([`Changes`]), for readers
//! that follow snapshots incrementally.

use super::Snapshot;

/// What one snapshot chunk changed, for readers that keep state from one
/// snapshot to the next and want to update only what changed
/// ([`DeltaApplier::apply_in_place_tracked`](super::DeltaApplier::apply_in_place_tracked) fills it while applying a delta).
///
/// When [`Changes::is_known`] is `false` (a full snapshot, or a delta
/// applied the copying way) the lists are empty and every item of the new
/// snapshot is to be taken as new. Otherwise the new snapshot is the old one
/// without [`Changes::removed`], with the items at [`Changes::updated`]
/// given new data (possibly equal to the old), and the items from
/// [`Changes::added_from`] on appended (a key both removed and updated is
/// both removed and appended, as DDNet does).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub(super) known: bool,
    pub(super) removed: Vec<(u32, u32)>,
    pub(super) updated: Vec<u32>,
    pub(super) added_from: usize,
}

impl Changes {
    /// Empty and known: "nothing changed" (a tick without snapshot chunk).
    pub fn clear(&mut self) {
        self.known = true;
        self.removed.clear();
        self.updated.clear();
        self.added_from = usize::MAX;
    }

    /// Unknown: every item counts as new.
    pub fn set_unknown(&mut self) {
        self.clear();
        self.known = false;
    }

    /// Whether the lists describe the change.
    #[inline]
    pub fn is_known(&self) -> bool {
        self.known
    }

    /// Keys and data sizes (ints) of the removed items, in old order.
    #[inline]
    pub fn removed(&self) -> &[(u32, u32)] {
        &self.removed
    }

    /// Positions in the new snapshot of the kept items the delta updated,
    /// each once, in delta order.
    #[inline]
    pub fn updated(&self) -> &[u32] {
        &self.updated
    }

    /// Position in the new snapshot of the first appended item (the
    /// snapshot's length, or more, when none was appended).
    #[inline]
    pub fn added_from(&self) -> usize {
        self.added_from
    }

    /// Whether the change removed, updated or appended an item whose key
    /// satisfies `f` in making `snap` (always, when unknown).
    pub fn touches(&self, snap: &Snapshot, mut f: impl FnMut(u32) -> bool) -> bool {
        if !self.known {
            return true;
        }
        let keys = snap.keys();
        self.removed.iter().any(|&(k, _)| f(k))
            || self
                .updated
                .iter()
                .any(|&i| keys.get(i as usize).is_some_and(|&k| f(k)))
            || keys
                .get(self.added_from..)
                .is_some_and(|added| added.iter().any(|&k| f(k)))
    }

    /// Number of items the change touched (removed, updated and appended
    /// in `snap`, the snapshot it produced); `snap.len()` when unknown.
    pub fn touched(&self, snap: &Snapshot) -> usize {
        if !self.known {
            return snap.len();
        }
        self.removed.len() + self.updated.len() + snap.len().saturating_sub(self.added_from)
    }
}
