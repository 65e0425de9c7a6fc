//! A run against a saved one (`--compare NAME|FILE`): each figure's
//! change and whether it is beyond the noise of the two runs.

use super::Figure;
use serde::Serialize;
use std::fmt;
use std::path::PathBuf;

/// Where `--save NAME` keeps a run and `--compare NAME` finds it: a NAME
/// ending in `.json` or holding a `/` is a path; any other is
/// `.teebatch-bench/NAME.json` in the current directory.
pub(crate) fn saved_path(name: &str) -> PathBuf {
    if name.ends_with(".json") || name.contains('/') {
        PathBuf::from(name)
    } else {
        PathBuf::from(".teebatch-bench").join(format!("{name}.json"))
    }
}

/// The change of one figure against a saved run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub measurement: String,
    pub tier: Option<String>,
    /// The saved and the new median, MB/s.
    pub before: Option<f64>,
    pub after: Option<f64>,
    /// `after / before − 1`.
    pub change: Option<f64>,
    /// The relative change under which the two are the same: 2 %, or the
    /// larger half-spread (max − min) / (2 × median) of the two runs.
    pub noise: Option<f64>,
    /// `no change`, `improved`, `regressed`, `new` (not in the saved run)
    /// or `gone` (only in the saved run).
    pub verdict: &'static str,
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match &self.tier {
            Some(t) => format!("{} [{t}]", self.measurement),
            None => self.measurement.clone(),
        };
        match (self.before, self.after, self.change, self.noise) {
            (Some(b), Some(a), Some(c), Some(n)) => write!(
                f,
                "  {name:<60} {b:>10.1} -> {a:>10.1} MB/s {:>+7.1} % (noise ±{:.1} %): {}",
                c * 100.0,
                n * 100.0,
                self.verdict
            ),
            _ => write!(f, "  {name:<60} {}", self.verdict),
        }
    }
}

/// Relative half-spread of a figure: (max − min) / (2 × median).
fn half_spread(median: f64, min: f64, max: f64) -> f64 {
    if median > 0.0 {
        (max - min).abs() / (2.0 * median)
    } else {
        0.0
    }
}

/// Each figure of this run against the figure of the same measurement and
/// tier in `saved` (a bench document), then the saved ones this run lacks.
pub fn compare(saved: &serde_json::Value, figures: &[Figure]) -> Vec<Comparison> {
    let empty = Vec::new();
    let old: Vec<&serde_json::Value> = saved["figures"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .collect();
    let key = |v: &serde_json::Value| {
        (
            v["measurement"].as_str().unwrap_or_default().to_string(),
            v["tier"].as_str().map(str::to_string),
        )
    };
    // The saved figures by (measurement, tier): one lookup per figure.
    let by_key: std::collections::HashMap<(String, Option<String>), usize> = old
        .iter()
        .enumerate()
        .rev()
        .map(|(i, v)| (key(v), i))
        .collect();
    let mut out = Vec::new();
    let mut matched = vec![false; old.len()];
    for f in figures {
        let at = by_key
            .get(&(f.measurement.clone(), f.tier.clone()))
            .copied();
        let Some(at) = at else {
            out.push(Comparison {
                measurement: f.measurement.clone(),
                tier: f.tier.clone(),
                before: None,
                after: Some(f.mb_per_s),
                change: None,
                noise: None,
                verdict: "new",
            });
            continue;
        };
        matched[at] = true;
        let v = old[at];
        let before = v["mb_per_s"].as_f64().unwrap_or(0.0);
        // A version-1 document has no spread: its noise is 5 %.
        let old_spread = match (v["mb_per_s_min"].as_f64(), v["mb_per_s_max"].as_f64()) {
            (Some(lo), Some(hi)) => half_spread(before, lo, hi),
            _ => 0.05,
        };
        let noise =
            0.02_f64
                .max(old_spread)
                .max(half_spread(f.mb_per_s, f.mb_per_s_min, f.mb_per_s_max));
        let change = if before > 0.0 {
            f.mb_per_s / before - 1.0
        } else {
            0.0
        };
        let verdict = if change.abs() <= noise {
            "no change"
        } else if change > 0.0 {
            "improved"
        } else {
            "regressed"
        };
        out.push(Comparison {
            measurement: f.measurement.clone(),
            tier: f.tier.clone(),
            before: Some(before),
            after: Some(f.mb_per_s),
            change: Some(change),
            noise: Some(noise),
            verdict,
        });
    }
    for (v, _) in old.iter().zip(&matched).filter(|(_, m)| !**m) {
        let (measurement, tier) = key(v);
        out.push(Comparison {
            measurement,
            tier,
            before: v["mb_per_s"].as_f64(),
            after: None,
            change: None,
            noise: None,
            verdict: "gone",
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn fig(name: &str, med: f64, lo: f64, hi: f64) -> Figure {
        Figure {
            measurement: name.into(),
            tier: Some("simd".into()),
            mb_per_s: med,
            mb_per_s_min: lo,
            mb_per_s_max: hi,
            unit: "output",
            maps_per_s: None,
            seconds_per_run: 1.0,
            runs: 3,
            iterations_per_run: 1,
            samples: vec![1.0; 3],
            note: None,
        }
    }

    #[test]
    fn a_run_compared_with_itself_has_no_change() {
        let figures = vec![fig("a", 100.0, 90.0, 110.0), fig("b", 5.0, 5.0, 5.0)];
        let saved = serde_json::json!({ "figures": figures });
        let c = compare(&saved, &figures);
        assert_eq!(c.len(), 2);
        assert!(c
            .iter()
            .all(|c| c.verdict == "no change" && c.change == Some(0.0)));
    }

    #[test]
    fn changes_beyond_the_noise_are_verdicts() {
        let saved = serde_json::json!({ "figures": [
            fig("a", 100.0, 99.0, 101.0), fig("b", 100.0, 80.0, 120.0),
            fig("c", 100.0, 99.0, 101.0), fig("gone", 1.0, 1.0, 1.0),
        ]});
        let now = vec![
            fig("a", 110.0, 109.0, 111.0), // +10 %, noise 2 %: improved
            fig("b", 115.0, 114.0, 116.0), // +15 %, noise 20 %: no change
            fig("c", 90.0, 89.0, 91.0),    // −10 %: regressed
            fig("new", 1.0, 1.0, 1.0),
        ];
        let c = compare(&saved, &now);
        let v: Vec<(&str, &str)> = c
            .iter()
            .map(|c| (c.measurement.as_str(), c.verdict))
            .collect();
        assert_eq!(
            v,
            [
                ("a", "improved"),
                ("b", "no change"),
                ("c", "regressed"),
                ("new", "new"),
                ("gone", "gone")
            ]
        );
        let b = &c[1];
        assert!((b.noise.unwrap() - 0.2).abs() < 1e-12);
    }

    #[test]
    fn saved_runs_are_found_by_name_or_path() {
        assert_eq!(saved_path("base"), Path::new(".teebatch-bench/base.json"));
        assert_eq!(saved_path("x/y"), Path::new("x/y"));
        assert_eq!(saved_path("run.json"), Path::new("run.json"));
    }
}
