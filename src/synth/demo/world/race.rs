//! Race finishes of the simulated server: the chat lines and record
//! messages of each finish, in turn in every wording of
//! [`RACE_FORMS`](crate::synth::demo::RACE_FORMS), with the rows the
//! `finishes` table should read from them.

use super::World;
use crate::demo::finishes::ChatWording;
use crate::demo::finishes::Finish;
use crate::demo::message::NetMsg;
use crate::synth::demo::pack_message;
use crate::synth::demo::RACE_FORMS;
use crate::synth::rng::Rng;

impl World {
    /// The client id of each connected player named `name`, if exactly
    /// one is (as the `finishes` table attributes a chat line).
    fn only_id_named(&self, name: &str) -> Option<i32> {
        let mut ids = (0..64).filter(|&i| self.players[i].as_ref().is_some_and(|p| p.name == name));
        match (ids.next(), ids.next()) {
            (Some(id), None) => Some(id as i32),
            _ => None,
        }
    }

    /// A race finish in the next of [`RACE_FORMS`], its messages
    /// queued and its rows in `finishes` (call right after the snapshot,
    /// so the players are those the messages' tick shows).
    pub(in crate::synth::demo) fn race_finish(&mut self, rng: &mut Rng) {
        let form = self.finish_no as usize % RACE_FORMS.len();
        // Times are unique per finish: the finish number in seconds plus
        // a random part, in hundredths.
        let hundredths = i64::from(self.finish_no) * 6100 + i64::from(rng.range(0, 5999));
        self.finish_no += 1;
        let (minutes, rest) = ((hundredths / 6000) as u32, (hundredths % 6000) as u32);
        let connected: Vec<usize> = (0..64).filter(|&i| self.players[i].is_some()).collect();
        let name_of = |w: &World, slot: usize| {
            w.players[slot]
                .as_ref()
                .map(|p| p.name.clone())
                .unwrap_or_default()
        };
        let chat = |w: &mut World, wording: ChatWording, names: &[&str]| {
            let line = wording.line(names, minutes, rest);
            w.messages
                .push(pack_message(NetMsg::Sv_Chat, &[0, -1], Some(&line)));
            let named: Vec<Option<&str>> = if names.is_empty() {
                vec![None]
            } else {
                names.iter().map(|&n| Some(n)).collect()
            };
            for n in named {
                let client_id = n.and_then(|n| w.only_id_named(n));
                w.finishes.push(Finish {
                    client_id,
                    name: n.map(str::to_owned),
                    time_ms: hundredths * 10,
                    source: "chat",
                    kind: wording.kind(),
                    diff_ms: None,
                    record_personal: None,
                    record_server: None,
                });
            }
        };
        let player = |w: &World, slot: usize, source, diff_ms, personal, server| Finish {
            client_id: Some(slot as i32),
            name: Some(name_of(w, slot)),
            time_ms: hundredths * 10,
            source,
            kind: "player",
            diff_ms,
            record_personal: personal,
            record_server: server,
        };
        let diff = i64::from(rng.range(-9000, 9000));
        match form {
            0 => {
                let slot = rng.pick(&connected);
                chat(self, ChatWording::Player, &[&name_of(self, slot)]);
                // The line after a finish is no finish.
                let text = format!(
                    "New record: {} minute(s) {:>5} second(s) better.",
                    1, "2.50"
                );
                self.messages
                    .push(pack_message(NetMsg::Sv_Chat, &[0, -1], Some(&text)));
            }
            1 => {
                let n = connected.len().min(2 + rng.below(2) as usize);
                let names: Vec<String> = connected[..n].iter().map(|&s| name_of(self, s)).collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                chat(self, ChatWording::Team, &names);
            }
            2 => chat(self, ChatWording::OwnTeam, &[]),
            3 => chat(self, ChatWording::Practice, &[]),
            4 | 5 => {
                // The local player (slot 0), with the race timer before.
                let msg = if form == 4 {
                    NetMsg::Sv_DDRaceTime
                } else {
                    NetMsg::Sv_DDRaceTimeLegacy
                };
                self.messages
                    .push(pack_message(msg, &[(hundredths - 50) as i32, 0, 0], None));
                chat(self, ChatWording::Player, &[&name_of(self, 0)]);
                self.messages.push(pack_message(
                    msg,
                    &[hundredths as i32, diff as i32, 1],
                    None,
                ));
                let source = if form == 4 {
                    "message:Sv_DDRaceTime"
                } else {
                    "message:Sv_DDRaceTimeLegacy"
                };
                let f = player(self, 0, source, Some(diff * 10), None, None);
                self.finishes.push(f);
            }
            6 => {
                let slot = rng.pick(&connected);
                chat(self, ChatWording::Player, &[&name_of(self, slot)]);
                let (personal, server) = (rng.chance(1, 2), rng.chance(1, 2));
                let ints = [
                    slot as i32,
                    (hundredths * 10) as i32,
                    (diff * 10) as i32,
                    i32::from(personal),
                    i32::from(server),
                ];
                self.messages
                    .push(pack_message(NetMsg::Sv_RaceFinish, &ints, None));
                let f = player(
                    self,
                    slot,
                    "message:Sv_RaceFinish",
                    Some(diff * 10),
                    Some(personal),
                    Some(server),
                );
                self.finishes.push(f);
            }
            _ => {
                let best = [rng.range(100, 500_000), hundredths as i32];
                for (legacy, msg) in [(false, NetMsg::Sv_Record), (true, NetMsg::Sv_RecordLegacy)] {
                    self.messages.push(pack_message(msg, &best, None));
                    self.records.push((legacy, best[0], best[1]));
                }
            }
        }
    }
}
