//! Race finishes: DDNet's server chat finish lines and race messages,
//! one [`Finish`] per finish, as the `finishes` table and the
//! `demos index` finish counts read them.
//!
//! # Sources
//!
//! - **Server chat** (`Sv_Chat` with client id -1). The wordings, from
//!   DDNet's server source (`%5.2f` pads the seconds with spaces and
//!   rounds to hundredths, so the time is exact in hundredths):
//!   - `NAME finished in: M minute(s) S.SS second(s)`: one player's finish
//!     (`src/game/server/teams.cpp` `CGameTeams::OnFinish`; before the team
//!     code, `src/game/server/entities/character.cpp`
//!     `CCharacter::OnFinish`). Kind `player`.
//!   - `Team NAME, NAME finished in: M minute(s) S.SS second(s)`: a team
//!     finish of DDRace-derived servers (`teams.cpp` `OnTeamFinish`), one
//!     row per listed name. Kind `team_member`.
//!   - `Your team finished in: M minute(s) S.SS second(s)`: the same with
//!     `sv_hide_score`, to the team only (no names). Kind `own_team`.
//!   - `Your team would've finished in: M minute(s) S.SS second(s). Since
//!     you had practice mode enabled your rank doesn't count.`: a team in
//!     practice mode (`teams.cpp` `CheckTeamFinished`); no rank. Kind
//!     `practice`.
//!
//!   The lines that follow a finish (`New record: [M minute(s)] S.SS
//!   second(s) better.`, `S.SS second(s) worse, better luck next time.`,
//!   `You finished with your best time.`) are differences, not finishes,
//!   and make no row.
//! - **`Sv_DDRaceTime`** (DDNet extended) and **`Sv_DDRaceTimeLegacy`**
//!   (0.6 ordinal 27): `m_Time` in hundredths of a second, `m_Check` the
//!   difference to the previous best in hundredths (0 when there was
//!   none), `m_Finish` 1 on a finish (0: the race timer, no row). DDNet
//!   sends them to the finisher only (`CScore::SendFinish`), so the finish
//!   is the recording client's own (`local` player). Kind `player`.
//! - **`Sv_RaceFinish`** (DDNet extended `racefinish@netmsg.ddnet.org`,
//!   0.7 ordinal 35): client id, `m_Time` and `m_Diff` in milliseconds,
//!   personal and server record flags. DDNet sends it with
//!   `MSGFLAG_NORECORD`, so DDNet's own demos rarely hold it. Kind
//!   `player`.
//!
//! A chat line names its finisher; the client id is the one player that
//! has that name at the line's tick, or none when no player or more than
//! one has it ([`Finish::client_id`] is then `None`).
//!
//! Times are kept as integer milliseconds ([`Finish::time_ms`]): the chat's
//! minutes and hundredths convert exactly, and `time_ms / 1000` as a
//! float64 is the float nearest the written decimal (25:28.38 gives
//! 1528.38).

use crate::demo::message::{Body, NetMsg};
use crate::demo::players::PlayerTracker;

/// One race finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finish {
    /// The finisher's client id, when known (see the module docs).
    pub client_id: Option<i32>,
    /// The finisher's name (as written in the chat line, or the client's
    /// current name for messages).
    pub name: Option<String>,
    /// The finish time in milliseconds.
    pub time_ms: i64,
    /// `chat` or `message:<MessageName>`.
    pub source: &'static str,
    /// `player`, `team_member`, `own_team` or `practice`.
    pub kind: &'static str,
    /// Time minus the previous personal best, in milliseconds (messages
    /// only).
    pub diff_ms: Option<i64>,
    /// `Sv_RaceFinish` only.
    pub record_personal: Option<bool>,
    /// `Sv_RaceFinish` only (absent from older senders).
    pub record_server: Option<bool>,
}

impl Finish {
    /// The finish time in seconds.
    pub fn time_s(&self) -> f64 {
        self.time_ms as f64 / 1000.0
    }

    /// The difference in seconds.
    pub fn diff_s(&self) -> Option<f64> {
        self.diff_ms.map(|d| d as f64 / 1000.0)
    }
}

