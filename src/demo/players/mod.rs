//! The player view: who is in a snapshot (names, clans, skins, teams,
//! scores, positions) and a tracker that follows players tick by tick.
//!
//! # Where the facts live
//!
//! Protocol 0.6 / DDNet (`datasrc/network.py`), item id = client id unless
//! said:
//!
//! ```text
//! obj_client_info  (type 11, 17 ints)  name[4] clan[3] country skin[6]
//!                                      use_custom_color color_body color_feet
//! obj_player_info  (type 10, 5 ints)   local client_id team score latency
//!                                      (the client id is the m_ClientId field)
//! obj_character    (type 9, 22 ints)   tick x y vel_x vel_y angle direction …
//! ```
//!
//! Protocol 0.7 (Teeworlds 0.7 `datasrc/network.py`): `obj_player_info`
//! (type 11) has 3 ints, `player_flags score latency`; names and teams come
//! by message (`Sv_ClientInfo`, `De_ClientEnter`, dropped by
//! `Sv_ClientDrop` / `De_ClientLeave`), and demos recorded by the 0.7 client
//! also carry `obj_de_client_info` (type 13, 58 ints: `local team name[4]
//! clan[3] country skin_part_names[6][6] use_custom_colors[6]
//! skin_part_colors[6]`). `obj_character` is type 10; x and y are again
//! ints 1 and 2.
//!
//! # Strings packed into ints
//!
//! Names, clans and skins in snapshot items are strings packed 4 bytes per
//! int, big-endian, each byte stored plus 128 (DDNet `StrToInts`). Reading
//! follows DDNet's `IntsToStr`: subtract 128 from each byte, stop at the
//! first NUL, force the very last byte to be the terminator (so a 4-int name
//! holds at most 15 bytes), and an invalid UTF-8 result counts as empty.
//!
//! # Quirks
//!
//! - A client id can be reused by a different player after a leave; the
//!   tracker keys records by client id and lists every distinct name seen,
//!   and follows sessions (one connection of an id, [`sessions`]) apart.
//! - Memory is bounded: at most [`TrackerConfig::max_players`] records,
//!   [`TrackerConfig::max_strings`] distinct names/clans/skins and
//!   [`TrackerConfig::max_team_changes`] team changes per player (each cap
//!   reported once per player by a warning), position tracks are sampled
//!   and capped ([`PositionConfig`]), and chat lines are kept only with
//!   [`TrackerConfig::keep_chat`] (drained as they come by a streaming
//!   reader, [`PlayerTracker::drain_chat`]).
//! - Time is linear: views and records are found through tables by client
//!   id, never by a search through the players.

mod changes;
pub mod sessions;
mod strings;
mod tracker;
mod views;

pub use changes::PlayerChanges;
pub use sessions::Session;
pub use strings::ints_to_str;
pub use tracker::{
    ChatLine, PlayerRecord, PlayerTracker, PositionConfig, PositionSample, TeamChange,
    TrackerConfig, DEFAULT_MAX_PLAYERS, DEFAULT_MAX_STRINGS, DEFAULT_MAX_TEAM_CHANGES,
};
pub use views::{players, MessageInfo, PlayerView, PlayerViews};

/// A non-fatal oddity found while reading players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PlayerWarningKind {
    /// A player-related item has fewer ints than its layout.
    ShortItem,
    /// A packed name/clan/skin was not UTF-8 (read as empty, like DDNet).
    InvalidString,
    /// More distinct client ids than the tracker keeps (once per id).
    TooManyPlayers,
    /// More distinct names, clans or skins for one player than the tracker
    /// keeps ([`TrackerConfig::max_strings`]; once per player and list).
    TooManyStrings,
    /// More team changes for one player than the tracker keeps
    /// ([`TrackerConfig::max_team_changes`]; once per player).
    TooManyTeamChanges,
}

crate::kind::kind_names!(PlayerWarningKind {
    ShortItem => "short_item",
    InvalidString => "invalid_string",
    TooManyPlayers => "too_many_players",
    TooManyStrings => "too_many_strings",
    TooManyTeamChanges => "too_many_team_changes",
});

