//! `demos heatmap`: where characters were, counted over the demos of
//! each map and drawn over the map's entities picture.

use super::output::InputFiles;
use super::record::{Body, ErrorRecord, Record};
use super::render::write_picture;
use super::run::{Observer, RunOutcome, Selection};
use super::sink::RecordSink;
use super::{load, run_ordered, Input};
use crate::render::{RenderOptions, Size, Style, Textures};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io;
use std::path::PathBuf;
use std::time::Instant;

/// Where the pictures of a heatmap run go.
#[derive(Clone, Debug)]
pub enum Pictures {
    /// One picture: all demos must be of the same map.
    File(PathBuf),
    /// One picture per map, `DIR/<map>-<sha256 prefix>.png` (the folder
    /// must exist).
    PerMap(PathBuf),
}

/// The players of `--players`: a position counts when its row matches
/// any entry (no entry: every position counts).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Players {
    /// Client ids.
    pub ids: Vec<i32>,
    /// Names, as the `name` of the `positions` row has them at that tick
    /// (exact).
    pub names: Vec<String>,
    /// Player sessions (the `session` of the `positions` row, numbered per
    /// demo).
    pub sessions: Vec<i32>,
}

impl Players {
    /// The entries of `--players`: digits only is a client id,
    /// `session:N` a session, `name:X` the name X, anything else a name.
    pub fn parse(entries: &[String]) -> Result<Players, String> {
        let mut p = Players::default();
        for e in entries {
            if let Some(name) = e.strip_prefix("name:") {
                p.names.push(name.to_owned());
            } else if let Some(n) = e.strip_prefix("session:") {
                let s = n.parse::<i32>().ok().filter(|&s| s >= 1).ok_or_else(|| {
                    format!("--players {e}: a session is a number from 1 (the `session` column)")
                })?;
                p.sessions.push(s);
            } else {
                match e.parse::<i32>() {
                    Ok(id) if !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit()) => {
                        p.ids.push(id)
                    }
                    _ => p.names.push(e.clone()),
                }
            }
        }
        Ok(p)
    }

    /// Whether no entry was given (every position counts).
    pub fn all(&self) -> bool {
        self.ids.is_empty() && self.names.is_empty() && self.sessions.is_empty()
    }
}

/// Options of a `demos heatmap` run.
pub struct RunOptions {
    pub pictures: Pictures,
    /// Whose positions count (`--players`; empty: everyone's).
    pub players: Players,
    /// A position per tick marker, carried from the snapshot in effect
    /// where none arrived, as `demos export --every-tick`
    /// ([`crate::demo::export::TableBuilder::set_every_tick`]): the counts
    /// are tick markers spent on each tile.
    pub every_tick: bool,
    /// Positions equal (x and y) to the previous position of the same
    /// client id in that demo (its row at the tick marker before with
    /// `every_tick`, else at the snapshot before that had it) are not
    /// counted; the first position of a client id is.
    pub exclude_idle: bool,
    /// The density's colour scale tops out at this percentile (0 to 100)
    /// of the counts of the picture's non-empty cells
    /// ([`crate::render::heatmap::HeatGrid::scale_max`]); `None`: at the
    /// largest.
    pub clip: Option<f64>,
    /// Only ticks from `from` to `to` (inclusive): absolute server ticks,
    /// or ticks since each demo's first tick, resolved per demo
    /// ([`super::range::resolve_range`]).
    pub from: super::range::TickBound,
    pub to: super::range::TickBound,
    /// Draw each player's path instead of the density.
    pub trails: bool,
    pub size: Size,
    /// The textures of the map pictures ([`Textures::locate`]).
    pub textures: Textures,
    pub mmap: super::MmapMode,
    /// Worker threads (`None` or 0: all cores; capped at the inputs).
    pub jobs: Option<usize>,
}

/// A record of `demos heatmap`: one per demo, then one per picture.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum HeatRecord {
    Demo(HeatDemoRecord),
    Picture(HeatPictureRecord),
}

/// One line of `demos heatmap` output per demo: the envelope around a
/// [`HeatDemoBody`], written without `name` and `warnings`.
pub type HeatDemoRecord = Record<HeatDemoBody>;

/// The fields of a `demos heatmap` demo record between `size` and `error`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HeatDemoBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_sha256: Option<String>,
    /// Positions counted.
    pub positions: u64,
}

