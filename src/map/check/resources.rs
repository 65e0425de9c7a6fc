//! The rules on images, envelopes and sounds: those no layer, quad or
//! sound source uses, and the external images DDNet's `data/mapres` has
//! not ([`STANDARD_MAPRES`]).

use super::{Location, MapCheck, RuleSet, R};
use crate::bytes::LeI32s;
use crate::datafile::{Datafile, Inflater};
use crate::map::items::view::QuadData;
use crate::map::{LayerKind, Map, MapError, QUAD_SIZE};

/// The images of DDNet's `data/mapres` (names without `.png`), which a map
/// may name as external images.
pub const STANDARD_MAPRES: &[&str] = &[
    "basic_freeze",
    "bg_cloud1",
    "bg_cloud2",
    "bg_cloud3",
    "ddmax_freeze",
    "ddnet_grass",
    "ddnet_start",
    "ddnet_tiles",
    "ddnet_walls",
    "desert_background",
    "desert_doodads",
    "desert_main",
    "desert_mountains",
    "desert_mountains2",
    "desert_mountains_new_background",
    "desert_mountains_new_foreground",
    "desert_sun",
    "easter_0.7",
    "entities",
    "fadeout",
    "font_teeworlds",
    "font_teeworlds_alt",
    "generic_clear",
    "generic_deathtiles",
    "generic_lamps",
    "generic_shadows_0.7",
    "generic_unhookable",
    "generic_unhookable_0.7",
    "grass_doodads",
    "grass_doodads_0.7",
    "grass_main",
    "grass_main_0.7",
    "jungle_background",
    "jungle_deathtiles",
    "jungle_doodads",
    "jungle_main",
    "jungle_midground",
    "jungle_unhookables",
    "light",
    "mixed_tiles",
    "moon",
    "mountains",
    "round_tiles",
    "snow",
    "snow_mountain",
    "stars",
    "sun",
    "water",
    "winter_doodads",
    "winter_main",
    "winter_main_0.7",
    "winter_mountains",
    "winter_mountains2",
    "winter_mountains3",
];

/// Envelope references of quads and sound sources (inflated), image and
/// sound references of layers.
pub(super) fn check_unused(
    c: &mut MapCheck,
    rules: RuleSet,
    df: &Datafile<'_>,
    map: &Map,
    inflater: &mut Inflater,
    scratch: &mut Vec<u8>,
) -> Result<(), MapError> {
    let want = [R::ImageUnused, R::EnvelopeUnused, R::SoundUnused];
    if !want.iter().any(|&r| rules.has(r)) {
        return Ok(());
    }
    let mut images = vec![false; map.images.len()];
    let mut envelopes = vec![false; map.envelopes.len()];
    let mut sounds = vec![false; map.sounds.len()];
    let mark = |v: &mut Vec<bool>, i: i32| {
        if let Some(u) = usize::try_from(i).ok().and_then(|i| v.get_mut(i)) {
            *u = true;
        }
    };
    for l in &map.layers {
        match &l.kind {
            LayerKind::Tilemap(t) => {
                if let Some(i) = t.image {
                    mark(&mut images, i as i32);
                }
                if let Some(e) = t.color_env {
                    mark(&mut envelopes, e as i32);
                }
            }
            LayerKind::Quads(q) => {
                if let Some(i) = q.image {
                    mark(&mut images, i as i32);
                }
                let n = usize::try_from(q.num_quads).unwrap_or(0);
                if let (true, Ok(d)) = (
                    n > 0 && rules.has(R::EnvelopeUnused),
                    usize::try_from(q.data),
                ) {
                    df.decompress(d, inflater, scratch)?;
                    for b in scratch.chunks_exact(QUAD_SIZE).take(n) {
                        let quad = QuadData::new(LeI32s::new(b), 0);
                        mark(&mut envelopes, quad.pos_env());
                        mark(&mut envelopes, quad.color_env());
                    }
                }
            }
            LayerKind::Sounds(s) => {
                if let Some(i) = s.sound {
                    mark(&mut sounds, i as i32);
                }
                // Sound sources: 13 ints (9 in the deprecated layer), the
                // position envelope at int 6 (5), the sound envelope at 8 (7).
                let (ints, pos, snd) = if s.deprecated { (9, 5, 7) } else { (13, 6, 8) };
                let n = usize::try_from(s.num_sources).unwrap_or(0);
                if let (true, Ok(d)) = (
                    n > 0 && rules.has(R::EnvelopeUnused),
                    usize::try_from(s.data),
                ) {
                    df.decompress(d, inflater, scratch)?;
                    for b in scratch.chunks_exact(ints * 4).take(n) {
                        let v = LeI32s::new(b);
                        mark(&mut envelopes, v.get(pos).unwrap_or(-1));
                        mark(&mut envelopes, v.get(snd).unwrap_or(-1));
                    }
                }
            }
            LayerKind::Unknown(_) => {}
        }
    }
    let unused = |used: &[bool]| {
        used.iter()
            .enumerate()
            .filter(|(_, u)| !**u)
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
    };
    // Images, envelopes and sounds no layer uses: the rule, what is used,
    // the finding's noun, the item's name and where it is.
    let image_name = |i: usize| map.images[i].name.as_deref().unwrap_or("");
    let envelope_name = |i: usize| map.envelopes[i].name.as_str();
    let sound_name = |i: usize| map.sounds[i].name.as_deref().unwrap_or("");
    type Unused<'a> = (
        R,
        &'a [bool],
        &'a str,
        &'a dyn Fn(usize) -> &'a str,
        fn(u32) -> Location,
    );
    let kinds: [Unused<'_>; 3] = [
        (R::ImageUnused, &images, "image", &image_name, |i| {
            Location {
                image: Some(i),
                ..Location::default()
            }
        }),
        (
            R::EnvelopeUnused,
            &envelopes,
            "envelope",
            &envelope_name,
            |i| Location {
                envelope: Some(i),
                ..Location::default()
            },
        ),
        (R::SoundUnused, &sounds, "sound", &sound_name, |i| {
            Location {
                sound: Some(i),
                ..Location::default()
            }
        }),
    ];
    for (rule, used, noun, name, at) in kinds {
        if rules.has(rule) {
            for i in unused(used) {
                let name = name(i);
                c.add(
                    rule,
                    format!("{noun} {i} {name:?} is not used"),
                    at(i as u32),
                );
            }
        }
    }
    Ok(())
}