/// Which chat wording a finish line has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChatWording {
    /// `NAME finished in: ...`
    Player,
    /// `Team NAME, NAME finished in: ...`
    Team,
    /// `Your team finished in: ...`
    OwnTeam,
    /// `Your team would've finished in: ... Since you had practice mode
    /// enabled your rank doesn't count.`
    Practice,
}

impl ChatWording {
    /// The `kind` of the rows of this wording.
    pub fn kind(self) -> &'static str {
        match self {
            ChatWording::Player => "player",
            ChatWording::Team => "team_member",
            ChatWording::OwnTeam => "own_team",
            ChatWording::Practice => "practice",
        }
    }

    /// Every wording.
    pub const ALL: [ChatWording; 4] = [
        ChatWording::Player,
        ChatWording::Team,
        ChatWording::OwnTeam,
        ChatWording::Practice,
    ];

    /// The line DDNet writes for this wording: `names` is the finisher
    /// (one name) or the team's members (joined by `, `), unused by the
    /// team-only wordings; the time is `minutes` and `hundredths` of a
    /// second (below 6000), written as DDNet's `%d minute(s) %5.2f
    /// second(s)` does.
    pub fn line(self, names: &[&str], minutes: u32, hundredths: u32) -> String {
        let time = format!(
            "{minutes} minute(s) {:>5} second(s)",
            format!("{}.{:02}", hundredths / 100, hundredths % 100)
        );
        match self {
            ChatWording::Player => format!("{} {FINISHED_IN}{time}", names.join(", ")),
            ChatWording::Team => format!("Team {} {FINISHED_IN}{time}", names.join(", ")),
            ChatWording::OwnTeam => format!("{YOUR_TEAM} {FINISHED_IN}{time}"),
            ChatWording::Practice => {
                format!("{PRACTICE_TEAM} {FINISHED_IN}{time}{PRACTICE_TAIL}")
            }
        }
    }
}

const FINISHED_IN: &str = "finished in: ";
const YOUR_TEAM: &str = "Your team";
const PRACTICE_TEAM: &str = "Your team would've";
const PRACTICE_TAIL: &str = ". Since you had practice mode enabled your rank doesn't count.";

/// A server chat finish line, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatFinish<'a> {
    pub wording: ChatWording,
    /// What stands before ` finished in: ` (the player's name; the team's
    /// member list after `Team `; empty for the team-only wordings).
    pub who: &'a str,
    /// The time in hundredths of a second.
    pub hundredths: i64,
}

impl<'a> ChatFinish<'a> {
    /// The names of a [`ChatWording::Team`] line (split at `, `); the
    /// one name of a [`ChatWording::Player`] line.
    pub fn names(&self) -> Vec<&'a str> {
        match self.wording {
            ChatWording::Player => vec![self.who],
            ChatWording::Team => self.who.split(", ").collect(),
            ChatWording::OwnTeam | ChatWording::Practice => Vec::new(),
        }
    }
}

/// Parses a server chat line as a finish (see the module docs for the
/// wordings). `is_player` tells whether a text is a current player's
/// name: a line whose prefix starts with `Team ` is a player's finish if
/// the whole prefix is a player's name, else a team's.
pub(crate) fn parse_chat_finish<'a>(
    text: &'a str,
    is_player: impl Fn(&str) -> bool,
) -> Option<ChatFinish<'a>> {
    // The time part has no ` finished in: `; the name may.
    let at = text.rfind(FINISHED_IN)?;
    let who = text[..at].strip_suffix(' ')?;
    let rest = &text[at + FINISHED_IN.len()..];
    let (wording, rest) = if who == PRACTICE_TEAM {
        (ChatWording::Practice, rest.strip_suffix(PRACTICE_TAIL)?)
    } else if who == YOUR_TEAM {
        (ChatWording::OwnTeam, rest)
    } else if who.starts_with("Team ") && !is_player(who) {
        (ChatWording::Team, rest)
    } else {
        (ChatWording::Player, rest)
    };
    let hundredths = parse_time(rest)?;
    let who = match wording {
        ChatWording::Team => &who["Team ".len()..],
        ChatWording::Player => who,
        _ => "",
    };
    if who.is_empty() && matches!(wording, ChatWording::Player | ChatWording::Team) {
        return None;
    }
    Some(ChatFinish {
        wording,
        who,
        hundredths,
    })
}

