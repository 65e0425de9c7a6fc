//! Byte-literal tests: each decoded kind, string edge cases, unknown ids,
//! extended messages, drifted layouts.

use super::*;
use crate::codec::snapshot::uuid::uuid_from_name;
use crate::codec::varint::pack_int;

/// A message builder: header, then fields.
struct Msg(Vec<u8>);

impl Msg {
    fn new(id: i32, system: bool) -> Msg {
        let mut v = Vec::new();
        pack_int(id << 1 | i32::from(system), &mut v);
        Msg(v)
    }
    fn ex(name: &str, system: bool) -> Msg {
        let mut m = Msg::new(0, system);
        m.0.extend_from_slice(uuid_from_name(name).as_bytes());
        m
    }
    fn int(mut self, v: i32) -> Msg {
        pack_int(v, &mut self.0);
        self
    }
    fn str(mut self, s: &[u8]) -> Msg {
        self.0.extend_from_slice(s);
        self.0.push(0);
        self
    }
    fn raw(mut self, b: &[u8]) -> Msg {
        self.0.extend_from_slice(b);
        self
    }
    /// Pads to a multiple of 4 with zeros, as the demo writer does.
    fn padded(mut self) -> Vec<u8> {
        while !self.0.len().is_multiple_of(4) {
            self.0.push(0);
        }
        self.0
    }
}

fn ok(bytes: &[u8], p: Protocol) -> (Message<'_>, Vec<MessageWarning>) {
    let mut w = Vec::new();
    let m = decode(bytes, p, &mut w).unwrap_or_else(|e| panic!("{e} in {bytes:02x?}"));
    (m, w)
}

fn err(bytes: &[u8], p: Protocol) -> MessageError {
    decode(bytes, p, &mut Vec::new()).unwrap_err()
}

#[test]
fn chat_06_from_a_real_demo() {
    // ChillerDragon 064 join_chat_walk_disconnect, tick 1528.
    let bytes = [6, 0, 0, b'h', b'e', b'l', b'l', b'o', 0, 0, 0, 0];
    let (m, w) = ok(&bytes, Protocol::V06);
    assert_eq!(m.name, Some("Sv_Chat"));
    assert!(!m.system);
    assert_eq!(m.id, MessageId::Ordinal(3));
    assert_eq!(
        m.body,
        Body::Chat(Chat {
            mode: ChatMode::All,
            raw_mode: 0,
            client_id: 0,
            target_id: None,
            text: "hello".into(),
        })
    );
    assert!(m.extra.is_empty());
    assert!(w.is_empty());
}

#[test]
fn chat_07_and_whisper() {
    let bytes = Msg::new(3, false)
        .int(3)
        .int(2)
        .int(5)
        .str(b"psst")
        .padded();
    let (m, _) = ok(&bytes, Protocol::V07);
    let Body::Chat(c) = m.body else { panic!() };
    assert_eq!(c.mode, ChatMode::Whisper);
    assert_eq!((c.client_id, c.target_id), (2, Some(5)));
    assert_eq!(c.text, "psst");
    // 0.6 DDNet whisper: team 3 = received.
    let bytes = Msg::new(3, false).int(3).int(1).str(b"hi").padded();
    let (m, _) = ok(&bytes, Protocol::V06);
    let Body::Chat(c) = m.body else { panic!() };
    assert_eq!(c.mode, ChatMode::WhisperReceived);
    // Server message: client id -1, team chat 1.
    let bytes = Msg::new(3, false).int(1).int(-1).str(b"x").padded();
    let Body::Chat(c) = ok(&bytes, Protocol::V06).0.body else {
        panic!()
    };
    assert_eq!((c.mode, c.client_id), (ChatMode::Team, -1));
}

