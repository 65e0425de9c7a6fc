//! The rows of `players` and of the message tables (`chat`, `kills`,
//! `broadcasts`, `finishes`).

use super::{chat_mode, time_of, PlayerState, Table, TableBuilder};
use crate::demo::export::tables::{team_name, weapon_name};
use crate::demo::message::{self, Body};
use crate::warn::Discard;

impl TableBuilder {
    /// `players`: the changes from the previous snapshot's players to
    /// the current ones, a merge of the two lists (both by client id)
    /// that moves each kept player's state over (no copy of an unchanged
    /// player).
    pub(super) fn players(&mut self, tick: i32) {
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
                    if !p.same_as(v) {
                        p.set(v);
                        row("update", &p);
                    }
                    next.push(p);
                }
                (Some(p), v) if v.is_none_or(|v| p.client_id < v.client_id) => {
                    row("leave", &prev.next().expect("peeked"));
                }
                (_, Some(_)) => {
                    let s = PlayerState::from_view(views.next().expect("peeked"));
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
                    self.columns
                        .row()
                        .i32(Some(l.tick))
                        .i32(Some(demo_tick))
                        .f64(Some(time_s))
                        .i32(Some(l.client_id))
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
                self.rows_made += 1;
                self.columns
                    .row()
                    .i32(Some(tick))
                    .i32(Some(demo_tick))
                    .f64(Some(time_s))
                    .str(Some("kill"))
                    .i32(Some(k.killer))
                    .str(killer.as_deref())
                    .i32(Some(k.victim))
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
                    .str(None)
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
            (
                Table::Finishes,
                Body::RaceFinish {
                    client_id,
                    time,
                    diff,
                    record_personal,
                    record_server,
                },
            ) if in_range => {
                let name = self.name_of(*client_id);
                self.rows_made += 1;
                self.columns
                    .row()
                    .i32(Some(tick))
                    .i32(Some(demo_tick))
                    .f64(Some(time_s))
                    .str(Some("race_finish"))
                    .i32(Some(*client_id))
                    .str(name.as_deref())
                    .i32(Some(*time))
                    .i32(Some(*diff))
                    .bool(Some(*record_personal))
                    .bool(*record_server)
                    .i32(None)
                    .i32(None)
                    .end();
            }
            (
                Table::Finishes,
                Body::Record {
                    server_time_best,
                    player_time_best,
                },
            ) if in_range => {
                self.rows_made += 1;
                self.columns
                    .row()
                    .i32(Some(tick))
                    .i32(Some(demo_tick))
                    .f64(Some(time_s))
                    .str(Some("record"))
                    .i32(None)
                    .str(None)
                    .i32(None)
                    .i32(None)
                    .bool(None)
                    .bool(None)
                    .i32(Some(*server_time_best))
                    .i32(Some(*player_time_best))
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