/// `M minute(s) S.SS second(s)` (the seconds padded to 5 characters) as
/// hundredths of a second.
fn parse_time(s: &str) -> Option<i64> {
    let (minutes, rest) = s.split_once(" minute(s) ")?;
    let seconds = rest.strip_suffix(" second(s)")?.trim_start_matches(' ');
    let (whole, frac) = seconds.split_once('.')?;
    let digits = |d: &str, n: usize| {
        (d.len() <= n && !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .then(|| d.parse::<i64>().ok())
            .flatten()
    };
    let minutes = digits(minutes, 9)?;
    let whole = digits(whole, 9)?;
    if frac.len() != 2 {
        return None;
    }
    let frac = digits(frac, 2)?;
    Some(minutes * 6000 + whole * 100 + frac)
}

/// The client ids that have `name` now.
fn ids_named(tracker: &PlayerTracker, name: &str) -> Vec<i32> {
    tracker
        .current_view()
        .iter()
        .filter(|v| v.name.as_deref() == Some(name))
        .map(|v| i32::from(v.client_id))
        .collect()
}

/// The finishes a message holds, appended to `out`: `msg_name` is the
/// message's name (`Sv_DDRaceTime`, ...), `tracker` the players at its
/// tick.
pub fn finishes_of(
    body: &Body<'_>,
    msg_name: Option<&'static str>,
    tracker: Option<&PlayerTracker>,
    out: &mut Vec<Finish>,
) {
    let is_player = |n: &str| tracker.is_some_and(|t| !ids_named(t, n).is_empty());
    match body {
        Body::Chat(c) if c.client_id == -1 => {
            let Some(f) = parse_chat_finish(&c.text, is_player) else {
                return;
            };
            let kind = f.wording.kind();
            let names = f.names();
            let row = |name: Option<&str>| {
                let client_id = match (name, tracker) {
                    (Some(n), Some(t)) => match ids_named(t, n)[..] {
                        [id] => Some(id),
                        _ => None,
                    },
                    _ => None,
                };
                Finish {
                    client_id,
                    name: name.map(str::to_owned),
                    time_ms: f.hundredths * 10,
                    source: "chat",
                    kind,
                    diff_ms: None,
                    record_personal: None,
                    record_server: None,
                }
            };
            if names.is_empty() {
                out.push(row(None));
            }
            for n in names {
                out.push(row(Some(n)));
            }
        }
        Body::DdraceTime {
            time,
            check,
            finish,
        } if *finish != 0 => {
            let local = tracker.and_then(|t| t.current_view().iter().find(|v| v.local));
            let client_id = local.map(|v| i32::from(v.client_id));
            let name = local.and_then(|v| v.name.clone());
            out.push(Finish {
                client_id,
                name,
                time_ms: i64::from(*time) * 10,
                source: if msg_name == Some(NetMsg::Sv_DDRaceTimeLegacy.name()) {
                    "message:Sv_DDRaceTimeLegacy"
                } else {
                    "message:Sv_DDRaceTime"
                },
                kind: "player",
                diff_ms: Some(i64::from(*check) * 10),
                record_personal: None,
                record_server: None,
            });
        }
        Body::RaceFinish {
            client_id,
            time,
            diff,
            record_personal,
            record_server,
        } => {
            let name = u16::try_from(*client_id)
                .ok()
                .and_then(|id| tracker?.current_name(id))
                .map(str::to_owned);
            out.push(Finish {
                client_id: Some(*client_id),
                name,
                time_ms: i64::from(*time),
                source: "message:Sv_RaceFinish",
                kind: "player",
                diff_ms: Some(i64::from(*diff)),
                record_personal: Some(*record_personal),
                record_server: *record_server,
            });
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Option<ChatFinish<'_>> {
        parse_chat_finish(text, |n| n == "Team Rocket")
    }

    #[test]
    fn every_wording_parses() {
        let f = parse("fakaskin finished in: 25 minute(s) 28.38 second(s)").unwrap();
        assert_eq!(f.wording, ChatWording::Player);
        assert_eq!(f.names(), ["fakaskin"]);
        assert_eq!(f.hundredths, 152_838);
        // %5.2f pads with spaces.
        let f = parse("a b finished in: 0 minute(s)  5.07 second(s)").unwrap();
        assert_eq!((f.who, f.hundredths), ("a b", 507));
        let f = parse("Team x, y z finished in: 1 minute(s) 10.00 second(s)").unwrap();
        assert_eq!(f.wording, ChatWording::Team);
        assert_eq!(f.names(), ["x", "y z"]);
        assert_eq!(f.hundredths, 7000);
        let f = parse("Your team finished in: 2 minute(s)  0.50 second(s)").unwrap();
        assert_eq!((f.wording, f.hundredths), (ChatWording::OwnTeam, 12_050));
        assert!(f.names().is_empty());
        let f = parse(
            "Your team would've finished in: 0 minute(s) 59.99 second(s). Since you had \
             practice mode enabled your rank doesn't count.",
        )
        .unwrap();
        assert_eq!((f.wording, f.hundredths), (ChatWording::Practice, 5999));
        // A player whose name starts with "Team ".
        let f = parse("Team Rocket finished in: 0 minute(s) 10.00 second(s)").unwrap();
        assert_eq!((f.wording, f.who), (ChatWording::Player, "Team Rocket"));
        // A name holding the wording itself: the last one is the line's.
        let f = parse("x finished in: y finished in: 3 minute(s)  1.00 second(s)").unwrap();
        assert_eq!((f.who, f.hundredths), ("x finished in: y", 18_100));
    }

    #[test]
    fn other_lines_are_not_finishes() {
        for t in [
            "New record: 8 minute(s) 39.54 second(s) better.",
            "New record:  2.50 second(s) better.",
            " 3.20 second(s) worse, better luck next time.",
            "You finished with your best time.",
            "finished in: 1 minute(s) 2.00 second(s)",
            " finished in: 1 minute(s) 2.00 second(s)",
            "x finished in: 1 minute(s) 2.0 second(s)",
            "x finished in: 1 minute(s) 2.000 second(s)",
            "x finished in: -1 minute(s) 2.00 second(s)",
            "x finished in: 1 minute(s) 2.00 second(s)!",
            "Your team would've finished in: 0 minute(s) 59.99 second(s)",
            "'x' entered and joined the game",
        ] {
            assert_eq!(parse(t), None, "{t}");
        }
    }

    #[test]
    fn lines_round_trip_every_wording() {
        for w in ChatWording::ALL {
            for (m, h) in [(0, 0), (0, 507), (25, 2838), (17, 3668), (61, 5999)] {
                let line = w.line(&["p q", "r"], m, h);
                let f = parse(&line).unwrap_or_else(|| panic!("{line}"));
                assert_eq!(f.wording, w, "{line}");
                assert_eq!(f.hundredths, i64::from(m) * 6000 + i64::from(h), "{line}");
            }
        }
        assert_eq!(
            ChatWording::Player.line(&["fakaskin"], 25, 2838),
            "fakaskin finished in: 25 minute(s) 28.38 second(s)"
        );
        assert_eq!(
            ChatWording::OwnTeam.line(&[], 0, 507),
            "Your team finished in: 0 minute(s)  5.07 second(s)"
        );
    }

    #[test]
    fn seconds_are_the_written_decimal() {
        let f = |ms| Finish {
            client_id: None,
            name: None,
            time_ms: ms,
            source: "chat",
            kind: "player",
            diff_ms: Some(-ms),
            record_personal: None,
            record_server: None,
        };
        assert_eq!(f(1_528_380).time_s(), 1528.38);
        assert_eq!(f(1_056_680).time_s(), 1056.68);
        assert_eq!(f(1_056_680).diff_s(), Some(-1056.68));
        assert_eq!(f(10).time_s(), 0.01);
    }
}