#[test]
fn broadcast_motd_kill_emoticon() {
    let b = Msg::new(2, false).str(b"Welcome").padded();
    assert_eq!(
        ok(&b, Protocol::V06).0.body,
        Body::Broadcast {
            text: "Welcome".into()
        }
    );
    // MOTD (DDNet SANITIZE): newline and tab stay, other control bytes
    // become spaces.
    let b = Msg::new(1, false).str(b"line1\nline2\t\x07!").padded();
    let (m, w) = ok(&b, Protocol::V07);
    assert_eq!(
        m.body,
        Body::Motd {
            text: "line1\nline2\t !".into()
        }
    );
    assert_eq!(
        w,
        [MessageWarning {
            kind: MessageWarningKind::ControlCharacters,
            offset: 13
        }]
    );
    // Chat (SANITIZE_CC): the newline becomes a space.
    let b = Msg::new(3, false).int(0).int(1).str(b"a\nb").padded();
    let (m, w) = ok(&b, Protocol::V06);
    let Body::Chat(c) = m.body else { panic!() };
    assert_eq!(c.text, "a b");
    assert_eq!(
        w,
        [MessageWarning {
            kind: MessageWarningKind::ControlCharacters,
            offset: 4
        }]
    );
    // Real 0.6 bytes: killer 1, victim 1, weapon -2 (self), special 0.
    let b = [8, 1, 1, 0x41, 0, 0, 0, 0];
    assert_eq!(
        ok(&b, Protocol::V06).0.body,
        Body::KillMsg(KillMsg {
            killer: 1,
            victim: 1,
            weapon: -2,
            mode_special: 0
        })
    );
    // The 0.7 kill message is id 5 (real bytes: weapon -3, game).
    let b = [0x0a, 1, 1, 0x42, 0, 0, 0, 0];
    let (m, _) = ok(&b, Protocol::V07);
    assert_eq!(m.name, Some("Sv_KillMsg"));
    assert_eq!(
        m.body,
        Body::KillMsg(KillMsg {
            killer: 1,
            victim: 1,
            weapon: -3,
            mode_special: 0
        })
    );
    // ... and id 5 is Sv_SoundGlobal in 0.6.
    let b = [0x0a, 0x0f, 0, 0];
    assert_eq!(
        ok(&b, Protocol::V06).0.body,
        Body::SoundGlobal { sound_id: 15 }
    );
    let b = Msg::new(10, false).int(3).int(7).padded();
    assert_eq!(
        ok(&b, Protocol::V06).0.body,
        Body::Emoticon {
            client_id: 3,
            emoticon: 7
        }
    );
}

#[test]
fn client_info_07_from_a_real_demo() {
    // ChillerDragon 075 ddnet tinycave other_player_join, tick 238.
    let mut b = vec![0x24, 1, 0, 0];
    b.extend_from_slice(b"bar\0\0\x40standard\0\0\0standard\0standard\0standard\0");
    b.extend_from_slice(&[1, 1, 1, 1, 1, 1]);
    b.extend_from_slice(&[0xb4, 0xbd, 0xdb, 0x01, 0xc0, 0xfc, 0xff, 0x0f]);
    b.extend_from_slice(&[0xb4, 0xbd, 0xdb, 0x01, 0x9e, 0xd6, 0xdb, 0x01]);
    b.extend_from_slice(&[0xbe, 0x9c, 0xe4, 0x01, 0xbf, 0x03, 0, 0, 0, 0]);
    let (m, w) = ok(&b, Protocol::V07);
    assert!(w.is_empty());
    let Body::ClientInfo(ci) = m.body else {
        panic!("{m:?}")
    };
    assert_eq!((ci.client_id, ci.local, ci.team), (1, false, 0));
    assert_eq!((&*ci.name, &*ci.clan, ci.country), ("bar", "", -1));
    assert_eq!(
        ci.skin_parts.each_ref().map(|s| &**s),
        ["standard", "", "", "standard", "standard", "standard"]
    );
    assert_eq!(ci.use_custom_colors, [true; 6]);
    assert_eq!(ci.skin_part_colors[0], 1_798_004);
    assert!(!ci.silent);
}

#[test]
fn client_drop_enter_leave_07() {
    let (m, _) = ok(&[0x28, 1, 0, 0], Protocol::V07);
    assert_eq!(
        m.body,
        Body::ClientDrop {
            client_id: 1,
            reason: "".into(),
            silent: false
        }
    );
    let (m, _) = ok(b"\x2cbar\0\x01\0\0", Protocol::V07);
    assert_eq!(
        m.body,
        Body::ClientEnter {
            name: "bar".into(),
            client_id: 1,
            team: 0
        }
    );
    let (m, _) = ok(b"\x2efoo\0\0\0\0", Protocol::V07);
    assert_eq!(
        m.body,
        Body::ClientLeave {
            name: "foo".into(),
            client_id: 0,
            reason: "".into()
        }
    );
}

