//! What changed in the player items between two updates of the views
//! ([`PlayerChanges`]), noted from the stream's [`Changes`].

#[cfg(doc)]
use super::views::PlayerViews;
use super::views::{has_type, is_character, player_types};
use crate::codec::snapshot::{Changes, Protocol, Snapshot};

/// Most updated keys a [`PlayerChanges`] keeps before it settles for a
/// full update (several snapshot chunks in one tick each add theirs).
const MAX_NOTED: usize = 2 * crate::codec::snapshot::MAX_ITEMS;

/// What changed in the player items since the views were last updated,
/// noted snapshot chunk by snapshot chunk ([`PlayerChanges::note`]) from
/// the stream's [`Changes`], for [`PlayerViews::update_changed`].
#[derive(Clone, Debug)]
pub struct PlayerChanges {
    /// The views need a full update: a full snapshot or a change not
    /// described item by item, a player item other than a character added
    /// or removed, or too many changes noted.
    pub(super) rebuild: bool,
    /// Updated characters are not noted: the views keep no positions
    /// ([`PlayerChanges::without_positions`]).
    pub(super) no_positions: bool,
    /// Keys of player items updated in place, with their position in the
    /// snapshot noted (a later chunk of the same tick may move them; may
    /// repeat).
    pub(super) updated: Vec<(u32, u32)>,
    /// Keys of characters removed and added (a player dies, respawns).
    pub(super) removed: Vec<u32>,
    pub(super) added: Vec<u32>,
}

impl Default for PlayerChanges {
    fn default() -> Self {
        PlayerChanges::new()
    }
}

impl PlayerChanges {
    /// Before the first snapshot: a full update is due.
    pub fn new() -> PlayerChanges {
        PlayerChanges {
            rebuild: true,
            no_positions: false,
            updated: Vec::new(),
            removed: Vec::new(),
            added: Vec::new(),
        }
    }

    /// Changes for views that keep no positions
    /// ([`PlayerViews::without_positions`]): a character updated in place
    /// (it only moved) is not noted, so a tick's changes hold the player
    /// infos only. Views with positions fed these make full updates.
    pub fn without_positions() -> PlayerChanges {
        PlayerChanges {
            no_positions: true,
            ..PlayerChanges::new()
        }
    }

    /// Notes what `changes` changed in the player items of `protocol` in
    /// making `snap`: work in proportion to the changed items.
    pub fn note(&mut self, protocol: Protocol, snap: &Snapshot, changes: &Changes) {
        self.note_touching(protocol, snap, changes, |_| false);
    }

    /// [`PlayerChanges::note`], also telling whether the change removed,
    /// updated or appended an item whose key satisfies `also` (what
    /// [`Changes::touches`] says), from the same look at each changed
    /// item's key.
    pub fn note_touching(
        &mut self,
        protocol: Protocol,
        snap: &Snapshot,
        changes: &Changes,
        also: impl Fn(u32) -> bool,
    ) -> bool {
        if !changes.is_known() {
            self.set_rebuild();
            return true;
        }
        let keys = snap.keys();
        let added = keys.get(changes.added_from()..).unwrap_or_default();
        let noted = self.updated.len() + self.removed.len() + self.added.len();
        let infos = player_types(protocol, false);
        let other = |k: u32| has_type(infos, k);
        let mut touched = false;
        let mut structural = false;
        for &(k, _) in changes.removed() {
            touched |= also(k);
            structural |= other(k);
            if is_character(protocol, k) {
                self.removed.push(k);
            }
        }
        for &k in added {
            touched |= also(k);
            structural |= other(k);
            if is_character(protocol, k) {
                self.added.push(k);
            }
        }
        if self.rebuild || structural || noted + changes.touched(snap) > MAX_NOTED {
            self.set_rebuild();
            return touched
                || changes
                    .updated()
                    .iter()
                    .any(|&i| keys.get(i as usize).is_some_and(|&k| also(k)));
        }
        // The item types noted when updated.
        let noted_types = player_types(protocol, !self.no_positions);
        for &i in changes.updated() {
            let Some(&k) = keys.get(i as usize) else {
                continue;
            };
            touched |= also(k);
            if has_type(noted_types, k) {
                self.updated.push((k, i));
            }
        }
        touched
    }

    /// Nothing changed (after the views were updated).
    pub fn clear(&mut self) {
        self.rebuild = false;
        self.updated.clear();
        self.removed.clear();
        self.added.clear();
    }

    /// A full update is due.
    pub(crate) fn set_rebuild(&mut self) {
        self.clear();
        self.rebuild = true;
    }
}

#[cfg(all(test, feature = "synth"))]
mod tests {
    use super::PlayerChanges;
    use crate::backend::Backend;
    use crate::demo::stream::{Decoder, Event};
    use crate::demo::Demo;
    use crate::synth::demo::{generate, SynthParams};

    /// `note_touching`'s answer is `Changes::touches`' for every snapshot of
    /// generated demos, for several key predicates, from a state that
    /// follows the changes and from one due a full update, with and
    /// without positions.
    #[test]
    fn note_touching_answers_as_changes_touches() {
        let preds: [&dyn Fn(u32) -> bool; 4] = [
            &crate::demo::stream::stats::is_declaration,
            &|k| k >> 16 == 9,
            &|k| k & 3 == 1,
            &|_| false,
        ];
        let (mut snapshots, mut yes) = (0, 0);
        for i in 0..3 {
            let mut params = SynthParams::collection(5, i);
            params.duration_ticks = params
                .duration_ticks
                .min(crate::demo::TICKS_PER_SECOND * 20);
            let bytes = generate(&params);
            let demo = Demo::parse(&bytes).unwrap();
            let mut dec = Decoder::new(Backend::Simd);
            let mut s = dec.stream(&demo, crate::warn::Discard);
            let protocol = s.protocol();
            while let Some(ev) = s.next_event() {
                let Ok(Event::Snapshot(e)) = ev else { continue };
                snapshots += 1;
                for pred in preds {
                    let want = e.changes.touches(e.snapshot, pred);
                    yes += usize::from(want);
                    for rebuild in [false, true] {
                        for no_positions in [false, true] {
                            let mut pc = PlayerChanges {
                                rebuild,
                                no_positions,
                                ..PlayerChanges::new()
                            };
                            let got = pc.note_touching(protocol, e.snapshot, e.changes, pred);
                            assert_eq!(got, want, "tick {} rebuild {rebuild}", e.tick);
                        }
                    }
                }
            }
        }
        assert!(
            snapshots > 500 && yes > 100,
            "{snapshots} snapshots, {yes} touched"
        );
    }
}