/// A warning with the item key (`type << 16 | id`) it concerns, or the
/// client id for [`PlayerWarningKind::TooManyPlayers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlayerWarning {
    pub kind: PlayerWarningKind,
    pub key: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::snapshot::{item_key, v06, v07, Protocol, Snapshot};
    use crate::demo::message::ChatMode;
    use crate::map::strings::to_i32_string;
    use std::collections::BTreeMap;

    fn client_info(name: &str, clan: &str, skin: &str) -> Vec<i32> {
        let mut v = Vec::new();
        v.extend(to_i32_string(name, 4));
        v.extend(to_i32_string(clan, 3));
        v.push(276);
        v.extend(to_i32_string(skin, 6));
        v.extend([1, 65408, 65280]);
        v
    }

    #[test]
    fn ints_to_str_follows_ddnet() {
        assert_eq!(
            ints_to_str(&to_i32_string("nameless tee", 4)).as_deref(),
            Some("nameless tee")
        );
        // 16 bytes: the last is forced to NUL (here it holds 'f').
        let mut full = to_i32_string("0123456789abcdef", 4);
        full[3] |= i32::from(b'f' ^ 0x80);
        assert_eq!(ints_to_str(&full).as_deref(), Some("0123456789abcde"));
        // All-zero ints are bytes 0x80: invalid UTF-8, empty in DDNet.
        assert_eq!(ints_to_str(&[0, 0, 0]), None);
        assert_eq!(ints_to_str(&[]).as_deref(), Some(""));
    }

    #[test]
    fn players_06() {
        let mut s = Snapshot::new();
        s.push(
            item_key(v06::CLIENT_INFO, 3),
            &client_info("brainless tee", "DDNet", "default"),
        )
        .unwrap();
        s.push(item_key(v06::PLAYER_INFO, 3), &[1, 3, 0, 42, 17])
            .unwrap();
        s.push(
            item_key(v06::CHARACTER, 3),
            &[
                0, 100, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0,
            ],
        )
        .unwrap();
        s.push(item_key(v06::PLAYER_INFO, 5), &[0, 5, -1, 0, 0])
            .unwrap();
        let mut w = Vec::new();
        let v = players(&s, Protocol::V06, &BTreeMap::new(), &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(v.len(), 2);
        assert_eq!(
            v[0],
            PlayerView {
                client_id: 3,
                name: Some("brainless tee".into()),
                clan: Some("DDNet".into()),
                country: Some(276),
                skin: Some("default".into()),
                team: Some(0),
                score: Some(42),
                latency: Some(17),
                local: true,
                position: Some((100, 200)),
            }
        );
        assert_eq!(
            (v[1].client_id, v[1].team, v[1].name.as_deref()),
            (5, Some(-1), None)
        );
    }

    #[test]
    fn short_items_warn() {
        let mut s = Snapshot::new();
        s.push(item_key(v06::CLIENT_INFO, 0), &[1, 2]).unwrap();
        let mut w = Vec::new();
        assert!(players(&s, Protocol::V06, &BTreeMap::new(), &mut w).is_empty());
        assert_eq!(
            w,
            [PlayerWarning {
                kind: PlayerWarningKind::ShortItem,
                key: item_key(v06::CLIENT_INFO, 0)
            }]
        );
    }

    #[test]
    fn tracker_counts_ticks_teams_positions() {
        let cfg = TrackerConfig {
            positions: Some(PositionConfig {
                every_ticks: 2,
                max_points: 2,
            }),
            ..TrackerConfig::default()
        };
        let mut t = PlayerTracker::new(Protocol::V06, cfg);
        let mut w = Vec::new();
        for tick in 10..16 {
            let mut s = Snapshot::new();
            s.push(
                item_key(v06::CLIENT_INFO, 0),
                &client_info(if tick < 13 { "a" } else { "b" }, "", "x"),
            )
            .unwrap();
            s.push(
                item_key(v06::PLAYER_INFO, 0),
                &[0, 0, i32::from(tick >= 12), tick, 0],
            )
            .unwrap();
            let mut ch = [0; 22];
            ch[1] = tick * 10;
            s.push(item_key(v06::CHARACTER, 0), &ch).unwrap();
            t.feed_snapshot(tick, &s, &mut w);
            t.feed_snapshot(tick, &s, &mut w);
        }
        let r = t.player(0).unwrap();
        assert_eq!((r.first_tick, r.last_tick, r.ticks_present), (10, 15, 6));
        assert_eq!(r.names, ["a", "b"]);
        assert_eq!(
            r.teams,
            [
                TeamChange { tick: 10, team: 0 },
                TeamChange { tick: 12, team: 1 }
            ]
        );
        assert_eq!(r.score, Some(15));
        assert_eq!(
            r.positions,
            [
                PositionSample {
                    tick: 10,
                    x: 100,
                    y: 0
                },
                PositionSample {
                    tick: 12,
                    x: 120,
                    y: 0
                }
            ]
        );
        assert_eq!(r.positions_dropped, 1);
        assert!(w.is_empty());
    }

    #[test]
    fn tracker_07_names_by_message_and_chat() {
        use crate::demo::message::decode;
        let mut t = PlayerTracker::new(Protocol::V07, TrackerConfig::default());
        let mut w = Vec::new();
        // Real bytes: De_ClientEnter "bar", id 1, team 0.
        let enter = decode(b"\x2cbar\0\x01\0\0", Protocol::V07, &mut Vec::new()).unwrap();
        t.feed_message(10, &enter);
        let mut s = Snapshot::new();
        s.push(item_key(v07::PLAYER_INFO, 1), &[0, 5, 30]).unwrap();
        t.feed_snapshot(10, &s, &mut w);
        assert_eq!(t.current_view()[0].name.as_deref(), Some("bar"));
        assert_eq!(t.current_view()[0].team, Some(0));
        // Sv_Chat 0.7: mode 2 (team), client 1, target -1, "gl".
        let chat = decode(b"\x06\x02\x01\x40gl\0\0\0", Protocol::V07, &mut Vec::new()).unwrap();
        t.feed_message(11, &chat);
        let line = &t.chat()[0];
        assert_eq!(
            (
                line.tick,
                line.client_id,
                line.name.as_deref(),
                line.mode,
                line.text.as_str()
            ),
            (11, 1, Some("bar"), ChatMode::Team, "gl")
        );
        // Sv_ClientDrop id 1: the message name is gone from later views.
        let drop = decode(&[0x28, 1, 0, 0], Protocol::V07, &mut Vec::new()).unwrap();
        t.feed_message(12, &drop);
        t.feed_snapshot(12, &s, &mut w);
        assert_eq!(t.current_view()[0].name, None);
        let r = t.player(1).unwrap();
        assert_eq!(
            (r.names.as_slice(), r.score, r.ticks_present),
            (&["bar".to_owned()][..], Some(5), 2)
        );
        assert!(w.is_empty());
    }

    #[test]
    fn tracker_caps_players() {
        let cfg = TrackerConfig {
            max_players: 1,
            ..TrackerConfig::default()
        };
        let mut t = PlayerTracker::new(Protocol::V06, cfg);
        let mut s = Snapshot::new();
        s.push(item_key(v06::PLAYER_INFO, 0), &[0, 0, 0, 0, 0])
            .unwrap();
        s.push(item_key(v06::PLAYER_INFO, 1), &[0, 1, 0, 0, 0])
            .unwrap();
        let mut w = Vec::new();
        t.feed_snapshot(1, &s, &mut w);
        t.feed_snapshot(2, &s, &mut w);
        assert_eq!(t.players().count(), 1);
        assert_eq!(
            w,
            [PlayerWarning {
                kind: PlayerWarningKind::TooManyPlayers,
                key: 1
            }]
        );
    }

    /// One client's items in a generated tick: which client-info variant
    /// (none, two names, an invalid string), and whether player info and a
    /// character are there.
    type ClientItems = (u8, bool, bool);

    fn generated_snapshot(protocol: Protocol, clients: &[(u16, ClientItems)]) -> Snapshot {
        let mut snap = Snapshot::new();
        for &(id, (info, player, character)) in clients {
            let strings = match info {
                1 => Some(client_info("alpha", "c", "default")),
                2 => Some(client_info("beta", "c", "bluekitty")),
                // 0x80 bytes: not UTF-8, warned and read as "".
                3 => Some([vec![0; 4], client_info("x", "y", "z")[4..].to_vec()].concat()),
                _ => None,
            };
            let (info_type, player_type, char_type) = match protocol {
                Protocol::V06 => (v06::CLIENT_INFO, v06::PLAYER_INFO, v06::CHARACTER),
                Protocol::V07 => (v07::DE_CLIENT_INFO, v07::PLAYER_INFO, v07::CHARACTER),
            };
            if let Some(strings) = strings {
                let data = match protocol {
                    Protocol::V06 => strings,
                    Protocol::V07 => {
                        let mut d = vec![0, 1];
                        d.extend(&strings[..14]);
                        d.resize(58, 0);
                        d
                    }
                };
                snap.push(item_key(info_type, id), &data).unwrap();
            }
            if player {
                let data = match protocol {
                    Protocol::V06 => vec![0, i32::from(id), 0, 5, 20],
                    Protocol::V07 => vec![0, 5, 20],
                };
                let key_id = if protocol == Protocol::V06 {
                    0x100 + id
                } else {
                    id
                };
                snap.push(item_key(player_type, key_id), &data).unwrap();
            }
            if character {
                snap.push(item_key(char_type, id), &[0, 32, 64]).unwrap();
            }
        }
        snap
    }

    proptest::proptest! {
        /// Tick after tick, the cached views equal fresh ones (strings,
        /// warnings), whatever appears, changes or goes away; ids from 256
        /// are not cached.
        #[test]
        fn cached_views_equal_fresh_ones(
            v07 in proptest::bool::ANY,
            ticks in proptest::collection::vec(
                proptest::collection::vec((0..4u8, proptest::bool::ANY, proptest::bool::ANY), 4),
                1..24,
            ),
        ) {
            let protocol = if v07 { Protocol::V07 } else { Protocol::V06 };
            let ids = [0u16, 1, 255, 300];
            let mut infos = BTreeMap::new();
            infos.insert(1, MessageInfo { name: "from message".into(), ..MessageInfo::default() });
            let mut views = PlayerViews::new();
            for tick in &ticks {
                let clients: Vec<_> = ids.iter().copied().zip(tick.iter().copied()).collect();
                let snap = generated_snapshot(protocol, &clients);
                let (mut w_cached, mut w_fresh) = (Vec::new(), Vec::new());
                views.update(&snap, protocol, &infos, &mut w_cached);
                let fresh = players(&snap, protocol, &infos, &mut w_fresh);
                proptest::prop_assert_eq!(views.views(), &fresh[..]);
                proptest::prop_assert_eq!(&w_cached, &w_fresh);
            }
        }
    }

    /// Sessions: 0.6 a rename keeps the session (both names), a snapshot
    /// without the player ends it and the id's return starts another; 0.7
    /// a drop and an enter between two snapshots start another, a drop
    /// whose items linger in the next snapshot starts none.
    #[test]
    fn sessions_follow_joins_leaves_and_renames() {
        use crate::demo::message::decode;
        let mut t = PlayerTracker::new(Protocol::V06, TrackerConfig::default());
        let mut w = Vec::new();
        let snap = |names: &[(u16, &str)]| {
            let mut s = Snapshot::new();
            for &(id, name) in names {
                s.push(item_key(v06::CLIENT_INFO, id), &client_info(name, "", "x"))
                    .unwrap();
                s.push(item_key(v06::PLAYER_INFO, id), &[0, i32::from(id), 0, 0, 0])
                    .unwrap();
            }
            s
        };
        t.feed_snapshot(10, &snap(&[(0, "a"), (3, "old")]), &mut w);
        t.feed_snapshot(12, &snap(&[(0, "a"), (3, "new")]), &mut w);
        assert_eq!(t.session_of(3), Some(2));
        t.feed_snapshot(14, &snap(&[(0, "a")]), &mut w);
        assert_eq!(t.session_of(3), Some(2), "the latest session after a leave");
        t.feed_snapshot(16, &snap(&[(0, "a"), (3, "other")]), &mut w);
        let got: Vec<_> = t
            .sessions()
            .iter()
            .map(|s| {
                (
                    s.session,
                    s.client_id,
                    s.first_tick,
                    s.last_tick,
                    s.names.clone(),
                )
            })
            .collect();
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            got,
            [
                (1, 0, 10, 16, names(&["a"])),
                (2, 3, 10, 12, names(&["old", "new"])),
                (3, 3, 16, 16, names(&["other"])),
            ]
        );
        assert_eq!(t.session_of(7), None);

        let mut t = PlayerTracker::new(Protocol::V07, TrackerConfig::default());
        fn msg(b: &[u8]) -> crate::demo::message::Message<'_> {
            decode(b, Protocol::V07, &mut Vec::new()).unwrap()
        }
        let mut s = Snapshot::new();
        s.push(item_key(v07::PLAYER_INFO, 1), &[0, 5, 30]).unwrap();
        let drop_1 = [0x28, 1, 0, 0];
        t.feed_message(10, &msg(&enter_07("bar", 1)));
        t.feed_snapshot(10, &s, &mut w);
        // Drop and enter before the next snapshot: a new session.
        t.feed_message(11, &msg(&drop_1));
        t.feed_message(11, &msg(&enter_07("baz", 1)));
        t.feed_snapshot(12, &s, &mut w);
        assert_eq!(t.session_of(1), Some(2));
        // A drop whose player info lingers one snapshot: no new session
        // until the id is gone and back.
        t.feed_message(13, &msg(&drop_1));
        t.feed_snapshot(14, &s, &mut w);
        assert_eq!(t.sessions().len(), 2);
        t.feed_snapshot(16, &Snapshot::new(), &mut w);
        t.feed_snapshot(18, &s, &mut w);
        let got: Vec<_> = t
            .sessions()
            .iter()
            .map(|s| {
                (
                    s.start_tick,
                    s.first_tick,
                    s.last_tick,
                    s.open,
                    s.names.clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (10, 10, 10, false, names(&["bar"])),
                (11, 12, 12, false, names(&["baz"])),
                (18, 18, 18, true, Vec::new()),
            ]
        );
    }

    /// 0.7 messages: `De_ClientEnter` (name, client id, team 0) and
    /// `Sv_Chat` (team mode, client id, no target, "gl").
    fn enter_07(name: &str, id: u8) -> Vec<u8> {
        [&[0x2c][..], name.as_bytes(), &[0, id, 0, 0]].concat()
    }
    fn chat_07(id: u8) -> Vec<u8> {
        vec![0x06, 0x02, id, 0x40, b'g', b'l', 0, 0, 0]
    }

    proptest::proptest! {
        /// Over random ticks and messages, a tracker that keeps unchanged
        /// strings records exactly what one decoding every string records.
        #[test]
        fn tracker_reuse_changes_nothing(
            v07 in proptest::bool::ANY,
            steps in proptest::collection::vec(
                (0..4u8, proptest::collection::vec((0..4u8, proptest::bool::ANY, proptest::bool::ANY), 4)),
                1..32,
            ),
        ) {
            use crate::demo::message::decode;
            let protocol = if v07 { Protocol::V07 } else { Protocol::V06 };
            let mut reusing = PlayerTracker::new(protocol, TrackerConfig::default());
            let mut decoding = PlayerTracker::new(protocol, TrackerConfig::default());
            decoding.view.always_decode = true;
            let ids = [0u16, 1, 255, 300];
            let (mut w1, mut w2) = (Vec::new(), Vec::new());
            for (tick, (what, clients)) in steps.iter().enumerate() {
                let tick = tick as i32;
                let message = match what {
                    1 if v07 => Some(enter_07(if tick % 2 == 0 { "bar" } else { "baz" }, 1)),
                    2 => Some(chat_07(clients[0].0 % 2)),
                    _ => None,
                };
                if let Some(bytes) = message {
                    let m = decode(&bytes, protocol, &mut Vec::new()).unwrap();
                    reusing.feed_message(tick, &m);
                    decoding.feed_message(tick, &m);
                }
                let clients: Vec<_> = ids.iter().copied().zip(clients.iter().copied()).collect();
                let snap = generated_snapshot(protocol, &clients);
                reusing.feed_snapshot(tick, &snap, &mut w1);
                decoding.feed_snapshot(tick, &snap, &mut w2);
                proptest::prop_assert_eq!(reusing.current_view(), decoding.current_view());
            }
            proptest::prop_assert_eq!(&w1, &w2);
            let r1: Vec<_> = reusing.players().collect();
            let r2: Vec<_> = decoding.players().collect();
            proptest::prop_assert_eq!(r1, r2);
            proptest::prop_assert_eq!(reusing.sessions(), decoding.sessions());
            proptest::prop_assert_eq!(reusing.chat(), decoding.chat());
            for id in [0, 1, 255, 300] {
                proptest::prop_assert_eq!(reusing.current_name(id), decoding.current_name(id));
            }
        }
    }
}