#[test]
fn ddnet_ex_messages() {
    // Real: Sv_Record with two zeros and one padding byte.
    let mut b = vec![0];
    b.extend_from_slice(&[
        0x80, 0x4f, 0x14, 0x9f, 0x9b, 0x53, 0x3b, 0x0a, 0x89, 0x7f, 0x59, 0x66, 0x3a, 0x1c, 0x4e,
        0xb9,
    ]);
    b.extend_from_slice(&[0, 0, 0]);
    let (m, w) = ok(&b, Protocol::V06);
    assert_eq!(m.name, Some("Sv_Record"));
    assert_eq!(
        m.id,
        MessageId::Ex(uuid_from_name("record@netmsg.ddnet.tw"))
    );
    assert_eq!(m.body_offset, 17);
    assert_eq!(
        m.body,
        Body::Record {
            server_time_best: 0,
            player_time_best: 0
        }
    );
    assert!(w.is_empty());

    let b = Msg::ex("racefinish@netmsg.ddnet.org", false)
        .int(4)
        .int(123_456)
        .int(-250)
        .int(1)
        .int(1)
        .padded();
    assert_eq!(
        ok(&b, Protocol::V06).0.body,
        Body::RaceFinish {
            client_id: 4,
            time: 123_456,
            diff: -250,
            record_personal: true,
            record_server: Some(true)
        }
    );
    // Older senders stop before m_RecordServer.
    let b = Msg::ex("racefinish@netmsg.ddnet.org", false)
        .int(4)
        .int(1000)
        .int(0)
        .int(0)
        .0;
    let Body::RaceFinish { record_server, .. } = ok(&b, Protocol::V06).0.body else {
        panic!()
    };
    assert_eq!(record_server, None);

    let b = Msg::ex("ddrace-time@netmsg.ddnet.tw", false)
        .int(6000)
        .int(-12)
        .int(1)
        .padded();
    assert_eq!(
        ok(&b, Protocol::V06).0.body,
        Body::DdraceTime {
            time: 6000,
            check: -12,
            finish: 1
        }
    );
    let b = Msg::ex("killmsgteam@netmsg.ddnet.tw", false)
        .int(7)
        .int(2)
        .padded();
    let (m, _) = ok(&b, Protocol::V06);
    assert_eq!(m.name, Some("Sv_KillMsgTeam"));
    assert_eq!(m.body, Body::KillMsgTeam { team: 7, first: 2 });
}

#[test]
fn ex_unknown_uuid_and_truncated_uuid() {
    let b = Msg::ex("nothing@example.org", false)
        .int(5)
        .str(b"x")
        .padded();
    let (m, w) = ok(&b, Protocol::V06);
    assert_eq!(m.name, None);
    assert_eq!(m.id, MessageId::Ex(uuid_from_name("nothing@example.org")));
    assert_eq!(m.body, Body::Raw(&b[17..]));
    assert!(w.is_empty());
    // 10 of 16 UUID bytes.
    assert_eq!(
        err(&b[..11], Protocol::V06),
        MessageError {
            kind: MessageErrorKind::UnexpectedEnd,
            offset: 1
        }
    );
}

#[test]
fn unknown_ids_are_kept() {
    let b = Msg::new(99, false).int(1).int(2).0;
    let (m, _) = ok(&b, Protocol::V06);
    assert_eq!((m.name, m.id), (None, MessageId::Ordinal(99)));
    assert_eq!(m.body, Body::Raw(&[1, 2]));
    // Known id, fields not decoded here.
    let b = Msg::new(6, false).int(1).int(2).0;
    let (m, _) = ok(&b, Protocol::V06);
    assert_eq!(m.name, Some("Sv_TuneParams"));
    assert_eq!(m.body, Body::Raw(&[1, 2]));
    // System id 4: CON_READY in 0.6, SERVERINFO in 0.7.
    let b = Msg::new(4, true).0;
    assert_eq!(ok(&b, Protocol::V06).0.name, Some("CON_READY"));
    assert_eq!(ok(&b, Protocol::V07).0.name, Some("SERVERINFO"));
}

