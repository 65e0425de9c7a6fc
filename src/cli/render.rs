//! `teebatch maps render` (and the picture options of other commands).

use super::BatchArgs;
use crate::batch::embedded;
use crate::batch::maps::Worker;
use crate::batch::output::InputFiles;
use crate::batch::record::{BatchStats, ErrorRecord, WarningRecord};
use crate::batch::{load, run_ordered, Input};
use crate::render::{RenderOptions, Size, Style, Textures};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// Map files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// Directory to write `<name>.png` to, one per map (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// What to draw.
    #[arg(long, value_enum, default_value_t = StyleArg::Entities)]
    pub style: StyleArg,
    #[command(flatten)]
    pub size: SizeArgs,
    /// Folder with DDNet's textures: `entities/DDNet.png` (or a DDNet
    /// `data` folder with `editor/entities/DDNet.png`) and `mapres/*.png`.
    /// Default: $TEEBATCH_MAPRES, else ../shared/reference/ddnet-mapres if
    /// it exists; without textures a flat palette is used (see the README).
    #[arg(long, value_name = "DIR")]
    pub mapres: Option<PathBuf>,
    #[command(flatten)]
    pub batch: BatchArgs,
}

/// `--scale` / `--max-side`.
#[derive(clap::Args, Debug, Clone, Copy)]
#[group(multiple = false)]
pub struct SizeArgs {
    /// Pixels per tile (1 to 64).
    #[arg(long, value_name = "PX_PER_TILE", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub scale: Option<u32>,
    /// The longer side at most PX pixels (default 1024): the most pixels
    /// per tile that fit, or several tiles per pixel for large maps.
    #[arg(long, value_name = "PX", value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_side: Option<u32>,
}