/// The demo records of `demos heatmap` were written without `name` and
/// `warnings` before the envelope, and still are.
impl Body for HeatDemoBody {
    const NAME: bool = false;
    const WARNINGS: bool = false;
}

/// The line of `demos heatmap` output per picture.
#[derive(Clone, Debug, Serialize)]
pub struct HeatPictureRecord {
    pub picture: String,
    pub map: String,
    pub map_sha256: String,
    pub demos: u64,
    pub positions: u64,
    /// Positions outside the game layer (not drawn).
    pub outside: u64,
    pub width: u32,
    pub height: u32,
    /// The tile with the most positions: `[x, y, count]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hottest: Option<[u64; 3]>,
    /// With a percentile clip: the count drawn at the top of the colour
    /// scale (pure red; cells with more too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_max: Option<u64>,
    /// With `--trails`: the colour of each player's path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub legend: Vec<TrailLegend>,
    /// Why the picture was not drawn: the error of the embedded map of
    /// demo `map_from`, at its offset in that demo's file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_from: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TrailLegend {
    pub colour: String,
    pub name: String,
    pub demo: String,
    pub client_id: i32,
    /// The player's session in the demo (a trail per session: a client
    /// id taken by another player after a leave gets a trail of its own,
    /// see [`crate::demo::players::sessions`]).
    pub session: i32,
}

/// One map's counts: of one demo while it is read, then of all its demos
/// in the shared map of `demos heatmap`.
struct MapHeat {
    name: String,
    /// The lowest input index of its demos (whose map name is kept).
    first: usize,
    bytes: Vec<u8>,
    /// The demo `bytes` are the embedded map of (input index) and where
    /// the map starts in it: errors of the map are reported there.
    bytes_from: (usize, usize),
    grid: crate::render::heatmap::HeatGrid,
    /// Half a picture pixel in world units (trail decimation).
    min_step: i64,
    demos: u64,
    /// `(input index, client id, session)` → trail (in client id order,
    /// as before sessions, then by session).
    trails: std::collections::BTreeMap<(usize, i32, i32), crate::render::heatmap::Trail>,
}

struct HeatWorker {
    decoder: crate::demo::stream::Decoder,
    buf: Vec<u8>,
    inflater: crate::datafile::Inflater,
    scratch: Vec<u8>,
}

/// Every map's counts so far, by SHA-256 of the map: workers add each
/// demo's counts as soon as it is read, so memory is one grid per
/// distinct map in all, plus one per worker for the demo being read.
type SharedHeat = std::sync::Mutex<std::collections::BTreeMap<[u8; 32], MapHeat>>;

fn lock_heat(
    shared: &SharedHeat,
) -> std::sync::MutexGuard<'_, std::collections::BTreeMap<[u8; 32], MapHeat>> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// Adds one demo's counts `h` to the shared map of grids.
fn merge_heat(shared: &SharedHeat, sha: [u8; 32], h: MapHeat) {
    let mut maps = lock_heat(shared);
    match maps.get_mut(&sha) {
        None => {
            maps.insert(sha, h);
        }
        Some(m) => {
            m.grid.merge(&h.grid);
            m.demos += h.demos;
            m.trails.extend(h.trails);
            if m.bytes.is_empty() {
                m.bytes = h.bytes;
                m.bytes_from = h.bytes_from;
            }
            if h.first < m.first {
                m.first = h.first;
                m.name = h.name;
            }
        }
    }
}

/// The game layer size of a demo's embedded map `bytes`, or why it has
/// none (offsets counted in the map). The layer is checked as the picture
/// of the map checks it (its size against its data, within the inflate
/// limit), so that the grid of counts allocated for that size is bounded:
/// a corrupt width or height is the map's error, not a huge allocation.
fn game_size(
    bytes: &[u8],
    inflater: &mut crate::datafile::Inflater,
    scratch: &mut Vec<u8>,
) -> Result<(u32, u32), ErrorRecord> {
    use crate::map::{LoadOptions, Map};
    let df = crate::datafile::Datafile::parse(bytes).map_err(|e| ErrorRecord::datafile(&e))?;
    inflater.start_file();
    let opts = LoadOptions {
        info: false,
        names: false,
        check_env_points: false,
        check_quads: false,
    };
    // Only the size is wanted: the map's warnings are not reported here.
    let map = Map::parse_opts(&df, inflater, scratch, opts, &mut crate::warn::Discard)
        .map_err(|e| ErrorRecord::map(&e))?;
    match map.as_ref().and_then(|m| Some((m, m.game_layer_at()?))) {
        Some((m, (i, g))) => {
            m.check_tiles(&df, i, inflater)
                .map_err(|e| ErrorRecord::map(&e))?;
            Ok((g.width.max(0) as u32, g.height.max(0) as u32))
        }
        None => Err(crate::render::render_error(
            crate::render::RenderKind::NoGameLayer,
            "the embedded map has no game layer".into(),
        )),
    }
}