#[test]
fn map_change_06_07_and_details() {
    let b = Msg::new(2, true)
        .str(b"Multeasymap")
        .int(0x1234_5678)
        .int(98765)
        .padded();
    let (m, w) = ok(&b, Protocol::V06);
    assert_eq!(m.space(), "system");
    assert_eq!(
        m.body,
        Body::MapChange(MapChange {
            name: "Multeasymap".into(),
            crc: 0x1234_5678,
            size: 98765,
            chunk_num: None,
            chunk_size: None,
            sha256: None
        })
    );
    assert!(w.is_empty());
    let sha = [0xab; 32];
    let b = Msg::new(2, true)
        .str(b"dm1")
        .int(-5)
        .int(5000)
        .int(8)
        .int(896)
        .raw(&sha)
        .padded();
    let Body::MapChange(mc) = ok(&b, Protocol::V07).0.body else {
        panic!()
    };
    assert_eq!(mc.crc, (-5i32) as u32);
    assert_eq!(
        (mc.chunk_num, mc.chunk_size, mc.sha256),
        (Some(8), Some(896), Some(sha))
    );
    let b = Msg::ex("map-details@ddnet.tw", true)
        .str(b"Kobra")
        .raw(&sha)
        .int(77)
        .int(1024)
        .str(b"https://maps.example/Kobra.map")
        .padded();
    let (m, _) = ok(&b, Protocol::V06);
    assert_eq!(m.name, Some("MAP_DETAILS"));
    let Body::MapDetails(d) = m.body else {
        panic!()
    };
    assert_eq!((&*d.name, d.crc, d.size), ("Kobra", 77, 1024));
    assert_eq!(d.url.as_deref(), Some("https://maps.example/Kobra.map"));
}

#[test]
fn drifted_layouts_keep_the_rest() {
    // A kill message with two extra ints: decoded as far as known.
    let b = Msg::new(4, false)
        .int(1)
        .int(2)
        .int(3)
        .int(0)
        .int(77)
        .int(-1)
        .0;
    let (m, w) = ok(&b, Protocol::V06);
    assert!(matches!(m.body, Body::KillMsg(KillMsg { weapon: 3, .. })));
    assert_eq!(m.extra, &[77 - 64 + 0x80, 1, 0x40][..]);
    assert_eq!(
        w,
        [MessageWarning {
            kind: MessageWarningKind::TrailingBytes,
            offset: 5
        }]
    );
    // Four zero bytes are more than padding: kept.
    let mut b = Msg::new(10, false).int(1).int(1).0;
    b.extend_from_slice(&[0, 0, 0, 0]);
    let (m, w) = ok(&b, Protocol::V06);
    assert_eq!(m.extra, &[0, 0, 0, 0]);
    assert_eq!(w.len(), 1);
}

#[test]
fn truncated_and_bad_strings() {
    // String without NUL.
    let b = Msg::new(2, false).raw(b"abc").0;
    assert_eq!(
        err(&b, Protocol::V06),
        MessageError {
            kind: MessageErrorKind::UnterminatedString,
            offset: 1
        }
    );
    // Chat cut before the text.
    let b = Msg::new(3, false).int(0).int(5).0;
    assert_eq!(
        err(&b, Protocol::V06),
        MessageError {
            kind: MessageErrorKind::UnexpectedEnd,
            offset: 3
        }
    );
    // An int cut inside: extend bit set on the last byte.
    let b = [8, 1, 0x80];
    assert_eq!(
        err(&b, Protocol::V06),
        MessageError {
            kind: MessageErrorKind::UnexpectedEnd,
            offset: 2
        }
    );
    // Over-long string: MAX_STRING_LEN + 1 bytes before the NUL.
    let long = vec![b'a'; MAX_STRING_LEN + 1];
    let b = Msg::new(2, false).str(&long).0;
    assert_eq!(
        err(&b, Protocol::V06),
        MessageError {
            kind: MessageErrorKind::StringTooLong,
            offset: 1
        }
    );
    // Exactly at the limit is fine.
    let b = Msg::new(2, false).str(&long[1..]).0;
    assert!(
        matches!(ok(&b, Protocol::V06).0.body, Body::Broadcast { text } if text.len() == MAX_STRING_LEN)
    );
    // Invalid UTF-8 becomes U+FFFD with a warning at its offset.
    let b = Msg::new(2, false).str(b"a\xffb").0;
    let (m, w) = ok(&b, Protocol::V06);
    assert_eq!(
        m.body,
        Body::Broadcast {
            text: "a\u{fffd}b".into()
        }
    );
    assert_eq!(
        w,
        [MessageWarning {
            kind: MessageWarningKind::InvalidUtf8,
            offset: 2
        }]
    );
}

#[test]
fn header_errors() {
    assert_eq!(
        err(&[], Protocol::V06),
        MessageError {
            kind: MessageErrorKind::Empty,
            offset: 0
        }
    );
    assert_eq!(
        err(&[0x40], Protocol::V06).kind,
        MessageErrorKind::NegativeHeader
    );
    assert_eq!(
        err(&[0x80], Protocol::V06).kind,
        MessageErrorKind::UnexpectedEnd
    );
}

