//! Player sessions: one connection of a client id, from the moment its
//! player appears (or, in 0.7, a message says it entered) to the moment it
//! goes away.
//!
//! # What starts and ends a session
//!
//! - A session starts when a client id with no open session appears in a
//!   snapshot (any of its player items: client info, player info,
//!   character), or in 0.7 when `Sv_ClientInfo` / `De_ClientEnter` names
//!   it.
//! - It ends at the first snapshot without any player item of the id, or
//!   in 0.7 at `Sv_ClientDrop` / `De_ClientLeave`. After a 0.7 drop the
//!   id's items still in the snapshot (the next snapshot has not come yet)
//!   start no session; a snapshot without them or a new enter message
//!   does.
//! - A rename inside one connection keeps the session: its names are
//!   listed in order ([`Session::names`]). So does a team change.
//!
//! # What cannot be seen
//!
//! A 0.6 player who leaves and whose id is taken again between two
//! snapshots shows no gap: the two connections are one session (with both
//! names). DDNet's server chat lines (`'X' has left the game`, `'X' entered
//! and joined the game`) are not used to split it: they name players, not
//! ids, and they arrive some ticks before the snapshot that shows the
//! change (two ticks on `ddnet__Multeasymap_bench.demo`). A connection
//! takes several round trips, so on a server recording every tick or two
//! such a gap is always seen; a client demo that records no snapshot for
//! a long time may miss one.
//!
//! Sessions are numbered 1, 2, … in the order they start in the stream
//! (within one snapshot, by client id): the numbering depends only on the
//! events before, so every table of a demo gives a player the same
//! session.

use super::views::PlayerViews;

/// One connection of a client id (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// 1, 2, … in the order sessions start.
    pub session: i32,
    pub client_id: u16,
    /// The tick the session started: its first snapshot, or in 0.7 the
    /// enter message.
    pub start_tick: i32,
    /// The first and last tick of a snapshot with the player (both the
    /// start tick when no snapshot showed it).
    pub first_tick: i32,
    pub last_tick: i32,
    /// Every name in order, a name listed again only after another
    /// (`a`, `b`, `a`), at most [`super::TrackerConfig::max_strings`].
    pub names: Vec<String>,
    /// The latest clan, country and skin seen.
    pub clan: Option<String>,
    pub country: Option<i32>,
    pub skin: Option<String>,
    /// Every team in order of change, at most
    /// [`super::TrackerConfig::max_team_changes`].
    pub teams: Vec<i32>,
    /// Team changes seen (`teams.len() - 1` unless the list is full).
    pub team_changes: u32,
    pub score: Option<i32>,
    /// Whether the player was the recording client's own.
    pub local: bool,
    /// Whether the session is still open.
    pub open: bool,
    /// Whether a snapshot showed the player.
    seen: bool,
}

impl Session {
    fn new(session: i32, client_id: u16, tick: i32) -> Session {
        Session {
            session,
            client_id,
            start_tick: tick,
            first_tick: tick,
            last_tick: tick,
            names: Vec::new(),
            clan: None,
            country: None,
            skin: None,
            teams: Vec::new(),
            team_changes: 0,
            score: None,
            local: false,
            open: true,
            seen: false,
        }
    }

    /// The latest name.
    pub fn name(&self) -> Option<&str> {
        self.names.last().map(String::as_str)
    }

    fn push_name(&mut self, name: &str, cap: usize) {
        if self.name() != Some(name) && self.names.len() < cap {
            self.names.push(name.to_owned());
        }
    }

    fn note_team(&mut self, team: Option<i32>, cap: usize) {
        let Some(team) = team else { return };
        match self.teams.last() {
            Some(&t) if t == team => {}
            last => {
                if last.is_some() {
                    self.team_changes = self.team_changes.saturating_add(1);
                }
                if self.teams.len() < cap {
                    self.teams.push(team);
                }
            }
        }
    }
}

/// The sessions of a demo so far, with the open one of each client id.
#[derive(Clone, Debug, Default)]
pub(super) struct Sessions {
    list: Vec<Session>,
    /// By client id: position + 1 in `list` of its open session (0: none).
    open_at: Vec<u32>,
    /// By client id: position + 1 in `list` of its latest session.
    latest_at: Vec<u32>,
    /// The client ids with an open session, sorted.
    open_ids: Vec<u16>,
    /// 0.7: client ids dropped by a message whose items are still in the
    /// latest snapshot.
    dropped: Vec<u16>,
    max_strings: usize,
    max_teams: usize,
}

fn entry(v: &[u32], id: u16) -> Option<usize> {
    match v.get(usize::from(id)) {
        Some(&at) if at != 0 => Some(at as usize - 1),
        _ => None,
    }
}

fn set_entry(v: &mut Vec<u32>, id: u16, at: Option<usize>) {
    let slot = usize::from(id);
    if v.len() <= slot {
        v.resize(slot + 1, 0);
    }
    v[slot] = at.map_or(0, |a| a as u32 + 1);
}

impl Sessions {
    /// No session yet; names and teams kept per session are capped.
    pub(super) fn new(max_strings: usize, max_teams: usize) -> Sessions {
        Sessions {
            max_strings,
            max_teams,
            ..Sessions::default()
        }
    }