fn heat_demo(
    w: &mut HeatWorker,
    shared: &SharedHeat,
    index: usize,
    input: &Input,
    opts: &RunOptions,
) -> HeatDemoRecord {
    use crate::demo::export::{export_demo, Table, TableBuilder};
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use arrow_array::{Array, RecordBatch};
    let mut rec = HeatDemoRecord::of(input);
    let bytes = match load(input, opts.mmap, &mut w.buf) {
        Ok(b) => b,
        Err(e) => {
            rec.fail(ErrorRecord::io(&e));
            return rec;
        }
    };
    rec.size = bytes.len() as u64;
    let demo = match crate::demo::Demo::parse(&bytes) {
        Ok(d) => d,
        Err(e) => {
            rec.fail(ErrorRecord::demo(&e));
            return rec;
        }
    };
    let map = demo.map();
    let sha: [u8; 32] = Sha256::digest(map).into();
    let name = String::from_utf8_lossy(demo.map_name()).into_owned();
    rec.body.map = Some(name.clone());
    rec.body.map_sha256 = Some(hex::encode(sha));
    if map.is_empty() {
        // A demo may be written without its map (`map_size` 0): there is
        // nothing to draw on.
        rec.fail(ErrorRecord {
            offset: demo.map_offset() as u64,
            ..crate::render::render_error(
                crate::render::RenderKind::NoEmbeddedMap,
                "the demo has no embedded map to draw on".into(),
            )
        });
        return rec;
    }
    let known = lock_heat(shared)
        .get(&sha)
        .map(|m| (m.grid.width, m.grid.height, m.min_step));
    let (gw, gh, min_step) = match known {
        Some(k) => k,
        None => match game_size(map, &mut w.inflater, &mut w.scratch) {
            Ok((gw, gh)) => (
                gw,
                gh,
                crate::render::Geometry::new(gw, gh, fit_size(gw, gh, opts.size).0)
                    .map_or(1, |g| crate::render::heatmap::half_pixel(&g)),
            ),
            Err(e) => {
                // As `demos index` reports its embedded map: the offset
                // in the demo file.
                rec.fail(e.in_embedded_map(demo.map_offset(), None));
                return rec;
            }
        },
    };
    let mut heat = MapHeat {
        name,
        first: index,
        bytes: if known.is_some() {
            Vec::new()
        } else {
            map.to_vec()
        },
        bytes_from: (index, demo.map_offset()),
        grid: crate::render::heatmap::HeatGrid::new(gw, gh),
        min_step,
        demos: 1,
        trails: Default::default(),
    };
    let col = |n: &str| Table::Positions.column_index(n).expect("positions column");
    let (ci, xi, yi, ni) = (col("client_id"), col("x"), col("y"), col("name"));
    let si = col("session");
    let first_tick = crate::demo::export::builder::first_tick(&demo);
    let (from, to) = match super::range::resolve_range(opts.from, opts.to, first_tick) {
        Ok(r) => r,
        Err(message) => {
            rec.fail(ErrorRecord::empty_range(message));
            return rec;
        }
    };
    let mut builder = TableBuilder::for_demo(Table::Positions, &demo, &rec.path, from, to);
    builder.set_every_tick(opts.every_tick);
    let mut positions = 0u64;
    let trails = opts.trails;
    let wanted = &opts.players;
    let any_player = wanted.all();
    // Each client id's previous position (`exclude_idle`).
    let mut last: std::collections::HashMap<i32, (i32, i32)> = Default::default();
    let mut sink = |batch: RecordBatch| {
        let ids = batch.column(ci).as_primitive::<Int32Type>();
        let xs = batch.column(xi).as_primitive::<Int32Type>();
        let ys = batch.column(yi).as_primitive::<Int32Type>();
        let names = batch.column(ni).as_dictionary::<Int32Type>();
        let sessions = batch.column(si).as_primitive::<Int32Type>();
        let name_values = names.values().as_string::<i32>();
        // Which of the batch's names are wanted, once per dictionary entry
        // (not per row).
        let named_key: Vec<bool> = if wanted.names.is_empty() {
            Vec::new()
        } else {
            (0..name_values.len())
                .map(|k| wanted.names.iter().any(|n| n == name_values.value(k)))
                .collect()
        };
        for r in 0..batch.num_rows() {
            if xs.is_null(r) || ys.is_null(r) {
                continue;
            }
            let (c, x, y) = (ids.value(r), xs.value(r), ys.value(r));
            if opts.exclude_idle && last.insert(c, (x, y)) == Some((x, y)) {
                continue;
            }
            let named = || {
                names.is_valid(r)
                    && named_key
                        .get(names.keys().value(r) as usize)
                        .copied()
                        .unwrap_or(false)
            };
            let in_session =
                || sessions.is_valid(r) && wanted.sessions.contains(&sessions.value(r));
            if !any_player && !wanted.ids.contains(&c) && !named() && !in_session() {
                continue;
            }
            positions += 1;
            if trails {
                // Rows always have a session (null would be 0).
                let session = sessions.is_valid(r).then(|| sessions.value(r));
                let t = heat
                    .trails
                    .entry((index, c, session.unwrap_or(0)))
                    .or_default();
                if t.name.is_empty() && names.is_valid(r) {
                    t.name = name_values
                        .value(names.keys().value(r) as usize)
                        .to_string();
                }
                t.push((x, y), heat.min_step);
            } else {
                heat.grid.add(x, y);
            }
        }
        true
    };
    let r = export_demo(&demo, &mut w.decoder, &mut builder, to, 4096, &mut sink);
    merge_heat(shared, sha, heat);
    rec.body.positions = positions;
    if let Some(e) = r.error {
        rec.fail(ErrorRecord::stream(&e));
    }
    crate::limits::shrink_buffer(&mut w.buf);
    rec
}