#[test]
fn ex_names_are_unique_and_v3() {
    let all = ex_messages();
    for (i, a) in all.iter().enumerate() {
        assert_eq!(a.uuid.get_version_num(), 3, "{}", a.uuid_name);
        for b in &all[i + 1..] {
            assert_ne!(a.uuid, b.uuid);
            assert_ne!(a.name, b.name);
        }
    }
    assert_eq!(
        lookup_ex(&uuid_from_name("ddrace-time@netmsg.ddnet.tw")).map(|m| m.name),
        Some("Sv_DDRaceTime")
    );
}

#[test]
fn message_bytes_are_little_endian_ints() {
    let mut out = Vec::new();
    message_bytes(&[0x6c6c_6568, 0x6f], &mut out);
    assert_eq!(out, b"hello\0\0\0");
}

#[test]
fn ex_messages_only_in_their_own_space() {
    // Sv_Record sent with the system flag: unknown, like in DDNet.
    let b = Msg::ex("record@netmsg.ddnet.tw", true).int(1).int(2).0;
    let (m, _) = ok(&b, Protocol::V06);
    assert_eq!(m.name, None);
    assert_eq!(m.body, Body::Raw(&[1, 2]));
    // MAP_DETAILS sent as a game message: unknown too.
    let b = Msg::ex("map-details@ddnet.tw", false).0;
    assert_eq!(ok(&b, Protocol::V06).0.name, None);
}

#[test]
fn team_settings_gamemsg_votes_race_07() {
    let b = Msg::new(4, false).int(2).int(-1).int(1).int(5000).padded();
    assert_eq!(
        ok(&b, Protocol::V07).0.body,
        Body::Team {
            client_id: 2,
            team: -1,
            silent: true,
            cooldown_tick: 5000
        }
    );
    let b = Msg::new(17, false)
        .int(1)
        .int(2)
        .int(0)
        .int(1)
        .int(1)
        .int(16)
        .padded();
    assert_eq!(
        ok(&b, Protocol::V07).0.body,
        Body::ServerSettings {
            kick_vote: true,
            kick_min: 2,
            spec_vote: false,
            team_lock: true,
            team_balance: true,
            player_slots: 16
        }
    );
    // Sv_GameMsg keeps its parameters packed, with no trailing warning.
    let b = Msg::new(21, false).int(3).int(1).int(7).0;
    let (m, w) = ok(&b, Protocol::V07);
    assert_eq!(
        m.body,
        Body::GameMsg {
            game_msg_id: 3,
            params: &[1, 7]
        }
    );
    assert!(w.is_empty() && m.extra.is_empty());
    let b = Msg::new(16, false).int(3).int(1).int(2).int(6).padded();
    assert_eq!(
        ok(&b, Protocol::V06).0.body,
        Body::VoteStatus {
            yes: 3,
            no: 1,
            pass: 2,
            total: 6
        }
    );
    // 0.7 has race messages as ordinals.
    let b = Msg::new(35, false)
        .int(1)
        .int(65_432)
        .int(-7)
        .int(0)
        .padded();
    let (m, _) = ok(&b, Protocol::V07);
    assert_eq!(m.name, Some("Sv_RaceFinish"));
    assert_eq!(
        m.body,
        Body::RaceFinish {
            client_id: 1,
            time: 65_432,
            diff: -7,
            record_personal: false,
            // 8 bytes: no padding, no m_RecordServer.
            record_server: None
        }
    );
    let b = Msg::new(36, false).int(-150).padded();
    assert_eq!(
        ok(&b, Protocol::V07).0.body,
        Body::Checkpoint { diff: -150 }
    );
    // Id 35 is unknown in 0.6.
    assert_eq!(ok(&b, Protocol::V06).0.name, None);
}

#[test]
fn overlong_header_int_warns() {
    // Header 6 (Sv_Chat) written in two bytes.
    let b = [0x86, 0x00, 0, 0, b'x', 0];
    let (m, w) = ok(&b, Protocol::V06);
    assert_eq!(m.name, Some("Sv_Chat"));
    assert_eq!(
        w,
        [MessageWarning {
            kind: MessageWarningKind::OverlongInt,
            offset: 0
        }]
    );
}