    /// Opens a session of `id` at `tick`.
    fn start(&mut self, id: u16, tick: i32) -> usize {
        let at = self.list.len();
        let number = i32::try_from(at + 1).unwrap_or(i32::MAX);
        self.list.push(Session::new(number, id, tick));
        set_entry(&mut self.open_at, id, Some(at));
        set_entry(&mut self.latest_at, id, Some(at));
        if let Err(i) = self.open_ids.binary_search(&id) {
            self.open_ids.insert(i, id);
        }
        at
    }

    /// Closes `id`'s open session; `last` is the tick of the latest
    /// snapshot that showed the player.
    fn close(&mut self, id: u16, last: Option<i32>) {
        let Some(at) = entry(&self.open_at, id) else {
            return;
        };
        let s = &mut self.list[at];
        s.open = false;
        if let (true, Some(l)) = (s.seen, last) {
            s.last_tick = l.max(s.first_tick);
        }
        set_entry(&mut self.open_at, id, None);
        if let Ok(i) = self.open_ids.binary_search(&id) {
            self.open_ids.remove(i);
        }
    }

    /// A full update of the views at `tick` (`previous`: the tick of the
    /// snapshot before): closes the sessions of the players gone, opens
    /// those of the players new, and notes names, teams and the rest.
    /// `messages_named`: a 0.7 message set a name since the snapshot
    /// before (the views' reused strings may then still have changed).
    pub(super) fn note_views(
        &mut self,
        tick: i32,
        previous: Option<i32>,
        view: &PlayerViews,
        messages_named: bool,
    ) {
        let views = view.views();
        let present = |id: u16| views.binary_search_by_key(&id, |v| v.client_id).is_ok();
        let gone: Vec<u16> = self
            .open_ids
            .iter()
            .copied()
            .filter(|&id| !present(id))
            .collect();
        for id in gone {
            self.close(id, previous);
        }
        self.dropped.retain(|&id| present(id));
        let (max_strings, max_teams) = (self.max_strings, self.max_teams);
        for p in views {
            let id = p.client_id;
            if self.dropped.contains(&id) {
                continue;
            }
            let at = match entry(&self.open_at, id) {
                Some(at) => at,
                None => self.start(id, tick),
            };
            let s = &mut self.list[at];
            let fresh = !s.seen;
            if fresh {
                s.seen = true;
                s.first_tick = tick;
            }
            s.last_tick = tick;
            if fresh || messages_named || !view.strings_reused(id) {
                if let Some(n) = &p.name {
                    s.push_name(n, max_strings);
                }
                if p.clan.is_some() {
                    s.clan.clone_from(&p.clan);
                }
                if p.skin.is_some() {
                    s.skin.clone_from(&p.skin);
                }
                if p.country.is_some() {
                    s.country = p.country;
                }
            }
            s.note_team(p.team, max_teams);
            if p.score.is_some() {
                s.score = p.score;
            }
            s.local |= p.local;
        }
    }

    /// A followed update (the same players, strings unchanged): notes
    /// team, score and `local` of the clients whose player info changed.
    pub(super) fn note_changed(&mut self, view: &PlayerViews, changed: &[u16]) {
        let views = view.views();
        for &id in changed {
            let (Some(v), Some(at)) = (view.view_index(id), entry(&self.open_at, id)) else {
                continue;
            };
            let (p, s) = (&views[v], &mut self.list[at]);
            s.note_team(p.team, self.max_teams);
            if p.score.is_some() {
                s.score = p.score;
            }
            s.local |= p.local;
        }
    }

    /// 0.7 `Sv_ClientDrop` / `De_ClientLeave` of `id`: its session ends
    /// (`last_fed`: the latest snapshot, which showed the player);
    /// `in_view`: its items are still in that snapshot.
    pub(super) fn dropped(&mut self, id: u16, last_fed: Option<i32>, in_view: bool) {
        self.close(id, last_fed);
        if in_view && !self.dropped.contains(&id) {
            self.dropped.push(id);
        }
    }

    /// 0.7 `Sv_ClientInfo` / `De_ClientEnter` of `id` named `name` at
    /// `tick`: a session starts unless one is open.
    pub(super) fn entered(&mut self, id: u16, tick: i32, name: &str) {
        self.dropped.retain(|&d| d != id);
        if entry(&self.open_at, id).is_none() {
            let at = self.start(id, tick);
            let cap = self.max_strings;
            self.list[at].push_name(name, cap);
        }
    }

    /// The session of `id` now: its open one, else its latest.
    pub(super) fn session_of(&self, id: u16) -> Option<i32> {
        let at = entry(&self.open_at, id).or_else(|| entry(&self.latest_at, id))?;
        Some(self.list[at].session)
    }

    /// Every session so far, the open ones seen up to `last_fed`.
    pub(super) fn all(&mut self, last_fed: Option<i32>) -> &[Session] {
        if let Some(l) = last_fed {
            for &id in &self.open_ids {
                if let Some(at) = entry(&self.open_at, id) {
                    let s = &mut self.list[at];
                    if s.seen {
                        s.last_tick = l.max(s.first_tick);
                    }
                }
            }
        }
        &self.list
    }
}