/// `size` for a `gw × gh` tile picture within the pixel limit
/// ([`crate::render::MAX_PICTURE_PIXELS`]): a `--scale` whose picture
/// would be over it becomes the largest scale that fits (or, when not even
/// one pixel per tile fits, the longest side of 8192 pixels), with the
/// warning that says so.
pub(crate) fn fit_size(gw: u32, gh: u32, size: Size) -> (Size, Option<String>) {
    use crate::render::Geometry;
    let Size::Scale(s) = size else {
        return (size, None);
    };
    if Geometry::new(gw, gh, size).is_ok() {
        return (size, None);
    }
    let fitted = (1..s)
        .rev()
        .map(Size::Scale)
        .find(|&f| Geometry::new(gw, gh, f).is_ok())
        .unwrap_or(Size::MaxSide(8192));
    let (w, h) = Geometry::new(gw, gh, fitted).map_or((0, 0), |g| (g.width, g.height));
    let what = match fitted {
        Size::Scale(f) => format!("--scale {f}"),
        Size::MaxSide(m) => format!("--max-side {m}"),
    };
    let big = u64::from(gw) * u64::from(s);
    let high = u64::from(gh) * u64::from(s);
    (
        fitted,
        Some(format!(
            "--scale {s} makes a {big} × {high} pixel picture of the {gw} × {gh} tile map, \
             over the {} pixel limit: drawn at {what} ({w} × {h})",
            crate::render::MAX_PICTURE_PIXELS
        )),
    )
}

/// A demo's map as its header names it: (name, size, CRC-32, SHA-256 when
/// the header has one), from the first bytes of the file only; `None` when
/// it cannot be read there (the run reports it), has no embedded map, or
/// is an archive member (not read twice).
fn header_map(input: &Input) -> Option<(String, u32, u32, Option<[u8; 32]>)> {
    use std::io::Read;
    // The header, timeline markers and SHA-256 extension fit in 1 KiB.
    let mut head = Vec::with_capacity(1024);
    match input {
        Input::File { path, .. } => {
            let f = std::fs::File::open(path).ok()?;
            f.take(1024).read_to_end(&mut head).ok()?;
        }
        Input::Embedded { bytes, .. } => head.extend_from_slice(&bytes[..bytes.len().min(1024)]),
        _ => return None,
    }
    let demo = crate::demo::Demo::parse_truncated_map(&head).ok()?;
    if demo.map_size() == 0 {
        return None;
    }
    Some((
        String::from_utf8_lossy(demo.map_name()).into_owned(),
        demo.map_size(),
        demo.map_crc(),
        demo.map_sha256().copied(),
    ))
}

