//! `teebatch maps render` and `teebatch demos heatmap` (and the picture
//! options of other commands): arguments and printing over
//! [`teebatch::batch::render`] and [`teebatch::batch::heat`].

use super::BatchArgs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use teebatch::batch::embedded;
use teebatch::batch::heat::{self, HeatRecord, Pictures};
use teebatch::batch::render::{self as pictures, RenderRecord};
use teebatch::batch::sink::write_json_line;
use teebatch::render::{Crop, RenderOptions, Size, Style, Textures};

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// Map files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// Directory to write `<name>-<sha256>.png` to, one per map, named by
    /// the map's file name and content (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// What to draw.
    #[arg(long, value_enum, default_value_t = StyleArg::Entities)]
    pub style: StyleArg,
    #[command(flatten)]
    pub size: SizeArgs,
    #[command(flatten)]
    pub picture: PictureArgs,
    /// Folder with DDNet's textures: `entities/DDNet.png` (or a DDNet
    /// `data` folder with `editor/entities/DDNet.png`) and `mapres/*.png`.
    /// Default: $TEEBATCH_MAPRES, else the data folder of an installed
    /// DDNet (/usr/share/ddnet/data, Steam's DDraceNetwork, ...: see
    /// docs/pictures.md); without textures a flat palette is used.
    #[arg(long, value_name = "DIR")]
    pub mapres: Option<PathBuf>,
    /// The most work one `--style full` picture may do: pixels its tiles
    /// and quads cover (drawn or found transparent), plus each quad row
    /// scanned and each tile, quad and envelope point read. Past it the
    /// picture fails with a render `work_limit` error naming the layer.
    /// Default: 256 per pixel of the drawing plus 2^24.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_render_work: Option<u64>,
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

/// `--crop` and `--no-legend` (of `maps render` and `maps index
/// --thumbnails`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct PictureArgs {
    /// Which part of the map to draw: `none` (the whole game layer) or
    /// `content`: the bounding box of the game and front layers' tiles
    /// other than air and the inside of solid or unhookable masses (see
    /// docs/pictures.md); the picture's size options apply to that part.
    #[arg(long, value_enum, default_value_t = CropArg::None)]
    pub crop: CropArg,
    /// Do not draw the flat palette's legend in the pictures.
    #[arg(long)]
    pub no_legend: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CropArg {
    /// The whole game layer.
    None,
    /// The bounding box of the content tiles of the game and front layers.
    Content,
}

impl PictureArgs {
    /// The picture options of `style` and `size` with these.
    pub fn options(&self, style: StyleArg, size: Size) -> pictures::PictureOptions {
        pictures::PictureOptions {
            render: RenderOptions {
                style: style.style(),
                size,
            },
            crop: match self.crop {
                CropArg::None => Crop::None,
                CropArg::Content => Crop::Content,
            },
            legend: !self.no_legend,
        }
    }
}

impl StyleArg {
    pub fn style(self) -> Style {
        match self {
            StyleArg::Entities => Style::Entities,
            StyleArg::Full => Style::Full,
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

/// Finds the textures, noting on stderr the folder of an installed DDNet
/// when it was found there, and when the flat palette is used.
pub fn textures(dir: Option<&Path>, quiet: bool) -> io::Result<Textures> {
    let t = Textures::locate(dir).map_err(|e| io::Error::new(io::ErrorKind::NotFound, e))?;
    if !quiet {
        for n in t.notes() {
            super::note!("teebatch: {n}");
        }
    }
    Ok(t)
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
    /// Only these players (comma-separated): an entry of digits only is a
    /// client id, any other a name (as the `name` column of `demos export
    /// --table positions` has it at that tick, exact and case-sensitive);
    /// `name:2221` is the name `2221`; `session:N` is the player session N
    /// of each demo (the `session` column of `demos export`).
    #[arg(long, value_delimiter = ',', value_name = "ID|NAME|session:N,...")]
    pub players: Vec<String>,
    /// Count a position per tick marker, carried from the last snapshot
    /// where none arrived (as `demos export --every-tick`): the density is
    /// tick markers spent on each tile, idle players included. Without it
    /// a position counts per snapshot that has it.
    #[arg(long)]
    pub every_tick: bool,
    /// Do not count a position equal (x and y) to the previous position of
    /// the same client id in that demo (at the tick marker before with
    /// --every-tick, else at the snapshot before that had it); a client's
    /// first position counts.
    #[arg(long)]
    pub exclude_idle: bool,
    /// The density's colour scale saturates at this percentile (0 to 100)
    /// of the counts of the picture's non-empty cells: cells at or over it
    /// are drawn pure red, the legend's top row reads `N+` (nearest rank).
    #[arg(long, value_name = "PERCENTILE", value_parser = parse_percentile)]
    pub clip: Option<f64>,
    #[command(flatten)]
    pub range: super::demos::TickRangeArgs,
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

/// A percentile of `--clip`: a number over 0 and at most 100.
fn parse_percentile(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
        _ => Err(format!("{s:?} is not a percentile over 0 and at most 100")),
    }
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
    teebatch::batch::output::create_dir(&args.out)?;
    let opts = pictures::RunOptions {
        textures: textures(args.mapres.as_deref(), args.batch.quiet)?,
        picture: args.picture.options(args.style, args.size.size()),
        out: args.out.clone(),
        mmap: args.batch.mmap,
        jobs: args.batch.jobs,
        max_work: args.max_render_work,
    };
    let mut bar = args.batch.bar(&sel, true);
    let (mut out, _stdout) = super::open_output(None)?;
    let outcome = pictures::run(
        &sel,
        &opts,
        &mut |r: &RenderRecord| write_json_line(&mut out, r),
        &mut bar,
    );
    bar.finish();
    let run = outcome?;
    out.flush()?;
    args.batch.end(&run.outcome, &run.kinds.digest())
}

/// `teebatch demos heatmap`.
pub fn heatmap(args: HeatmapArgs) -> io::Result<ExitCode> {
    if args.batch.list {
        return args.batch.list(&args.paths, "demo", embedded::demo_inputs);
    }
    let (from, to) = args.range.bounds()?;
    let players = heat::Players::parse(&args.players)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // The records go to stdout; the picture is the output to check.
    let sel = args.batch.select_checked(
        &args.paths,
        "demo",
        embedded::demo_inputs,
        &[("records", None), ("-o", args.output.as_deref())],
    )?;
    if let Some(d) = &args.out {
        teebatch::batch::output::create_dir(d)?;
    }
    let opts = heat::RunOptions {
        textures: textures(args.mapres.as_deref(), args.batch.quiet)?,
        pictures: match (&args.out, &args.output) {
            (Some(d), _) => Pictures::PerMap(d.clone()),
            (None, Some(p)) => Pictures::File(p.clone()),
            (None, None) => unreachable!("clap requires -o or --out"),
        },
        players,
        every_tick: args.every_tick,
        exclude_idle: args.exclude_idle,
        clip: args.clip,
        from,
        to,
        trails: args.trails,
        size: args.size.size(),
        mmap: args.batch.mmap,
        jobs: args.batch.jobs,
    };
    let mut bar = args.batch.bar(&sel, true);
    let (mut out, _stdout) = super::open_output(None)?;
    let run = heat::run(
        &sel,
        &opts,
        &mut |r: &HeatRecord| write_json_line(&mut out, r),
        &mut bar,
    );
    bar.finish();
    let run = run?;
    out.flush()?;
    args.batch.end(&run.outcome, &run.kinds.digest())
}
