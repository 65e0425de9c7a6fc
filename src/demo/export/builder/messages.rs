//! The rows of `players`, `player_changes` and of the message tables
//! (`chat`, `kills`, `broadcasts`, `finishes`, `records`).

use super::{time_of, Table, TableBuilder};
use crate::demo::export::tables::{team_name, weapon_name};
use crate::demo::finishes::finishes_of;
use crate::demo::message::{self, Body, ChatMode};
use crate::demo::players::PlayerView;
use crate::warn::Discard;

/// One player's state as the `player_changes` table compares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PlayerState {
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

/// DDNet's hundredths of a second as seconds (`Sv_Record`).
fn hundredths_s(v: i32) -> f64 {
    f64::from(v) / 100.0
}

impl TableBuilder {
    /// `player_changes`: the changes from the previous snapshot's players
    /// to the current ones, a merge of the two lists (both by client id)
    /// that moves each kept player's state over (no copy of an unchanged
    /// player). A client id whose session changed between the two (a 0.7
    /// drop and enter between snapshots) gives a `leave` and a `join` row.
    pub(super) fn player_changes(&mut self, tick: i32) {
        let Some(t) = &self.tracker else { return };
        let views = t.current_view();
        let mut prev_list = std::mem::take(self.players.get_or_insert_with(Vec::new));
        let mut next = std::mem::take(&mut self.players_spare);
        next.clear();
        let columns = &mut self.columns;
        let mut rows = 0u64;
        let (demo_tick, time_s) = time_of(tick, self.first_tick);
        let mut row = |change: &str, s: &PlayerState| {
            rows += 1;
            columns
                .row()
                .i32(Some(tick))
                .i32(Some(demo_tick))
                .f64(Some(time_s))
                .i32(Some(i32::from(s.client_id)))
                .i32(s.session)
                .str(Some(change))
                .str(s.name.as_deref())
                .str(s.clan.as_deref())
                .i32(s.country)
                .str(s.skin.as_deref())
                .i32(s.team)
                .str(s.team.and_then(team_name))
                .i32(s.score)
                .bool(Some(s.local))
                .end();
        };
        let mut prev = prev_list.drain(..).peekable();
        let mut views = views.iter().peekable();
        loop {
            match (prev.peek(), views.peek()) {
                (Some(p), Some(v)) if p.client_id == v.client_id => {
                    let (mut p, v) = (prev.next().expect("peeked"), views.next().expect("peeked"));
                    let session = t.session_of(v.client_id);
                    if p.session != session {
                        row("leave", &p);
                        p = PlayerState::from_view(v, session);
                        row("join", &p);
                    } else if !p.same_as(v) {
                        p.set(v);
                        row("update", &p);
                    }
                    next.push(p);
                }
                (Some(p), v) if v.is_none_or(|v| p.client_id < v.client_id) => {
                    row("leave", &prev.next().expect("peeked"));
                }
                (_, Some(_)) => {
                    let v = views.next().expect("peeked");
                    let s = PlayerState::from_view(v, t.session_of(v.client_id));
                    row("join", &s);
                    next.push(s);
                }
                _ => break,
            }
        }
        drop(prev);
        self.rows_made += rows;
        // The list just emptied is the next snapshot's room.
        self.players_spare = prev_list;
        self.players = Some(next);
    }

    /// `players`: one row per session that overlaps the tick range, in
    /// order of session, made at the end of the demo
    /// ([`TableBuilder::finish`]).
    pub(super) fn sessions(&mut self) {
        let Some(t) = &mut self.tracker else { return };
        let (from, to) = (self.from, self.to);
        let columns = &mut self.columns;
        let mut rows = 0u64;
        let mut joined = String::new();
        for s in t.sessions() {
            if s.last_tick < from || s.start_tick > to {
                continue;
            }
            rows += 1;
            let (demo_tick, time_s) = time_of(s.start_tick, self.first_tick);
            let mut row = columns
                .row()
                .i32(Some(s.start_tick))
                .i32(Some(demo_tick))
                .f64(Some(time_s))
                .i32(Some(i32::from(s.client_id)))
                .i32(Some(s.session))
                .i32(Some(s.first_tick))
                .i32(Some(s.last_tick))
                .str(s.name());
            joined.clear();
            join_into(&mut joined, s.names.iter().map(String::as_str));
            row = row.str((!s.names.is_empty()).then_some(joined.as_str()));
            row = row
                .str(s.clan.as_deref())
                .i32(s.country)
                .str(s.skin.as_deref())
                .i32(s.teams.last().copied())
                .str(s.teams.last().copied().and_then(team_name));
            joined.clear();
            let teams: Vec<String> = s.teams.iter().map(i32::to_string).collect();
            join_into(&mut joined, teams.iter().map(String::as_str));
            row.str((!s.teams.is_empty()).then_some(joined.as_str()))
                .i32(Some(i32::try_from(s.team_changes).unwrap_or(i32::MAX)))
                .i32(s.score)
                .bool(Some(s.local))
                .end();
        }
        self.rows_made += rows;
    }

    /// The session of client `id` at the event being fed (call it while
    /// handling a message or snapshot: its open session, else the latest
    /// it had; `None` for the server's -1 or an id never seen). The rows
    /// of every table of a demo agree on it (see
    /// [`crate::demo::players::sessions`]).
    pub fn session_of(&self, id: i32) -> Option<i32> {
        let id = u16::try_from(id).ok()?;
        self.tracker.as_ref()?.session_of(id)
    }

