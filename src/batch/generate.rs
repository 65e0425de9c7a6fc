//! `synth maps` and `synth demos`: generated collections written to a
//! folder, each file whole or not at all (through [`super::output`]).

use std::io::{self, Write};
use std::path::Path;

/// File name of map `index` of a generated collection.
pub fn map_name(seed: u64, index: u32) -> String {
    format!("synth-s{seed}-{index:04}.map")
}

/// File name of demo `index` of a generated collection.
pub(crate) fn demo_name(seed: u64, index: u32) -> String {
    format!("synth-s{seed}-{index:04}.demo")
}

/// Writes maps `0..count` of the collection of `seed` into `dir` (created
/// if missing); returns their bytes.
pub fn write_maps(dir: &Path, seed: u64, count: u32) -> io::Result<u64> {
    super::output::create_dir(dir)?;
    let mut bytes = 0;
    for i in 0..count {
        let params = crate::synth::map::SynthParams::collection(seed, i);
        let map = crate::synth::map::generate(&params);
        bytes += map.len() as u64;
        super::output::write_atomic(&dir.join(map_name(seed, i)), &map)?;
    }
    Ok(bytes)
}

/// Writes demos `0..count` of the collection of `seed` into `dir` (created
/// if missing), each with `players` players (1 to 64; default: varying)
/// and `seconds` long (at most a day; default: varying); returns their
/// bytes.
pub fn write_demos(
    dir: &Path,
    seed: u64,
    count: u32,
    players: Option<usize>,
    seconds: Option<u32>,
) -> io::Result<u64> {
    use crate::synth::demo::{generate_to, SynthParams};
    super::output::create_dir(dir)?;
    let mut bytes = 0;
    for i in 0..count {
        let mut p = SynthParams::collection(seed, i);
        if let Some(n) = players {
            p.players = n.clamp(1, 64);
        }
        if let Some(s) = seconds {
            p.duration_ticks = s.min(24 * 3600) as i32 * crate::demo::TICKS_PER_SECOND;
        }
        let path = dir.join(demo_name(seed, i));
        let (file, pending) = super::output::create(&path)?;
        let mut file = io::BufWriter::new(file);
        generate_to(&p, &mut file).map_err(io::Error::other)?;
        file.flush()?;
        drop(file);
        pending.commit()?;
        bytes += std::fs::metadata(&path)?.len();
    }
    Ok(bytes)
}
