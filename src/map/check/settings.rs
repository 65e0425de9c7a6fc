//! The settings rules: the commands DDNet runs from a map's settings
//! ([`ALLOWED_SETTINGS`]) and those its testers question.

use super::{Location, MapCheck, RuleSet, R};
use crate::map::Map;

/// Commands DDNet runs from a map's settings (registered with
/// `CFGFLAG_GAME`): its tuning and switch commands and the `sv_` settings
/// a map may set.
pub const ALLOWED_SETTINGS: &[&str] = &[
    "tune",
    "toggle_tune",
    "tune_zone",
    "tune_zone_enter",
    "tune_zone_leave",
    "mapbug",
    "switch_open",
    "sv_deepfly",
    "sv_destroy_bullets_on_death",
    "sv_destroy_lasers_on_death",
    "sv_dragger_range",
    "sv_endless_drag",
    "sv_freeze_delay",
    "sv_hit",
    "sv_max_team_size",
    "sv_min_team_size",
    "sv_no_weak_hook",
    "sv_old_laser",
    "sv_old_teleport_hook",
    "sv_old_teleport_weapons",
    "sv_pauseable",
    "sv_plasma_per_sec",
    "sv_plasma_range",
    "sv_reset_pickups",
    "sv_save_worse_scores",
    "sv_show_others_default",
    "sv_solo_server",
    "sv_team",
    "sv_teleport_hold_hook",
    "sv_teleport_lose_weapons",
];

/// Settings DDNet runs but its testers question (twmap's list), and why.
pub(crate) const IRREGULAR_SETTINGS: &[(&str, &str)] = &[
    (
        "sv_no_weak_hook",
        "undecided whether DDNet maps should use it",
    ),
    ("sv_old_laser", "enables deprecated behaviour"),
    ("sv_old_teleport_weapons", "enables deprecated behaviour"),
    ("sv_old_teleport_hook", "enables deprecated behaviour"),
    ("mapbug", "enables deprecated buggy behaviour"),
    ("sv_reset_pickups", "enables deprecated behaviour"),
    ("sv_save_worse_scores", "unusual"),
    ("sv_show_others_default", "unusual"),
    ("sv_teleport_lose_weapons", "unusual"),
    ("sv_teleport_hold_hook", "unusual"),
    ("sv_destroy_bullets_on_death", "unusual"),
    ("sv_destroy_lasers_on_death", "unusual"),
    ("sv_plasma_range", "unusual"),
    ("sv_plasma_per_sec", "unusual"),
    ("sv_dragger_range", "unusual"),
    ("sv_endless_drag", "replaced by a tile"),
    ("sv_hit", "replaced by a tile"),
];

/// The commands of a settings line: `;`-separated, comments (`#`) and
/// empty commands left out.
fn commands(line: &str) -> impl Iterator<Item = &str> {
    line.split(';')
        .map(str::trim)
        .take_while(|s| !s.starts_with('#'))
        .filter_map(|s| s.split_whitespace().next())
}

pub(super) fn check_settings(c: &mut MapCheck, rules: RuleSet, map: &Map) {
    let Some(info) = &map.info else { return };
    for (i, line) in info.settings.iter().enumerate() {
        let at = || Location {
            setting: Some(i as u32),
            ..Location::default()
        };
        for cmd in commands(line) {
            if !ALLOWED_SETTINGS.contains(&cmd) {
                if rules.has(R::SettingNotAllowed) {
                    c.add(
                        R::SettingNotAllowed,
                        format!("{cmd:?} is not a command DDNet runs from map settings"),
                        at(),
                    );
                }
            } else if let Some((_, why)) = IRREGULAR_SETTINGS.iter().find(|(s, _)| *s == cmd) {
                if rules.has(R::SettingIrregular) {
                    c.add(R::SettingIrregular, format!("{cmd:?}: {why}"), at());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_commands() {
        let got: Vec<&str> = commands("tune gravity 0.5; sv_hit 0 # x").collect();
        assert_eq!(got, ["tune", "sv_hit"]);
        assert_eq!(commands("# comment").count(), 0);
        assert_eq!(commands("  ").count(), 0);
    }
}