impl SizeArgs {
    pub fn size(&self) -> Size {
        match (self.scale, self.max_side) {
            (Some(s), _) => Size::Scale(s),
            (None, m) => Size::MaxSide(m.unwrap_or(1024)),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StyleArg {
    /// The physics layers as DDNet's editor shows entities.
    Entities,
    /// The map as the game draws it: groups, textured tile layers, quads.
    Full,
}

/// One line of `maps render` output.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RenderRecord {
    pub path: String,
    pub name: String,
    pub size: u64,
    /// The PNG written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Pixels per tile (1 when several tiles share a pixel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub px_per_tile: Option<u32>,
    /// Tiles per pixel along each side (1 unless the map is larger than
    /// the picture).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiles_per_px: Option<u32>,
    pub warnings: Vec<WarningRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorRecord>,
}

/// The picture file names of `inputs`: the file stem (control
/// characters replaced by `_`), and where two inputs share a stem, the
/// stem and the first 8 hex digits of the SHA-256 of the input's record
/// path (stable whatever else is rendered). Unique by construction, also
/// on file systems that ignore case: a name already given (a map whose
/// stem is another's stem and hash) gets `-2`, `-3`, ... in input order.
pub fn picture_names(inputs: &[Input]) -> Vec<String> {
    let stems: Vec<String> = inputs
        .iter()
        .map(|i| {
            let s: String = i
                .stem()
                .chars()
                .map(|c| if c.is_control() { '_' } else { c })
                .collect();
            if s.is_empty() {
                "map".to_owned()
            } else {
                s
            }
        })
        .collect();
    let mut seen: HashMap<String, u32> = HashMap::new();
    for s in &stems {
        *seen.entry(s.to_lowercase()).or_default() += 1;
    }
    let mut given: std::collections::HashSet<String> = std::collections::HashSet::new();
    stems
        .iter()
        .zip(inputs)
        .map(|(s, i)| {
            let base = if seen[&s.to_lowercase()] > 1 {
                let h = Sha256::digest(i.display_path().as_bytes());
                format!("{s}-{}", hex::encode(&h[..4]))
            } else {
                s.clone()
            };
            let mut name = base.clone();
            let mut n = 1;
            while !given.insert(name.to_lowercase()) {
                n += 1;
                name = format!("{base}-{n}");
            }
            name
        })
        .collect()
}

/// Writes an encoded picture to `path`, whole or not at all, unless
/// `path` is one of the run's input files.
fn write_picture(path: &Path, inputs: &InputFiles, png: &[u8]) -> io::Result<()> {
    inputs.check(path)?;
    crate::batch::output::write_atomic(path, png)
}

/// Pictures that could not be written (`--thumbnails`): counted across
/// workers, the first error kept for the message on stderr.
#[derive(Debug, Default)]
pub struct WriteFailures {
    count: std::sync::atomic::AtomicU64,
    first: std::sync::Mutex<Option<String>>,
}

impl WriteFailures {
    fn add(&self, e: &io::Error) {
        self.count
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert_with(|| e.to_string());
    }

    /// How many failed, and the first failure's message.
    pub fn report(&self) -> Option<(u64, String)> {
        let n = self.count.load(std::sync::atomic::Ordering::Relaxed);
        let first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        (n > 0).then(|| (n, first.clone().unwrap_or_default()))
    }
}

/// Finds the textures, noting on stderr when the flat palette is used.
pub fn textures(dir: Option<&Path>, quiet: bool) -> io::Result<Textures> {
    let t = Textures::locate(dir).map_err(|e| io::Error::new(io::ErrorKind::NotFound, e))?;
    if !t.has_atlas() && !quiet {
        super::note!(
            "teebatch: no entities texture found (--mapres DIR, ${}, or {}): drawing with the flat palette (its legend is drawn in each picture)",
            crate::render::MAPRES_ENV,
            crate::render::DEFAULT_MAPRES
        );
    }
    Ok(t)
}

/// The size of `maps index --thumbnails` pictures.
pub const THUMBNAIL_SIZE: Size = Size::MaxSide(256);

/// Draws the thumbnail of the map in `bytes` to `path`; the failure as a
/// warning of stage `render` (the map's record stays that of the index).
pub fn write_thumbnail(
    bytes: &[u8],
    textures: &Textures,
    inflater: &mut crate::datafile::Inflater,
    buf: &mut Vec<u8>,
    path: &Path,
    inputs: &InputFiles,
    failures: &WriteFailures,
) -> Option<WarningRecord> {
    let opts = RenderOptions {
        style: Style::Entities,
        size: THUMBNAIL_SIZE,
    };
    inflater.start_file();
    let err = match crate::render::render_map(bytes, &opts, textures, inflater, buf) {
        Ok(mut p) => match {
            // A legend cut or left out for the size is documented, not a
            // warning of the index record.
            let _ = p.draw_legend(&[]);
            p
        }
        .canvas
        .encode_png()
        .and_then(|png| write_picture(path, inputs, &png))
        {
            Ok(()) => return None,
            Err(e) => {
                failures.add(&e);
                ErrorRecord::io(&e)
            }
        },
        // The map's own warnings are the index record's, from the index.
        Err(f) => f.error,
    };
    Some(WarningRecord {
        stage: err.stage,
        kind: err.kind,
        section: format!("thumbnail: {}", err.section),
        offset: err.offset,
    })
}

/// Renders one input (read as `mmap` says) and writes its picture to
/// `out`.
pub fn render_input(
    w: &mut Worker,
    input: &Input,
    mmap: crate::batch::MmapMode,
    opts: &RenderOptions,
    textures: &Textures,
    out: &Path,
    inputs: &InputFiles,
) -> RenderRecord {
    let mut rec = RenderRecord {
        path: input.display_path(),
        name: input.stem(),
        size: input.listed_size(),
        ..RenderRecord::default()
    };
    let limit = crate::limits::Limits::DEFAULT_MAX_MAP_FILE_BYTES;
    if input.listed_size() > limit {
        rec.error = Some(ErrorRecord::too_large(limit));
    } else {
        let Worker {
            read_buf,
            data_buf,
            inflater,
            ..
        } = w;
        match load(input, mmap, read_buf) {
            Ok(bytes) => {
                rec.size = bytes.len() as u64;
                inflater.start_file();
                match crate::render::render_map(&bytes, opts, textures, inflater, data_buf) {
                    Ok(mut p) => {
                        let legend = p.draw_legend(&[]);
                        rec.warnings = p.warnings;
                        rec.warnings.extend(legend);
                        rec.width = Some(p.geometry.width);
                        rec.height = Some(p.geometry.height);
                        rec.px_per_tile = Some(p.geometry.cell);
                        rec.tiles_per_px = Some(p.geometry.shrink);
                        match p
                            .canvas
                            .encode_png()
                            .and_then(|png| write_picture(out, inputs, &png))
                        {
                            Ok(()) => rec.output = Some(crate::batch::encode_path(out)),
                            Err(e) => rec.error = Some(ErrorRecord::io(&e)),
                        }
                    }
                    Err(f) => {
                        rec.warnings = f.warnings;
                        rec.error = Some(f.error);
                    }
                }
            }
            Err(e) => rec.error = Some(ErrorRecord::io(&e)),
        }
        crate::limits::shrink_buffer(&mut w.data_buf);
        crate::limits::shrink_buffer(&mut w.read_buf);
    }
    w.stats.record(rec.size, rec.error.as_ref(), &rec.warnings);
    rec
}

/// `teebatch maps render`.
pub fn render(args: RenderArgs) -> io::Result<ExitCode> {
    if args.batch.list {
        return args.batch.list(&args.paths, "map", embedded::map_inputs);
    }
    let sel = args
        .batch
        .select
        .select(&args.paths, "map", embedded::map_inputs)?;
    crate::batch::output::create_dir(&args.out)?;
    let input_files = InputFiles::of(&sel.inputs);
    let textures = textures(args.mapres.as_deref(), args.batch.quiet)?;
    let opts = RenderOptions {
        style: match args.style {
            StyleArg::Entities => Style::Entities,
            StyleArg::Full => Style::Full,
        },
        size: args.size.size(),
    };
    let names = picture_names(&sel.inputs);
    let jobs = args.batch.jobs(sel.inputs.len());
    let total: u64 = sel.inputs.iter().map(Input::listed_size).sum();
    let mut bar = args.batch.progress(total, sel.inputs.len(), true);
    let (mut out, _stdout) = super::open_output(None)?;
    let mut write_err = None;
    let start = Instant::now();
    let workers = run_ordered(
        &sel.inputs,
        jobs,
        || Worker::new(crate::limits::Limits::default()),
        |w, i, input| {
            let path = args.out.join(format!("{}.png", names[i]));
            render_input(
                w,
                input,
                args.batch.mmap,
                &opts,
                &textures,
                &path,
                &input_files,
            )
        },
        |_, rec: RenderRecord| {
            bar.file_done(rec.size, || rec.path.clone());
            match super::write_json_line(&mut out, &rec) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    write_err = Some(e);
                    ControlFlow::Break(())
                }
            }
        },
    );
    bar.finish();
    if let Some(e) = write_err {
        return Err(e);
    }
    out.flush()?;
    let elapsed = start.elapsed().as_secs_f64();
    let mut st = BatchStats::default();
    for w in workers {
        st += w.stats;
    }
    if !args.batch.quiet {
        super::note!(
            "maps render: {} files ({} ok, {} failed) in {:.3} s on {} jobs: {:.1} maps/s",
            st.files,
            st.ok,
            st.failed,
            elapsed,
            jobs,
            if elapsed > 0.0 {
                st.files as f64 / elapsed
            } else {
                0.0
            }
        );
    }
    Ok(if st.failed > 0 || sel.nothing_found {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[derive(clap::Args, Debug)]
pub struct HeatmapArgs {
    /// Demo files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// The picture (all demos must be of the same map).
    #[arg(
        long,
        short = 'o',
        value_name = "FILE.png",
        required_unless_present = "out"
    )]
    pub output: Option<PathBuf>,
    /// One picture per map instead, `DIR/<map>-<sha256 prefix>.png`
    /// (created if missing).
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub out: Option<PathBuf>,
    /// Only these client ids (comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "ID,...")]
    pub players: Vec<i32>,
    /// Only ticks from this one on (absolute server tick).
    #[arg(long, allow_negative_numbers = true)]
    pub from: Option<i32>,
    /// Only ticks up to this one (absolute server tick).
    #[arg(long, allow_negative_numbers = true)]
    pub to: Option<i32>,
    /// Draw each player's path (one colour per player) instead of the density.
    #[arg(long)]
    pub trails: bool,
    #[command(flatten)]
    pub size: SizeArgs,
    /// Folder with DDNet's textures (as for `maps render`).
    #[arg(long, value_name = "DIR")]
    pub mapres: Option<PathBuf>,
    #[command(flatten)]
    pub batch: BatchArgs,
}

/// One line of `demos heatmap` output per demo.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HeatDemoRecord {
    pub path: String,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map_sha256: Option<String>,
    /// Positions counted.
    pub positions: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorRecord>,
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
    /// `(input index, client id)` → trail.
    trails: std::collections::BTreeMap<(usize, i32), crate::render::heatmap::Trail>,
}