/// The maps the demo headers name, by (name, size, CRC-32): how many
/// demos name each, and its SHA-256 if a header has it.
type HeaderMaps = std::collections::BTreeMap<(String, u32, u32), (u64, Option<[u8; 32]>)>;

/// For one picture ([`Pictures::File`]): the error of inputs whose headers
/// name several maps (by name, size and CRC-32, as the game identifies a
/// map), listing them, found before any demo is decoded.
fn check_one_map(inputs: &[Input]) -> io::Result<()> {
    let mut maps: HeaderMaps = Default::default();
    for input in inputs {
        if let Some((name, size, crc, sha)) = header_map(input) {
            let e = maps.entry((name, size, crc)).or_insert((0, sha));
            e.0 += 1;
            e.1 = e.1.or(sha);
        }
    }
    if maps.len() <= 1 {
        return Ok(());
    }
    let names: Vec<String> = maps
        .iter()
        .map(|((name, _, crc), (demos, sha))| {
            let id = match sha {
                Some(sha) => hex::encode(sha)[..8].to_string(),
                None => format!("crc {crc:08x}"),
            };
            let s = if *demos == 1 { "" } else { "s" };
            format!("{name} ({id}, {demos} demo{s})")
        })
        .collect();
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "the demos are of {} different maps: {}; use --out DIR for one picture per map \
             (nothing was decoded)",
            maps.len(),
            names.join(", ")
        ),
    ))
}

/// `name` with every character but ASCII letters, digits, `.`, `-` and `_`
/// replaced by `_` (map names come from demo headers).
fn file_name_part(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("map{s}")
    } else {
        s
    }
}