#[test]
fn payload_round_trip() {
    // Message bytes → ints → varints → Huffman, and back.
    let msg = Msg::new(3, false).int(0).int(2).str(b"gg").padded();
    let ints: Vec<i32> = msg
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut packed = Vec::new();
    crate::codec::varint::pack(&ints, &mut packed);
    let mut payload = Vec::new();
    crate::codec::huffman::compress(&packed, &mut payload);
    let mut buf = MessageBuffer::new();
    assert_eq!(buf.unpack(&payload).unwrap(), &msg[..]);
    let Body::Chat(c) = ok(&msg, Protocol::V06).0.body else {
        panic!()
    };
    assert_eq!((c.client_id, &*c.text), (2, "gg"));
}

/// [`BODIES`](body::BODIES) lists exactly the messages `decode_body`
/// reads a body for: every message of the tables (ordinal and extended)
/// fails on an empty body when it is listed (every listed body starts with
/// a field) and is raw when it is not.
#[test]
fn body_names_are_the_decoded_ones() {
    let mut msgs: Vec<(Protocol, NetMsg)> = Vec::new();
    for protocol in [Protocol::V06, Protocol::V07] {
        for system in [false, true] {
            for i in 1..64 {
                if let Some(m) = known_message(protocol, system, MessageId::Ordinal(i)) {
                    msgs.push((protocol, m));
                }
            }
        }
        msgs.extend(ex_messages().iter().map(|m| (protocol, m.msg)));
    }
    for &(protocol, msg) in &msgs {
        let mut w = Vec::new();
        let mut u = Unpacker::new(&[], 0, &mut w);
        let raw = matches!(body::decode_body(msg, protocol, &mut u), Ok(Body::Raw(_)));
        assert_eq!(!raw, body::BODIES.contains(&msg), "{protocol:?} {msg:?}");
    }
    for listed in body::BODIES {
        assert!(msgs.iter().any(|&(_, m)| m == listed), "{listed:?}");
    }
}

/// The table of messages with a body says what the list says.
#[test]
fn has_body_follows_the_names() {
    for &m in NetMsg::ALL {
        assert_eq!(body::has_body(m), body::BODIES.contains(&m), "{m:?}");
    }
}

/// Every message round-trips name <-> message, ordinal id <-> message in
/// each protocol, and UUID <-> message; names and UUID names are unique.
#[test]
fn message_table_round_trips() {
    for &m in NetMsg::ALL {
        assert_eq!(NetMsg::from_name(m.name()), Some(m), "{m:?}");
        for protocol in [Protocol::V06, Protocol::V07] {
            if let Some(id) = m.ordinal(protocol) {
                assert_ne!(id, 0, "{m:?}");
                assert_eq!(NetMsg::of_ordinal(protocol, m.system(), id), Some(m));
                assert_eq!(
                    known_message(protocol, m.system(), MessageId::Ordinal(id)),
                    Some(m)
                );
            }
            if let Some(u) = m.uuid_name() {
                let uuid = uuid_from_name(u);
                assert_eq!(
                    known_message(protocol, m.system(), MessageId::Ex(uuid)),
                    Some(m)
                );
                assert_eq!(
                    known_message(protocol, !m.system(), MessageId::Ex(uuid)),
                    None
                );
            }
        }
        assert!(
            m.ordinal(Protocol::V06).is_some()
                || m.ordinal(Protocol::V07).is_some()
                || m.uuid_name().is_some(),
            "{m:?} has no id"
        );
    }
    let mut names: Vec<_> = NetMsg::ALL.iter().map(|m| m.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), NetMsg::ALL.len());
    assert_eq!(NetMsg::from_name("NO_SUCH_MESSAGE"), None);
    for protocol in [Protocol::V06, Protocol::V07] {
        for system in [false, true] {
            assert_eq!(NetMsg::of_ordinal(protocol, system, 0), None);
            assert_eq!(NetMsg::of_ordinal(protocol, system, 1000), None);
        }
    }
}

/// The message table gives the id -> name tables and the extended
/// messages that were written out by position before it (golden lists).
#[test]
fn message_table_matches_the_position_lists() {
    for (protocol, system, old) in [
        (Protocol::V06, true, &OLD_SYSTEM_06[..]),
        (Protocol::V07, true, &OLD_SYSTEM_07[..]),
        (Protocol::V06, false, &OLD_GAME_06[..]),
        (Protocol::V07, false, &OLD_GAME_07[..]),
    ] {
        for id in 0..80u32 {
            let want = old.get(id as usize).copied().filter(|_| id != 0);
            let got = message_name(protocol, system, MessageId::Ordinal(id));
            assert_eq!(got, want, "{protocol:?} system {system} id {id}");
        }
    }
    let ex: Vec<_> = ex_messages()
        .iter()
        .map(|m| (m.uuid_name, m.name, m.system))
        .collect();
    let mut want = OLD_EX_NAMES.to_vec();
    let mut got = ex.clone();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want);
}