struct HeatWorker {
    decoder: crate::demo::stream::Decoder,
    buf: Vec<u8>,
    inflater: crate::datafile::Inflater,
    scratch: Vec<u8>,
    failed: u64,
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
    let map = Map::parse_with(&df, inflater, scratch, opts, &mut crate::warn::Discard)
        .map_err(|e| ErrorRecord::map(&e))?;
    match map.as_ref().and_then(|m| Some((m, m.game_layer_at()?))) {
        Some((m, (i, g))) => {
            m.check_tiles(&df, i, inflater)
                .map_err(|e| ErrorRecord::map(&e))?;
            Ok((g.width.max(0) as u32, g.height.max(0) as u32))
        }
        None => Err(crate::render::render_error(
            "no_game_layer",
            "the embedded map has no game layer".into(),
        )),
    }
}

fn heat_demo(
    w: &mut HeatWorker,
    shared: &SharedHeat,
    index: usize,
    input: &Input,
    args: &HeatmapArgs,
    from: i32,
    to: i32,
) -> HeatDemoRecord {
    use crate::demo::export::{export_demo, Table, TableBuilder};
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int32Type;
    use arrow_array::{Array, RecordBatch};
    let mut rec = HeatDemoRecord {
        path: input.display_path(),
        size: input.listed_size(),
        ..HeatDemoRecord::default()
    };
    let bytes = match load(input, args.batch.mmap, &mut w.buf) {
        Ok(b) => b,
        Err(e) => {
            rec.error = Some(ErrorRecord::io(&e));
            w.failed += 1;
            return rec;
        }
    };
    rec.size = bytes.len() as u64;
    let demo = match crate::demo::Demo::parse(&bytes) {
        Ok(d) => d,
        Err(e) => {
            rec.error = Some(ErrorRecord::demo(&e));
            w.failed += 1;
            return rec;
        }
    };
    let map = demo.map();
    let sha: [u8; 32] = Sha256::digest(map).into();
    let name = String::from_utf8_lossy(demo.map_name()).into_owned();
    rec.map = Some(name.clone());
    rec.map_sha256 = Some(hex::encode(sha));
    if map.is_empty() {
        // A demo may be written without its map (`map_size` 0): there is
        // nothing to draw on.
        rec.error = Some(ErrorRecord {
            offset: demo.map_offset() as u64,
            ..crate::render::render_error(
                "no_embedded_map",
                "the demo has no embedded map to draw on".into(),
            )
        });
        w.failed += 1;
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
                crate::render::Geometry::new(gw, gh, args.size.size())
                    .map_or(1, |g| crate::render::heatmap::half_pixel(&g)),
            ),
            Err(e) => {
                // As `demos index` reports its embedded map: the offset
                // in the demo file.
                rec.error = Some(e.in_embedded_map(demo.map_offset(), None));
                w.failed += 1;
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
    let mut builder = TableBuilder::new(
        Table::Positions,
        demo.decode_protocol(),
        &rec.path,
        from,
        to,
    );
    let mut positions = 0u64;
    let trails = args.trails;
    let players = &args.players;
    let mut sink = |batch: RecordBatch| {
        let ids = batch.column(ci).as_primitive::<Int32Type>();
        let (xs, ys) = (batch.column(xi), batch.column(yi));
        let (xs, ys) = (
            xs.as_primitive::<Int32Type>(),
            ys.as_primitive::<Int32Type>(),
        );
        let names = batch.column(ni).as_dictionary::<Int32Type>();
        let name_values = names.values().as_string::<i32>();
        for r in 0..batch.num_rows() {
            if xs.is_null(r) || ys.is_null(r) {
                continue;
            }
            let (c, x, y) = (ids.value(r), xs.value(r), ys.value(r));
            if !players.is_empty() && !players.contains(&c) {
                continue;
            }
            positions += 1;
            if trails {
                let t = heat.trails.entry((index, c)).or_default();
                if t.name.is_empty() && names.is_valid(r) {
                    let key = names.keys().value(r) as usize;
                    t.name = name_values.value(key).to_string();
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
    rec.positions = positions;
    if let Some(e) = r.error {
        rec.error = Some(ErrorRecord::stream(&e));
        w.failed += 1;
    }
    crate::limits::shrink_buffer(&mut w.buf);
    rec
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

/// The usage error of a `--from` after `--to` (exit 2): the range holds
/// no tick.
pub fn from_after_to(from: Option<i32>, to: Option<i32>) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "--from {} is after --to {}: the range holds no tick",
            from.unwrap_or_default(),
            to.unwrap_or_default()
        ),
    )
}

/// `teebatch demos heatmap`.
pub fn heatmap(args: HeatmapArgs) -> io::Result<ExitCode> {
    use crate::render::heatmap::{draw_trails, TRAIL_COLOURS};
    if args.batch.list {
        return args.batch.list(&args.paths, "demo", embedded::demo_inputs);
    }
    if args.from.zip(args.to).is_some_and(|(f, t)| f > t) {
        return Err(from_after_to(args.from, args.to));
    }
    // The records go to stdout; the picture is the output to check.
    let sel = args.batch.select_checked(
        &args.paths,
        "demo",
        embedded::demo_inputs,
        &[("records", None), ("-o", args.output.as_deref())],
    )?;
    let input_files = InputFiles::of(&sel.inputs);
    if let Some(d) = &args.out {
        crate::batch::output::create_dir(d)?;
    }
    let textures = textures(args.mapres.as_deref(), args.batch.quiet)?;
    let (from, to) = (args.from.unwrap_or(i32::MIN), args.to.unwrap_or(i32::MAX));
    let jobs = args.batch.jobs(sel.inputs.len());
    let (mut out, _stdout) = super::open_output(None)?;
    let mut write_err = None;
    let shared: SharedHeat = Default::default();
    let workers = run_ordered(
        &sel.inputs,
        jobs,
        || HeatWorker {
            decoder: crate::demo::stream::Decoder::new(crate::backend::Backend::Simd),
            buf: Vec::new(),
            inflater: crate::datafile::Inflater::new(crate::datafile::InflateLimits::default()),
            scratch: Vec::new(),
            failed: 0,
        },
        |w, i, input| heat_demo(w, &shared, i, input, &args, from, to),
        |_, rec: HeatDemoRecord| match super::write_json_line(&mut out, &rec) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                write_err = Some(e);
                ControlFlow::Break(())
            }
        },
    );
    if let Some(e) = write_err {
        return Err(e);
    }
    let failed: u64 = workers.iter().map(|w| w.failed).sum();
    let mut failed = failed;
    let maps = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if maps.len() > 1 && args.out.is_none() {
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
    let opts = RenderOptions {
        style: Style::Entities,
        size: args.size.size(),
    };
    let mut inflater = crate::datafile::Inflater::new(crate::datafile::InflateLimits::default());
    let mut scratch = Vec::new();
    for (sha, m) in &maps {
        let path = match (&args.out, &args.output) {
            (Some(d), _) => d.join(format!(
                "{}-{}.png",
                file_name_part(&m.name),
                &hex::encode(sha)[..8]
            )),
            (None, Some(p)) => p.clone(),
            (None, None) => unreachable!("clap requires -o or --out"),
        };
        // The picture's record; its size, hottest tile and legend once
        // drawn, or why it was not.
        let mut rec = HeatPictureRecord {
            picture: crate::batch::encode_path(&path),
            map: m.name.clone(),
            map_sha256: hex::encode(sha),
            demos: m.demos,
            positions: if args.trails {
                m.trails.values().map(|t| t.seen).sum()
            } else {
                m.grid.total()
            },
            outside: m.grid.outside,
            width: 0,
            height: 0,
            hottest: None,
            legend: Vec::new(),
            error: None,
            map_from: None,
        };
        inflater.start_file();
        let mut pic = match crate::render::render_map(
            &m.bytes,
            &opts,
            &textures,
            &mut inflater,
            &mut scratch,
        ) {
            Ok(p) => p,
            Err(e) => {
                let (demo, map_offset) = m.bytes_from;
                let demo = sel.inputs[demo].display_path();
                let e = e.error.in_embedded_map(map_offset, Some(&demo));
                super::note!(
                    "teebatch: {}: map {} ({}) embedded in {}: {} ({} in {} at byte {})",
                    path.display(),
                    m.name,
                    &hex::encode(sha)[..8],
                    demo,
                    e.kind,
                    e.stage,
                    e.section,
                    e.offset
                );
                failed += 1;
                rec.error = Some(e);
                rec.map_from = Some(demo);
                super::write_json_line(&mut out, &rec)?;
                continue;
            }
        };
        let trails: Vec<crate::render::heatmap::Trail> = m.trails.values().cloned().collect();
        let mut legend = Vec::new();
        let mut drawn_legend = Vec::new();
        if args.trails {
            draw_trails(&mut pic.canvas, &pic.geometry, &trails);
            for (i, ((input, client), t)) in m.trails.iter().enumerate() {
                let c = TRAIL_COLOURS[i % TRAIL_COLOURS.len()];
                legend.push(TrailLegend {
                    colour: format!("#{}", hex::encode(c)),
                    name: t.name.clone(),
                    demo: sel.inputs[*input].display_path(),
                    client_id: *client,
                });
                drawn_legend.push(crate::render::legend::Entry {
                    colour: c,
                    label: t.name.clone(),
                });
            }
        } else {
            m.grid.draw(&mut pic.canvas, &pic.geometry);
        }
        if let Some(w) = pic.draw_legend(&drawn_legend) {
            if !args.batch.quiet {
                super::note!(
                    "teebatch: {}: warning {}.{}: the picture is too small for the whole legend",
                    path.display(),
                    w.stage,
                    w.kind
                );
            }
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
        super::write_json_line(&mut out, &rec)?;
    }
    out.flush()?;
    Ok(if failed > 0 || sel.nothing_found {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
