//! The tick bounds of `--from`/`--to` (`demos export`, `demos heatmap`):
//! an absolute server tick, or a time since the demo's first tick, resolved
//! per demo.
//!
//! Forms ([`TickBound::parse`]):
//!
//! | text | bound |
//! |---|---|
//! | `2674626`, `-1` | absolute server tick (as `demos dump --ticks` lists them) |
//! | `+4500` | 4500 ticks after the demo's first tick (`demo_tick` 4500) |
//! | `90s`, `1.5s` | seconds since the demo's first tick (`time_s`), 50 ticks per second |
//! | `1:30`, `1:30.5` | minutes:seconds since the demo's first tick |
//!
//! A time must be a whole number of ticks (a multiple of 0.02 s): `0.01s`
//! is refused rather than rounded either way.

use crate::demo::TICKS_PER_SECOND;
use std::fmt;

/// One end of a tick range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TickBound {
    /// An absolute server tick.
    Absolute(i32),
    /// Ticks since the demo's first tick (its `demo_tick`).
    DemoTick(i32),
}

impl TickBound {
    /// No lower bound.
    pub const START: TickBound = TickBound::Absolute(i32::MIN);
    /// No upper bound.
    pub const END: TickBound = TickBound::Absolute(i32::MAX);

    /// The absolute tick of this bound in a demo whose first tick is
    /// `first_tick` (saturating at the ends of `i32`).
    pub fn resolve(self, first_tick: i32) -> i32 {
        match self {
            TickBound::Absolute(t) => t,
            TickBound::DemoTick(d) => first_tick.saturating_add(d),
        }
    }

    /// Reads a bound in one of the forms of the module docs.
    pub fn parse(text: &str) -> Result<TickBound, String> {
        let s = text.trim();
        let bad = |why: &str| format!("{text:?}: {why}");
        if let Some(rest) = s.strip_prefix('+') {
            return digits(rest)
                .and_then(|d| d.parse::<i32>().ok())
                .map(TickBound::DemoTick)
                .ok_or_else(|| bad("`+TICKS` takes a whole number of ticks up to 2147483647"));
        }
        if let Some(secs) = s.strip_suffix('s') {
            return seconds(secs, &bad).map(TickBound::DemoTick);
        }
        if let Some((m, secs)) = s.split_once(':') {
            let minutes = digits(m)
                .and_then(|m| m.parse::<i64>().ok())
                .ok_or_else(|| bad("`M:SS` takes whole minutes before the colon"))?;
            let ticks = seconds(secs, &bad)?;
            if secs.split('.').next().is_none_or(|w| w.len() != 2) || ticks >= 60 * TICKS_PER_SECOND
            {
                return Err(bad(
                    "`M:SS` takes two digits of seconds below 60 after the colon",
                ));
            }
            return minutes
                .checked_mul(i64::from(60 * TICKS_PER_SECOND))
                .and_then(|t| t.checked_add(i64::from(ticks)))
                .and_then(|t| i32::try_from(t).ok())
                .map(TickBound::DemoTick)
                .ok_or_else(|| bad("too far from the demo's start"));
        }
        s.parse::<i32>().map(TickBound::Absolute).map_err(|_| {
            bad(
                "not a tick: an absolute server tick (2674626), ticks since the demo's \
                 start (+4500), seconds (90s, 1.5s) or minutes:seconds (1:30)",
            )
        })
    }
}

impl std::str::FromStr for TickBound {
    type Err = String;

    fn from_str(s: &str) -> Result<TickBound, String> {
        TickBound::parse(s)
    }
}

impl fmt::Display for TickBound {
    /// `2674626` or `+4500` (a time is shown as its ticks).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TickBound::Absolute(t) => write!(f, "{t}"),
            TickBound::DemoTick(d) => write!(f, "+{d}"),
        }
    }
}

/// `s` if it is one or more ASCII digits.
fn digits(s: &str) -> Option<&str> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then_some(s)
}

/// `SECONDS[.FRACTION]` as a whole number of ticks.
fn seconds(s: &str, bad: &dyn Fn(&str) -> String) -> Result<i32, String> {
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    let form = "seconds are digits with an optional fraction (90s, 1.5s)";
    let whole = digits(whole).ok_or_else(|| bad(form))?;
    if s.contains('.') && digits(frac).is_none() {
        return Err(bad(form));
    }
    // Exact: the fraction as a numerator over 10^len (trailing zeros cut,
    // so any number of them is fine).
    let frac = frac.trim_end_matches('0');
    if frac.len() > 2 {
        return Err(bad("not a whole number of ticks (a tick is 0.02 s)"));
    }
    let num: i64 = if frac.is_empty() {
        0
    } else {
        frac.parse().map_err(|_| bad(form))?
    };
    let den = 10i64.pow(frac.len() as u32);
    let tps = i64::from(TICKS_PER_SECOND);
    if (num * tps) % den != 0 {
        return Err(bad("not a whole number of ticks (a tick is 0.02 s)"));
    }
    whole
        .parse::<i64>()
        .ok()
        .and_then(|w| w.checked_mul(tps))
        .and_then(|t| t.checked_add(num * tps / den))
        .and_then(|t| i32::try_from(t).ok())
        .ok_or_else(|| bad("too far from the demo's start"))
}