const OLD_SYSTEM_06: [&str; 27] = [
    "EX",
    "INFO",
    "MAP_CHANGE",
    "MAP_DATA",
    "CON_READY",
    "SNAP",
    "SNAPEMPTY",
    "SNAPSINGLE",
    "SNAPSMALL",
    "INPUTTIMING",
    "RCON_AUTH_STATUS",
    "RCON_LINE",
    "AUTH_CHALLENGE",
    "AUTH_RESULT",
    "READY",
    "ENTERGAME",
    "INPUT",
    "RCON_CMD",
    "RCON_AUTH",
    "REQUEST_MAP_DATA",
    "AUTH_START",
    "AUTH_RESPONSE",
    "PING",
    "PING_REPLY",
    "ERROR",
    "RCON_CMD_ADD",
    "RCON_CMD_REM",
];

const OLD_SYSTEM_07: [&str; 31] = [
    "NULL",
    "INFO",
    "MAP_CHANGE",
    "MAP_DATA",
    "SERVERINFO",
    "CON_READY",
    "SNAP",
    "SNAPEMPTY",
    "SNAPSINGLE",
    "SNAPSMALL",
    "INPUTTIMING",
    "RCON_AUTH_ON",
    "RCON_AUTH_OFF",
    "RCON_LINE",
    "RCON_CMD_ADD",
    "RCON_CMD_REM",
    "AUTH_CHALLENGE",
    "AUTH_RESULT",
    "READY",
    "ENTERGAME",
    "INPUT",
    "RCON_CMD",
    "RCON_AUTH",
    "REQUEST_MAP_DATA",
    "AUTH_START",
    "AUTH_RESPONSE",
    "PING",
    "PING_REPLY",
    "ERROR",
    "MAPLIST_ENTRY_ADD",
    "MAPLIST_ENTRY_REM",
];

const OLD_GAME_06: [&str; 32] = [
    "",
    "Sv_Motd",
    "Sv_Broadcast",
    "Sv_Chat",
    "Sv_KillMsg",
    "Sv_SoundGlobal",
    "Sv_TuneParams",
    "Sv_ExtraProjectile",
    "Sv_ReadyToEnter",
    "Sv_WeaponPickup",
    "Sv_Emoticon",
    "Sv_VoteClearOptions",
    "Sv_VoteOptionListAdd",
    "Sv_VoteOptionAdd",
    "Sv_VoteOptionRemove",
    "Sv_VoteSet",
    "Sv_VoteStatus",
    "Cl_Say",
    "Cl_SetTeam",
    "Cl_SetSpectatorMode",
    "Cl_StartInfo",
    "Cl_ChangeInfo",
    "Cl_Kill",
    "Cl_Emoticon",
    "Cl_Vote",
    "Cl_CallVote",
    "Cl_IsDDNetLegacy",
    "Sv_DDRaceTimeLegacy",
    "Sv_RecordLegacy",
    "Unused2",
    "Sv_TeamsStateLegacy",
    "Cl_ShowOthersLegacy",
];

const OLD_GAME_07: [&str; 40] = [
    "",
    "Sv_Motd",
    "Sv_Broadcast",
    "Sv_Chat",
    "Sv_Team",
    "Sv_KillMsg",
    "Sv_TuneParams",
    "Sv_ExtraProjectile",
    "Sv_ReadyToEnter",
    "Sv_WeaponPickup",
    "Sv_Emoticon",
    "Sv_VoteClearOptions",
    "Sv_VoteOptionListAdd",
    "Sv_VoteOptionAdd",
    "Sv_VoteOptionRemove",
    "Sv_VoteSet",
    "Sv_VoteStatus",
    "Sv_ServerSettings",
    "Sv_ClientInfo",
    "Sv_GameInfo",
    "Sv_ClientDrop",
    "Sv_GameMsg",
    "De_ClientEnter",
    "De_ClientLeave",
    "Cl_Say",
    "Cl_SetTeam",
    "Cl_SetSpectatorMode",
    "Cl_StartInfo",
    "Cl_Kill",
    "Cl_ReadyChange",
    "Cl_Emoticon",
    "Cl_Vote",
    "Cl_CallVote",
    "Sv_SkinChange",
    "Cl_SkinChange",
    "Sv_RaceFinish",
    "Sv_Checkpoint",
    "Sv_CommandInfo",
    "Sv_CommandInfoRemove",
    "Cl_Command",
];