    /// A message chunk's bytes at tick `tick`.
    pub fn message(&mut self, tick: i32, bytes: &[u8]) {
        if !self.table.needs_messages() {
            return;
        }
        // As for players, message warnings are not part of the tables.
        let Ok(msg) = message::decode(bytes, self.protocol, &mut Discard) else {
            return;
        };
        if let Some(t) = &mut self.tracker {
            t.feed_message(tick, &msg);
        }
        let in_range = self.in_range(tick);
        let (demo_tick, time_s) = time_of(tick, self.first_tick);
        match (self.table, &msg.body) {
            (Table::Chat, _) => {
                let Some(t) = &mut self.tracker else { return };
                let mut lines = std::mem::take(&mut self.chat);
                lines.extend(t.drain_chat());
                if !in_range {
                    lines.clear();
                }
                for l in lines.drain(..) {
                    self.rows_made += 1;
                    let (demo_tick, time_s) = time_of(l.tick, self.first_tick);
                    let session = u16::try_from(l.client_id)
                        .ok()
                        .and_then(|id| t.session_of(id));
                    self.columns
                        .row()
                        .i32(Some(l.tick))
                        .i32(Some(demo_tick))
                        .f64(Some(time_s))
                        .i32(Some(l.client_id))
                        .i32(session)
                        .str(l.name.as_deref())
                        .str(Some(chat_mode(l.mode)))
                        .i32(Some(l.raw_mode))
                        .i32(l.target_id)
                        .str(Some(&l.text))
                        .end();
                }
                self.chat = lines;
            }
            (Table::Kills, Body::KillMsg(k)) if in_range => {
                let killer = self.name_of(k.killer);
                let victim = self.name_of(k.victim);
                let killer_session = self.session_of(k.killer);
                let victim_session = self.session_of(k.victim);
                self.rows_made += 1;
                self.columns
                    .row()
                    .i32(Some(tick))
                    .i32(Some(demo_tick))
                    .f64(Some(time_s))
                    .str(Some("kill"))
                    .i32(Some(k.killer))
                    .i32(killer_session)
                    .str(killer.as_deref())
                    .i32(Some(k.victim))
                    .i32(victim_session)
                    .str(victim.as_deref())
                    .i32(Some(k.weapon))
                    .str(weapon_name(k.weapon))
                    .i32(Some(k.mode_special))
                    .i32(None)
                    .i32(None)
                    .end();
            }
            (Table::Kills, Body::KillMsgTeam { team, first }) if in_range => {
                self.rows_made += 1;
                self.columns
                    .row()
                    .i32(Some(tick))
                    .i32(Some(demo_tick))
                    .f64(Some(time_s))
                    .str(Some("team_kill"))
                    .i32(None)
                    .i32(None)
                    .str(None)
                    .i32(None)
                    .i32(None)
                    .str(None)
                    .i32(None)
                    .str(None)
                    .i32(None)
                    .i32(Some(*team))
                    .i32(Some(*first))
                    .end();
            }
            (Table::Broadcasts, Body::Broadcast { text }) if in_range => {
                self.rows_made += 1;
                self.columns
                    .row()
                    .i32(Some(tick))
                    .i32(Some(demo_tick))
                    .f64(Some(time_s))
                    .str(Some(text.as_ref()))
                    .end();
            }
            (Table::Finishes, body) if in_range => {
                let mut found = std::mem::take(&mut self.finishes);
                finishes_of(body, msg.name, self.tracker.as_ref(), &mut found);
                for f in found.drain(..) {
                    self.rows_made += 1;
                    let session = f.client_id.and_then(|c| self.session_of(c));
                    self.columns
                        .row()
                        .i32(Some(tick))
                        .i32(Some(demo_tick))
                        .f64(Some(time_s))
                        .i32(f.client_id)
                        .i32(session)
                        .str(f.name.as_deref())
                        .f64(Some(f.time_s()))
                        .str(Some(f.source))
                        .str(Some(f.kind))
                        .f64(f.diff_s())
                        .bool(f.record_personal)
                        .bool(f.record_server)
                        .end();
                }
                self.finishes = found;
            }
            (
                Table::Records,
                Body::Record {
                    server_time_best,
                    player_time_best,
                },
            ) if in_range => {
                self.rows_made += 1;
                let source = if msg.name == Some(message::NetMsg::Sv_RecordLegacy.name()) {
                    "message:Sv_RecordLegacy"
                } else {
                    "message:Sv_Record"
                };
                self.columns
                    .row()
                    .i32(Some(tick))
                    .i32(Some(demo_tick))
                    .f64(Some(time_s))
                    .str(Some(source))
                    .f64(Some(hundredths_s(*server_time_best)))
                    .f64(Some(hundredths_s(*player_time_best)))
                    .end();
            }
            _ => {}
        }
    }

    /// The current name of client `id`, if it has one.
    fn name_of(&self, id: i32) -> Option<String> {
        let id = u16::try_from(id).ok()?;
        self.tracker.as_ref()?.current_name(id).map(str::to_owned)
    }
}

/// The separator of the list columns of `players` (`names`, `teams`).
pub const LIST_SEPARATOR: &str = " / ";

/// Appends `items` to `out`, [`LIST_SEPARATOR`] between them.
fn join_into<'a>(out: &mut String, items: impl Iterator<Item = &'a str>) {
    for (i, x) in items.enumerate() {
        if i > 0 {
            out.push_str(LIST_SEPARATOR);
        }
        out.push_str(x);
    }
}