/// Refuses a range whose `from` is after its `to` when both are of the
/// same kind (then every demo would be empty); bounds of different kinds
/// are checked per demo ([`resolve_range`]).
pub fn check_order(from: TickBound, to: TickBound) -> Result<(), String> {
    let after = match (from, to) {
        (TickBound::Absolute(f), TickBound::Absolute(t))
        | (TickBound::DemoTick(f), TickBound::DemoTick(t)) => f > t,
        _ => false,
    };
    if after {
        return Err(format!(
            "--from {from} is after --to {to}: the range holds no tick"
        ));
    }
    Ok(())
}

/// The absolute ticks `from..=to` of a demo whose first tick is
/// `first_tick`, or the message of a range that holds no tick of it
/// (`from` after `to` once resolved).
pub fn resolve_range(
    from: TickBound,
    to: TickBound,
    first_tick: i32,
) -> Result<(i32, i32), String> {
    let (f, t) = (from.resolve(first_tick), to.resolve(first_tick));
    if f > t {
        return Err(format!(
            "--from {from} (tick {f}) is after --to {to} (tick {t}) for this demo \
             (first tick {first_tick}): the range holds no tick"
        ));
    }
    Ok((f, t))
}

#[cfg(test)]
mod tests {
    use super::TickBound::{Absolute, DemoTick};
    use super::*;

    #[test]
    fn forms() {
        let ok = |s: &str| TickBound::parse(s).unwrap();
        assert_eq!(ok("2674626"), Absolute(2_674_626));
        assert_eq!(ok("-1"), Absolute(-1));
        assert_eq!(ok("0"), Absolute(0));
        assert_eq!(ok("+4500"), DemoTick(4500));
        assert_eq!(ok("+0"), DemoTick(0));
        assert_eq!(ok("90s"), DemoTick(4500));
        assert_eq!(ok("1.5s"), DemoTick(75));
        assert_eq!(ok("0.02s"), DemoTick(1));
        assert_eq!(ok("0.10s"), DemoTick(5));
        assert_eq!(ok("2.500000s"), DemoTick(125));
        assert_eq!(ok("1:30"), DemoTick(4500));
        assert_eq!(ok("0:00"), DemoTick(0));
        assert_eq!(ok("90:00"), DemoTick(270_000));
        assert_eq!(ok("1:30.5"), DemoTick(4525));
        assert_eq!(ok("+2147483647"), DemoTick(i32::MAX));
        for bad in [
            "",
            "+",
            "+-5",
            "+1.5",
            "s",
            "-5s",
            "1.s",
            ".5s",
            "0.01s",
            "0.001s",
            "1e3s",
            "1:3",
            "1:60",
            "1:99",
            ":30",
            "1:",
            "a",
            "1:30s",
            "99999999999s",
            "+2147483648",
            "2147483648",
            "12:3:4",
            "45000000:00",
        ] {
            assert!(TickBound::parse(bad).is_err(), "{bad:?} accepted");
        }
        assert!(TickBound::parse("0.01s").unwrap_err().contains("0.02 s"));
    }

    #[test]
    fn resolved_per_demo() {
        assert_eq!(DemoTick(4500).resolve(2_674_626), 2_679_126);
        assert_eq!(Absolute(7).resolve(2_674_626), 7);
        assert_eq!(DemoTick(i32::MAX).resolve(5), i32::MAX);
        assert_eq!(TickBound::START.resolve(9), i32::MIN);
        assert_eq!(
            resolve_range(DemoTick(4500), DemoTick(5000), 100),
            Ok((4600, 5100))
        );
        assert_eq!(
            resolve_range(Absolute(500), DemoTick(100), 1000),
            Ok((500, 1100))
        );
        let e = resolve_range(Absolute(1200), DemoTick(100), 1000).unwrap_err();
        assert!(
            e.contains("--to +100 (tick 1100)") && e.contains("first tick 1000"),
            "{e}"
        );
    }

    #[test]
    fn same_kinds_are_ordered() {
        assert!(check_order(Absolute(5), Absolute(4)).is_err());
        assert!(check_order(DemoTick(5), DemoTick(4)).is_err());
        assert_eq!(
            check_order(DemoTick(5), DemoTick(4)).unwrap_err(),
            "--from +5 is after --to +4: the range holds no tick"
        );
        assert!(check_order(Absolute(5), Absolute(5)).is_ok());
        // Different kinds: per demo.
        assert!(check_order(Absolute(5_000_000), DemoTick(4)).is_ok());
    }
}