const OLD_EX_NAMES: [(&str, &str, bool); 45] = [
    // protocol_ex_msgs.h (system)
    ("what-is@ddnet.tw", "WHATIS", true),
    ("it-is@ddnet.tw", "ITIS", true),
    ("i-dont-know@ddnet.tw", "IDONTKNOW", true),
    ("rcon-type@ddnet.tw", "RCONTYPE", true),
    ("map-details@ddnet.tw", "MAP_DETAILS", true),
    ("capabilities@ddnet.tw", "CAPABILITIES", true),
    ("iamtater@sjrc6.github.io", "IAMTATER", true),
    ("clientver@ddnet.tw", "CLIENTVER", true),
    ("ping@ddnet.tw", "PINGEX", true),
    ("pong@ddnet.tw", "PONGEX", true),
    ("checksum-request@ddnet.tw", "CHECKSUM_REQUEST", true),
    ("checksum-response@ddnet.tw", "CHECKSUM_RESPONSE", true),
    ("checksum-error@ddnet.tw", "CHECKSUM_ERROR", true),
    ("redirect@ddnet.org", "REDIRECT", true),
    (
        "rcon-cmd-group-start@ddnet.org",
        "RCON_CMD_GROUP_START",
        true,
    ),
    ("rcon-cmd-group-end@ddnet.org", "RCON_CMD_GROUP_END", true),
    ("map-reload@ddnet.org", "MAP_RELOAD", true),
    ("reconnect@ddnet.org", "RECONNECT", true),
    ("sv-maplist-add@ddnet.org", "MAPLIST_ADD", true),
    ("sv-maplist-start@ddnet.org", "MAPLIST_GROUP_START", true),
    ("sv-maplist-end@ddnet.org", "MAPLIST_GROUP_END", true),
    // datasrc/network.py (game)
    ("my-own-message@heinrich5991.de", "Sv_MyOwnMessage", false),
    ("show-distance@netmsg.ddnet.tw", "Cl_ShowDistance", false),
    ("showothers@netmsg.ddnet.tw", "Cl_ShowOthers", false),
    ("camera-info@netmsg.ddnet.org", "Cl_CameraInfo", false),
    ("teamsstate@netmsg.ddnet.tw", "Sv_TeamsState", false),
    ("ddrace-time@netmsg.ddnet.tw", "Sv_DDRaceTime", false),
    ("record@netmsg.ddnet.tw", "Sv_Record", false),
    ("killmsgteam@netmsg.ddnet.tw", "Sv_KillMsgTeam", false),
    ("yourvote@netmsg.ddnet.org", "Sv_YourVote", false),
    ("racefinish@netmsg.ddnet.org", "Sv_RaceFinish", false),
    ("commandinfo@netmsg.ddnet.org", "Sv_CommandInfo", false),
    (
        "commandinfo-remove@netmsg.ddnet.org",
        "Sv_CommandInfoRemove",
        false,
    ),
    (
        "sv-vote-option-group-start@netmsg.ddnet.org",
        "Sv_VoteOptionGroupStart",
        false,
    ),
    (
        "sv-vote-option-group-end@netmsg.ddnet.org",
        "Sv_VoteOptionGroupEnd",
        false,
    ),
    (
        "sv-commandinfo-group-start@netmsg.ddnet.org",
        "Sv_CommandInfoGroupStart",
        false,
    ),
    (
        "sv-commandinfo-group-end@netmsg.ddnet.org",
        "Sv_CommandInfoGroupEnd",
        false,
    ),
    (
        "change-info-cooldown@netmsg.ddnet.org",
        "Sv_ChangeInfoCooldown",
        false,
    ),
    (
        "map-sound-global@netmsg.ddnet.org",
        "Sv_MapSoundGlobal",
        false,
    ),
    ("preinput@netmsg.ddnet.org", "Sv_PreInput", false),
    ("save-code@netmsg.ddnet.org", "Sv_SaveCode", false),
    ("server-alert@netmsg.ddnet.org", "Sv_ServerAlert", false),
    (
        "moderator-alert@netmsg.ddnet.org",
        "Sv_ModeratorAlert",
        false,
    ),
    (
        "enable-spectator-count@netmsg.ddnet.org",
        "Cl_EnableSpectatorCount",
        false,
    ),
    ("map-info@netmsg.ddnet.org", "Sv_MapInfo", false),
];