/// Counts the positions in every demo of `sel` and draws the pictures:
/// the records (one per demo in input order, then one per picture) reach
/// `sink`, the messages for a person `observer`. An error: a write error
/// of the sink or of a picture, or demos of several maps for one
/// [`Pictures::File`].
pub fn run(
    sel: &Selection,
    opts: &RunOptions,
    sink: &mut dyn RecordSink<HeatRecord>,
    observer: &mut dyn Observer,
) -> io::Result<HeatRun> {
    use crate::render::heatmap::{draw_trails, TRAIL_COLOURS};
    let mut kinds = super::summary::Kinds::default();
    if matches!(opts.pictures, Pictures::File(_)) && sel.inputs.len() > 1 {
        check_one_map(&sel.inputs)?;
    }
    let input_files = InputFiles::of(&sel.inputs);
    let jobs = crate::limits::Limits::cap_jobs(opts.jobs, sel.inputs.len());
    let mut write_err = None;
    let start = Instant::now();
    let mut outcome = RunOutcome::start("demos heatmap", sel, jobs);
    let shared: SharedHeat = Default::default();
    run_ordered(
        &sel.inputs,
        jobs,
        || HeatWorker {
            decoder: crate::demo::stream::Decoder::new(crate::backend::Backend::Simd),
            buf: Vec::new(),
            inflater: crate::datafile::Inflater::new(crate::datafile::InflateLimits::default()),
            scratch: Vec::new(),
        },
        |w, i, input| heat_demo(w, &shared, i, input, opts),
        |_, rec: HeatDemoRecord| {
            outcome.count(&rec);
            kinds.add_record(&rec);
            observer.file_done(rec.size, &|| rec.path.clone());
            super::run::written(sink.write(&HeatRecord::Demo(rec)), &mut write_err)
        },
    );
    if let Some(e) = write_err {
        return Err(e);
    }
    let maps = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if maps.len() > 1 && matches!(opts.pictures, Pictures::File(_)) {
        let names: Vec<String> = maps
            .iter()
            .map(|(sha, m)| format!("{} ({})", m.name, &hex::encode(sha)[..8]))
            .collect();
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the demos are of {} different maps: {}; use --out DIR for one picture per map",
                maps.len(),
                names.join(", ")
            ),
        ));
    }
    let mut inflater = crate::datafile::Inflater::new(crate::datafile::InflateLimits::default());
    let mut scratch = Vec::new();
    for (sha, m) in &maps {
        let path = match &opts.pictures {
            Pictures::PerMap(d) => d.join(format!(
                "{}-{}.png",
                file_name_part(&m.name),
                &hex::encode(sha)[..8]
            )),
            Pictures::File(p) => p.clone(),
        };
        // The picture's record; its size, hottest tile and legend once
        // drawn, or why it was not.
        let mut rec = HeatPictureRecord {
            picture: crate::batch::encode_path(&path),
            map: m.name.clone(),
            map_sha256: hex::encode(sha),
            demos: m.demos,
            positions: if opts.trails {
                m.trails.values().map(|t| t.seen).sum()
            } else {
                m.grid.total()
            },
            outside: m.grid.outside,
            width: 0,
            height: 0,
            hottest: None,
            scale_max: None,
            legend: Vec::new(),
            error: None,
            map_from: None,
        };
        let (size, fitted) = fit_size(m.grid.width, m.grid.height, opts.size);
        if let Some(w) = fitted {
            observer.note(&format!("{}: warning: {w}", path.display()), true);
        }
        let render_opts = RenderOptions {
            style: Style::Entities,
            size,
        };
        inflater.start_file();
        let mut pic = match crate::render::render_map(
            &m.bytes,
            &render_opts,
            &opts.textures,
            &mut inflater,
            &mut scratch,
        ) {
            Ok(p) => p,
            Err(e) => {
                let (demo, map_offset) = m.bytes_from;
                let demo = sel.inputs[demo].display_path();
                let e = e.error.in_embedded_map(map_offset, Some(&demo));
                observer.note(
                    &format!(
                        "{}: map {} ({}) embedded in {}: {} ({} in {} at byte {})",
                        path.display(),
                        m.name,
                        &hex::encode(sha)[..8],
                        demo,
                        e.kind,
                        e.stage,
                        e.section,
                        e.offset
                    ),
                    false,
                );
                outcome.failed += 1;
                kinds.add(&demo, Some(&e), &[]);
                rec.error = Some(e);
                rec.map_from = Some(demo);
                sink.write(&HeatRecord::Picture(rec))?;
                continue;
            }
        };
        let trails: Vec<crate::render::heatmap::Trail> = m.trails.values().cloned().collect();
        let mut legend = Vec::new();
        let mut drawn_legend = Vec::new();
        if opts.trails {
            draw_trails(&mut pic.canvas, &pic.geometry, &trails);
            for (i, ((input, client, session), t)) in m.trails.iter().enumerate() {
                let c = TRAIL_COLOURS[i % TRAIL_COLOURS.len()];
                legend.push(TrailLegend {
                    colour: format!("#{}", hex::encode(c)),
                    name: t.name.clone(),
                    demo: sel.inputs[*input].display_path(),
                    client_id: *client,
                    session: *session,
                });
                drawn_legend.push(crate::render::legend::Entry {
                    colour: c,
                    label: t.name.clone(),
                });
            }
        } else {
            let max = m.grid.scale_max(&pic.geometry, opts.clip);
            m.grid
                .draw_scaled(&mut pic.canvas, &pic.geometry, Some(max));
            if opts.clip.is_some() {
                rec.scale_max = Some(max);
            }
            let unit = if opts.every_tick { "ticks" } else { "snaps" };
            drawn_legend = crate::render::heatmap::scale_legend(max, opts.clip.is_some(), unit);
        }
        if let Some(w) = pic.draw_legend(&drawn_legend) {
            observer.note(
                &format!(
                    "{}: warning {}.{}: the picture is too small for the whole legend",
                    path.display(),
                    w.stage,
                    w.kind
                ),
                true,
            );
            kinds.add(&rec.picture, None, &[w]);
        }
        let canvas = pic.canvas;
        write_picture(&path, &input_files, &canvas.encode_png()?)?;
        rec.width = canvas.width;
        rec.height = canvas.height;
        rec.hottest = m
            .grid
            .hottest()
            .map(|(x, y, c)| [u64::from(x), u64::from(y), c]);
        rec.legend = legend;
        sink.write(&HeatRecord::Picture(rec))?;
    }
    outcome.elapsed_s = start.elapsed().as_secs_f64();
    Ok(HeatRun { outcome, kinds })
}

/// A finished `demos heatmap` run.
#[derive(Debug)]
pub struct HeatRun {
    pub outcome: RunOutcome,
    /// The demos' and pictures' errors and warnings by kind, with example
    /// paths (a demo's path, the demo whose map a picture failed on, a
    /// picture's path for its legend): the digest on stderr.
    pub kinds: super::summary::Kinds,
}
