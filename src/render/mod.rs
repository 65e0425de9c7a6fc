//! Pictures: map renders and thumbnails, demo heatmaps and trails (PNG).
//!
//! Layout:
//!
//! - [`raster`]: the opaque RGB [`Canvas`], premultiplied
//!   "over" blending, tile transforms (flip/rotate/angle), texture cells
//!   ([`Cells`]: a 16 × 16 tileset or atlas resampled once
//!   per cell size with a box filter), PNG encoding and decoding.
//! - [`entities`]: the `entities` style (physics layers as DDNet's editor
//!   shows them), with the flat palette used when no atlas is found.
//! - [`full`]: the `full` style (groups with parallax, textured tile
//!   layers, quads), with external images from `mapres/`.
//! - [`legend`]: legends drawn inside pictures (swatch and label rows).
//! - [`heatmap`]: density grids of character positions (mergeable sums of
//!   counts per cell) and trails, drawn over the entities render.
//! - this module: the picture size ([`Size`] → [`Geometry`]), where the
//!   textures come from ([`Textures`], shared by all workers with a cache of
//!   resampled cells) and [`render_map`], the whole path from map bytes to
//!   a canvas.
//!
//! A picture is never drawn larger than asked and then shrunk: with at
//! least one pixel per tile each tile is drawn from cells resampled to that
//! size; with several tiles per pixel each pixel is the mean of the tiles'
//! one-pixel colours.

pub mod entities;
pub mod envelope;
pub mod full;
pub mod heatmap;
pub mod legend;
pub mod raster;

use crate::datafile::{Datafile, Inflater};
use crate::kind::Stage;
use crate::map::tiles::PhysicsKind;
use crate::map::{LoadOptions, Map, TileLayer};
use crate::report::{ErrorRecord, WarningRecord};
use crate::warn::Warnings;
use raster::{Canvas, Cells, Rgba};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Environment variable naming the mapres folder (as `--mapres`).
pub const MAPRES_ENV: &str = "TEEBATCH_MAPRES";

/// The `data` folders of an installed DDNet that hold its textures
/// (`mapres/` and `editor/entities/DDNet.png`), in the order they are
/// tried when neither `--mapres` nor [`MAPRES_ENV`] names a folder: the
/// system folders DDNet's own storage looks in on Linux and the BSDs
/// (`/usr/share/ddnet/data`, `/usr/share/games/ddnet/data`,
/// `/usr/local/share/...`, `/usr/pkg/share/...`, `/opt/ddnet/data`), the
/// Flatpak install, Steam's `DDraceNetwork/ddnet/data` (Linux, macOS and
/// Windows), the macOS application bundle and the Windows installer's
/// folder. The user folder (`~/.local/share/ddnet`, `%APPDATA%\DDNet`)
/// holds settings, maps and demos, not the textures: it is not searched.
pub fn ddnet_data_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let steam = |root: PathBuf| root.join("steamapps/common/DDraceNetwork/ddnet/data");
    if cfg!(target_os = "macos") {
        dirs.push("/Applications/DDNet.app/Contents/Resources/data".into());
        if let Some(h) = &home {
            dirs.push(h.join("Applications/DDNet.app/Contents/Resources/data"));
            dirs.push(steam(h.join("Library/Application Support/Steam")));
        }
    } else if cfg!(windows) {
        for var in ["ProgramFiles(x86)", "ProgramFiles"] {
            if let Some(pf) = std::env::var_os(var).map(PathBuf::from) {
                dirs.push(steam(pf.join("Steam")));
                dirs.push(pf.join("DDNet").join("data"));
            }
        }
    } else {
        for prefix in ["/usr", "/usr/local", "/usr/pkg"] {
            dirs.push(format!("{prefix}/share/ddnet/data").into());
            dirs.push(format!("{prefix}/share/games/ddnet/data").into());
        }
        dirs.push("/opt/ddnet/data".into());
        dirs.push(
            "/var/lib/flatpak/app/tw.ddnet.DDNet/current/active/files/share/ddnet/data".into(),
        );
        if let Some(h) = &home {
            dirs.push(h.join(
                ".local/share/flatpak/app/tw.ddnet.DDNet/current/active/files/share/ddnet/data",
            ));
            dirs.push(steam(h.join(".local/share/Steam")));
            dirs.push(steam(h.join(".steam/steam")));
        }
    }
    dirs
}

/// Where the textures of a run came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TexturesFrom {
    /// `--mapres DIR`.
    Flag,
    /// [`MAPRES_ENV`].
    Env,
    /// An installed DDNet's data folder (one of [`ddnet_data_dirs`]).
    Installed,
    /// No folder: the flat palette.
    Nowhere,
}

/// Largest pixels per tile (the textures' own resolution).
pub const MAX_PX_PER_TILE: u32 = 64;

/// Most pixels of one picture (a 8192 × 8192 picture); larger requests are
/// an error of kind `too_large` that suggests `--max-side`.
pub const MAX_PICTURE_PIXELS: u64 = 1 << 26;

/// How large a picture is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Pixels per tile (1 to [`MAX_PX_PER_TILE`]).
    Scale(u32),
    /// The longer side at most this many pixels.
    MaxSide(u32),
}

/// The picture of a `tiles_w × tiles_h` tile area: `cell` pixels per tile,
/// or (`cell` = 1) one pixel per `shrink × shrink` tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// The picture's top-left tile in the game layer (0, 0 unless
    /// cropped: see [`Crop`]).
    pub x0: u32,
    pub y0: u32,
    pub tiles_w: u32,
    pub tiles_h: u32,
    pub cell: u32,
    pub shrink: u32,
    pub width: u32,
    pub height: u32,
}

impl Geometry {
    /// The geometry of `size` for a tile area, or the `too_large` error.
    pub fn new(tiles_w: u32, tiles_h: u32, size: Size) -> Result<Geometry, String> {
        let longest = tiles_w.max(tiles_h).max(1);
        let (cell, shrink) = match size {
            Size::Scale(s) => (s.clamp(1, MAX_PX_PER_TILE), 1),
            Size::MaxSide(m) if m >= longest => ((m / longest).min(MAX_PX_PER_TILE), 1),
            Size::MaxSide(m) => (1, longest.div_ceil(m.max(1))),
        };
        let (width, height) = if shrink > 1 {
            (tiles_w.div_ceil(shrink), tiles_h.div_ceil(shrink))
        } else {
            (tiles_w.saturating_mul(cell), tiles_h.saturating_mul(cell))
        };
        if u64::from(width) * u64::from(height) > MAX_PICTURE_PIXELS {
            return Err(format!(
                "a {width} × {height} pixel picture is over the {MAX_PICTURE_PIXELS} pixel limit \
                 (ask for less with --max-side)"
            ));
        }
        Ok(Geometry {
            x0: 0,
            y0: 0,
            tiles_w,
            tiles_h,
            cell,
            shrink,
            width,
            height,
        })
    }

    /// The pixel of the centre of the point `(x, y)` given in tiles.
    pub fn to_pixel(&self, x: f64, y: f64) -> (f64, f64) {
        if self.shrink > 1 {
            (x / f64::from(self.shrink), y / f64::from(self.shrink))
        } else {
            (x * f64::from(self.cell), y * f64::from(self.cell))
        }
    }
}

/// Which part of the game layer a picture shows (`--crop`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Crop {
    /// The whole game layer.
    #[default]
    None,
    /// The bounding box of the content tiles of the game and front layers
    /// ([`content_bounds`]); the whole layer when there is none.
    Content,
}

/// A rectangle of tiles: `w × h` tiles from tile `(x, y)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileRect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

/// Solid (1) and unhookable (3): the tiles a mass of rock is made of.
fn is_wall(id: u8) -> bool {
    id == 1 || id == 3
}

/// The bounding box of the content tiles of a game layer and its front
/// layer (`--crop content`), `None` when there is none. A cell is content
/// when its front tile is not air, or its game tile is neither air (0)
/// nor filler: a solid or unhookable tile whose eight neighbours inside
/// the layer are all solid or unhookable (the inside of a mass of rock;
/// its surface, the walls a tee can touch, is content). So a map whose
/// rooms are cut into a mass of rock (ChillBlock5) is cropped to the rooms
/// and their walls, and a map of platforms in air to the platforms.
/// One pass over the tiles, at most nine reads per tile.
pub fn content_bounds(game: &TileLayer, front: Option<&TileLayer>) -> Option<TileRect> {
    let (w, h) = (game.width, game.height);
    let ts = game.kind.tile_size();
    let id = |x: usize, y: usize| game.bytes[(y * w + x) * ts];
    let front_content = |x: usize, y: usize| {
        front.is_some_and(|f| f.tile(x, y).is_some_and(|t| t[f.kind.id_offset()] != 0))
    };
    let filler = |x: usize, y: usize| {
        let g = id(x, y);
        if g == 0 {
            return true;
        }
        if !is_wall(g) {
            return false;
        }
        let (xa, xb) = (x.saturating_sub(1), (x + 1).min(w - 1));
        let (ya, yb) = (y.saturating_sub(1), (y + 1).min(h - 1));
        (ya..=yb).all(|ny| (xa..=xb).all(|nx| is_wall(id(nx, ny))))
    };
    let mut b: Option<(usize, usize, usize, usize)> = None;
    for y in 0..h {
        for x in 0..w {
            if front_content(x, y) || !filler(x, y) {
                b = Some(match b {
                    None => (x, y, x, y),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0, x1.max(x), y1.max(y)),
                });
            }
        }
    }
    b.map(|(x0, y0, x1, y1)| TileRect {
        x: x0 as u32,
        y: y0 as u32,
        w: (x1 - x0 + 1) as u32,
        h: (y1 - y0 + 1) as u32,
    })
}

/// The tiles of `l` inside `r` (cut to the layer).
fn crop_layer(l: &TileLayer, r: TileRect) -> TileLayer {
    let ts = l.kind.tile_size();
    let (x0, x1) = (
        (r.x as usize).min(l.width),
        (r.x as usize + r.w as usize).min(l.width),
    );
    let (y0, y1) = (
        (r.y as usize).min(l.height),
        (r.y as usize + r.h as usize).min(l.height),
    );
    let mut bytes = Vec::with_capacity((x1 - x0) * (y1 - y0) * ts);
    for y in y0..y1 {
        bytes.extend_from_slice(&l.bytes[(y * l.width + x0) * ts..(y * l.width + x1) * ts]);
    }
    TileLayer {
        kind: l.kind,
        width: x1 - x0,
        height: y1 - y0,
        bytes,
    }
}

/// The layer kind (`None`: any) and size of a cell set.
type CellsKey = (Option<PhysicsKind>, u32);

/// The cells of one external tileset at one size, filled once.
type TilesetSlot = Arc<OnceLock<Arc<Cells>>>;

/// Where textures come from, and the cells resampled so far (shared by all
/// workers; each atlas is resampled once per cell size).
pub struct Textures {
    /// The folder found (holding `entities/DDNet.png` and/or `mapres/`).
    pub dir: Option<PathBuf>,
    /// How `dir` was found.
    pub from: TexturesFrom,
    /// The entities atlas; `None`: the flat palette.
    atlas: Option<Rgba>,
    cache: Mutex<HashMap<CellsKey, Arc<Cells>>>,
    /// External images by name (`None`: not found or unreadable).
    external: Mutex<HashMap<String, Option<Arc<Rgba>>>>,
    /// External tilesets' cells by image name and cell size: the lock is
    /// held only to find a key's slot; the slot is filled once and read
    /// without a lock after.
    tilesets: Mutex<HashMap<(String, u32), TilesetSlot>>,
    resamples: AtomicU64,
    tileset_resamples: AtomicU64,
}

impl Textures {
    /// Textures from `dir` (`--mapres`), else [`MAPRES_ENV`], else the
    /// first of [`ddnet_data_dirs`] that holds DDNet's entities atlas or
    /// `mapres/`. The entities atlas is `entities/DDNet.png` or (a DDNet
    /// `data` folder) `editor/entities/DDNet.png`. A named folder that does
    /// not exist or an unreadable atlas is an error; no folder, or one
    /// without an atlas, gives the flat palette.
    pub fn locate(dir: Option<&Path>) -> Result<Textures, String> {
        let env = std::env::var_os(MAPRES_ENV).map(PathBuf::from);
        Textures::locate_in(dir, env.as_deref(), &ddnet_data_dirs())
    }

    /// [`Textures::locate`] with `env` as the value of [`MAPRES_ENV`] and
    /// `installed` as the folders of an installed DDNet.
    pub fn locate_in(
        dir: Option<&Path>,
        env: Option<&Path>,
        installed: &[PathBuf],
    ) -> Result<Textures, String> {
        let (named, from) = match (dir, env) {
            (Some(d), _) => (Some(d.to_path_buf()), TexturesFrom::Flag),
            (None, e) => (e.map(Path::to_path_buf), TexturesFrom::Env),
        };
        let (dir, from) = match named {
            Some(d) if d.is_dir() => (Some(d), from),
            Some(d) => return Err(format!("{}: mapres folder not found", d.display())),
            None => match installed.iter().find(|d| {
                d.join("editor/entities/DDNet.png").is_file() || d.join("mapres").is_dir()
            }) {
                Some(d) => (Some(d.clone()), TexturesFrom::Installed),
                None => (None, TexturesFrom::Nowhere),
            },
        };
        let mut atlas = None;
        if let Some(d) = &dir {
            for rel in ["entities/DDNet.png", "editor/entities/DDNet.png"] {
                let p = d.join(rel);
                if p.is_file() {
                    let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
                    atlas = Some(
                        raster::decode_png(&bytes).map_err(|e| format!("{}: {e}", p.display()))?,
                    );
                    break;
                }
            }
        }
        let mut t = Textures::new(dir, atlas);
        t.from = from;
        Ok(t)
    }

    /// The flat palette only.
    pub fn palette() -> Textures {
        Textures::new(None, None)
    }

    fn new(dir: Option<PathBuf>, atlas: Option<Rgba>) -> Textures {
        Textures {
            dir,
            from: TexturesFrom::Nowhere,
            atlas,
            cache: Mutex::new(HashMap::new()),
            external: Mutex::new(HashMap::new()),
            tilesets: Mutex::new(HashMap::new()),
            resamples: AtomicU64::new(0),
            tileset_resamples: AtomicU64::new(0),
        }
    }

    /// External image `name` (`mapres/<name>.png` in the folder), loaded
    /// once per run; `None` when missing, unreadable, or a name that is not
    /// a plain file name.
    pub fn external(&self, name: &str) -> Option<Arc<Rgba>> {
        let dir = self.dir.as_ref()?;
        let plain =
            !name.is_empty() && !name.contains(['/', '\\', '\0']) && name != "." && name != "..";
        if !plain {
            return None;
        }
        let mut cache = self.external.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(name.to_owned())
            .or_insert_with(|| {
                let bytes = std::fs::read(dir.join("mapres").join(format!("{name}.png"))).ok()?;
                raster::decode_png(&bytes).ok().map(Arc::new)
            })
            .clone()
    }

    /// The cells of external image `name` (`img`, from
    /// [`Textures::external`]) at `n × n` pixels, resampled once per run
    /// and size whatever the number of maps and workers: memory is bounded
    /// by the distinct external images × cell sizes used.
    pub fn tileset_cells(&self, name: &str, img: &Rgba, n: u32) -> Arc<Cells> {
        let slot = {
            let mut map = self.tilesets.lock().unwrap_or_else(|e| e.into_inner());
            map.entry((name.to_owned(), n)).or_default().clone()
        };
        slot.get_or_init(|| {
            self.tileset_resamples.fetch_add(1, Ordering::Relaxed);
            Arc::new(Cells::resample(img, n))
        })
        .clone()
    }

    /// How many times an external tileset was resampled so far.
    pub fn tileset_resamples(&self) -> u64 {
        self.tileset_resamples.load(Ordering::Relaxed)
    }

    /// What a person should know about where the textures came from (the
    /// command line prints these on stderr unless `--quiet`): a folder
    /// found in an installed DDNet, no entities texture at all.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let (TexturesFrom::Installed, Some(d)) = (&self.from, &self.dir) {
            notes.push(format!(
                "textures from DDNet's data folder {} (--mapres DIR or ${MAPRES_ENV} to choose another)",
                d.display(),
            ));
        }
        if !self.has_atlas() {
            notes.push(format!(
                "no entities texture found (--mapres DIR, ${MAPRES_ENV}, or an installed DDNet's data folder): drawing with the flat palette (its legend is drawn in each picture)",
            ));
        }
        notes
    }

    /// Whether the entities atlas was found (else the flat palette is used).
    pub fn has_atlas(&self) -> bool {
        self.atlas.is_some()
    }

    /// How many cell sets were made (resampled or filled) so far.
    pub fn resamples(&self) -> u64 {
        self.resamples.load(Ordering::Relaxed)
    }

    /// The entities cells of layer `kind` at `n × n` pixels: the atlas's
    /// cells, where the atlas has an empty cell for a tile the layer uses
    /// (DDNet's atlas has no tele, speedup, switch and tune cells) the
    /// palette colour, and a speedup drawn with an arrow pointing right
    /// (turned by the tile's angle when drawn).
    pub(crate) fn entity_cells(&self, kind: PhysicsKind, n: u32) -> Arc<Cells> {
        let kind = match kind {
            PhysicsKind::Tiles | PhysicsKind::Front => PhysicsKind::Game,
            k => k,
        };
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry((Some(kind), n))
            .or_insert_with(|| {
                self.resamples.fetch_add(1, Ordering::Relaxed);
                let palette = entities::palette(kind);
                let mut cells = match &self.atlas {
                    Some(a) => {
                        let mut c = Cells::resample(a, n);
                        for (id, colour) in palette.iter().enumerate() {
                            let known = colour[..3] != entities::OTHER && colour[3] != 0;
                            if known && c.cell(id as u8).chunks_exact(4).all(|p| p[3] == 0) {
                                c.fill(id as u8, *colour);
                            }
                        }
                        c
                    }
                    None => Cells::flat(&palette, n),
                };
                if kind == PhysicsKind::Speedup {
                    cells.arrow(crate::map::names::TILE_BOOST, entities::ARROW);
                }
                Arc::new(cells)
            })
            .clone()
    }
}

/// Which picture of a map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Entities,
    Full,
}

/// Options of one render.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    pub style: Style,
    pub size: Size,
}

/// A picture that could not be drawn: its error, and the warnings found
/// before it, except those of a part that did not parse (the datafile's
/// when its tables do not parse, the map's when its items do not): as
/// `maps index` keeps them.
#[derive(Clone, Debug)]
pub struct RenderFailure {
    pub error: ErrorRecord,
    pub warnings: Vec<WarningRecord>,
}

impl From<ErrorRecord> for RenderFailure {
    /// The error with no warnings.
    fn from(error: ErrorRecord) -> Self {
        RenderFailure {
            error,
            warnings: Vec::new(),
        }
    }
}

/// A map's picture.
#[derive(Clone, Debug)]
pub struct Picture {
    pub canvas: Canvas,
    pub geometry: Geometry,
    pub warnings: Vec<WarningRecord>,
    /// The legend of the flat palette (entities style without the atlas;
    /// empty otherwise), drawn by [`Picture::draw_legend`].
    pub legend: Vec<legend::Entry>,
    /// What drawing cost, in the units of [`crate::limits::Limits::picture_work`]
    /// (pixel visits, rows scanned, tiles and quads read; 0 for the
    /// entities style, which is bounded by its six layers).
    pub work: u64,
    /// The most bytes held at once by the tiles, the drawing canvas and
    /// the scratch buffer while drawing (capacities): the memory a picture
    /// costs beyond the map's own bytes and the textures.
    pub held_bytes: u64,
}

impl Picture {
    /// Draws the legend (`extra`, e.g. the trails' players, then the
    /// palette's rows) inside the canvas, by the rules of [`legend`]; call
    /// it after any overlay. A truncated or skipped legend is returned as a
    /// warning of stage `render`, kind `legend_truncated` or
    /// `legend_skipped`, section `legend`.
    pub fn draw_legend(&mut self, extra: &[legend::Entry]) -> Option<WarningRecord> {
        let mut rows = extra.to_vec();
        rows.extend_from_slice(&self.legend);
        let kind = match legend::draw(&mut self.canvas, &rows, entities::BACKGROUND) {
            legend::Outcome::Empty | legend::Outcome::Drawn(_) => return None,
            legend::Outcome::Truncated { .. } => RenderKind::LegendTruncated,
            legend::Outcome::Skipped => RenderKind::LegendSkipped,
        };
        Some(WarningRecord {
            stage: Stage::Render,
            kind: kind.kind(),
            section: "legend".into(),
            offset: 0,
        })
    }
}

/// The kinds of the `render` stage's errors and warnings.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RenderKind {
    BadEmbeddedImage,
    LegendSkipped,
    LegendTruncated,
    MissingExternalImage,
    NoEmbeddedMap,
    NoGameLayer,
    NoMap,
    TooLarge,
    TooManyWarnings,
    WorkLimit,
}

crate::kind::kind_names!(RenderKind {
    BadEmbeddedImage => "bad_embedded_image",
    LegendSkipped => "legend_skipped",
    LegendTruncated => "legend_truncated",
    MissingExternalImage => "missing_external_image",
    NoEmbeddedMap => "no_embedded_map",
    NoGameLayer => "no_game_layer",
    NoMap => "no_map",
    TooLarge => "too_large",
    TooManyWarnings => "too_many_warnings",
    WorkLimit => "work_limit",
});

/// A failure of the `render` stage (not of the datafile or map parser).
pub(crate) fn render_error(kind: RenderKind, message: String) -> ErrorRecord {
    ErrorRecord {
        stage: Stage::Render,
        kind: kind.kind(),
        section: "map".into(),
        offset: 0,
        message,
    }
}

/// Renders the map in `bytes`. `inflater` must have been started for
/// this file; `buf` is scratch space.
pub fn render_map(
    bytes: &[u8],
    opts: &RenderOptions,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
) -> Result<Picture, RenderFailure> {
    render_map_with(bytes, opts, textures, inflater, buf, None)
}

/// [`render_map`] with the full style's work capped at `max_work`
/// (`None`: [`crate::limits::Limits::picture_work`] of the drawing's
/// pixels).
pub fn render_map_with(
    bytes: &[u8],
    opts: &RenderOptions,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    max_work: Option<u64>,
) -> Result<Picture, RenderFailure> {
    render_map_cropped(bytes, opts, Crop::None, textures, inflater, buf, max_work)
}

/// [`render_map_with`] of the part of the map `crop` says: the picture's
/// size (`opts.size`) is that of the part, its geometry's `x0`, `y0` where
/// the part starts.
pub fn render_map_cropped(
    bytes: &[u8],
    opts: &RenderOptions,
    crop: Crop,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    max_work: Option<u64>,
) -> Result<Picture, RenderFailure> {
    let mut df_warnings = Warnings::new(crate::datafile::MAX_WARNINGS);
    let df =
        Datafile::parse_with(bytes, &mut df_warnings).map_err(|e| ErrorRecord::datafile(&e))?;
    render_datafile_in(
        &df,
        &df_warnings,
        opts,
        crop,
        textures,
        inflater,
        buf,
        max_work,
    )
}

/// Renders a parsed map (see [`render_map`]) whose datafile warnings were
/// `df_warnings`.
pub fn render_datafile(
    df: &Datafile<'_>,
    df_warnings: &[crate::datafile::Warning],
    opts: &RenderOptions,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
) -> Result<Picture, RenderFailure> {
    render_datafile_with(df, df_warnings, opts, textures, inflater, buf, None)
}

/// [`render_datafile`] with the full style's work capped as
/// [`render_map_with`] says.
pub fn render_datafile_with(
    df: &Datafile<'_>,
    df_warnings: &[crate::datafile::Warning],
    opts: &RenderOptions,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    max_work: Option<u64>,
) -> Result<Picture, RenderFailure> {
    render_datafile_in(
        df,
        df_warnings,
        opts,
        Crop::None,
        textures,
        inflater,
        buf,
        max_work,
    )
}

/// [`render_datafile_with`] of the part `crop` says.
#[allow(clippy::too_many_arguments)]
fn render_datafile_in(
    df: &Datafile<'_>,
    df_warnings: &[crate::datafile::Warning],
    opts: &RenderOptions,
    crop: Crop,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    max_work: Option<u64>,
) -> Result<Picture, RenderFailure> {
    let mut warnings: Vec<WarningRecord> =
        df_warnings.iter().map(WarningRecord::datafile).collect();
    let load = LoadOptions {
        info: false,
        names: opts.style == Style::Full,
        check_env_points: false,
        check_quads: false,
    };
    let mut map_warnings = Warnings::new(crate::map::MAX_WARNINGS);
    let map = match Map::parse_with(df, inflater, buf, load, &mut map_warnings) {
        Ok(Some(m)) => m,
        Err(e) => {
            return Err(RenderFailure {
                error: ErrorRecord::map(&e),
                warnings,
            })
        }
        Ok(None) if crate::map::legacy::is_legacy(df) => {
            let drawn = draw_legacy(df, opts, textures, inflater, buf, &mut map_warnings);
            warnings.extend(map_warnings.iter().map(WarningRecord::map));
            return Drawn::picture(drawn, warnings);
        }
        Ok(None) => {
            let reason = crate::map::absent_reason(df)
                .map_or("no map items", |r| r.name())
                .to_string();
            return Err(RenderFailure {
                error: render_error(
                    RenderKind::NoMap,
                    format!("not a map with layers ({reason})"),
                ),
                warnings,
            });
        }
    };
    warnings.extend(map_warnings.iter().map(WarningRecord::map));
    // The datafile's, the map's and the drawing's (one per unusable image)
    // warnings, each capped by its own sink; all of them also with an
    // error of the drawing.
    let mut drawing = Warnings::new(crate::warn::DEFAULT_MAX_WARNINGS);
    let drawn = draw_map(
        df,
        &map,
        opts,
        crop,
        textures,
        inflater,
        buf,
        &mut drawing,
        max_work,
    );
    warnings.extend(drawing.into_vec());
    Drawn::picture(drawn, warnings)
}

/// A drawn picture before its warnings are added.
struct Drawn {
    canvas: Canvas,
    geometry: Geometry,
    legend: Vec<legend::Entry>,
    work: u64,
    held_bytes: u64,
}

impl Drawn {
    /// The picture of a drawing, or its failure, with all of the map's
    /// `warnings`.
    fn picture(
        drawn: Result<Drawn, ErrorRecord>,
        warnings: Vec<WarningRecord>,
    ) -> Result<Picture, RenderFailure> {
        match drawn {
            Ok(d) => Ok(Picture {
                canvas: d.canvas,
                geometry: d.geometry,
                warnings,
                legend: d.legend,
                work: d.work,
                held_bytes: d.held_bytes,
            }),
            Err(error) => Err(RenderFailure { error, warnings }),
        }
    }
}

/// The picture of a parsed map in `opts`' style: its canvas, geometry,
/// palette legend and cost.
#[allow(clippy::too_many_arguments)]
fn draw_map(
    df: &Datafile<'_>,
    map: &Map,
    opts: &RenderOptions,
    crop: Crop,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    drawing: &mut Warnings<WarningRecord>,
    max_work: Option<u64>,
) -> Result<Drawn, ErrorRecord> {
    let Some(game) = map.game_layer() else {
        return Err(render_error(
            RenderKind::NoGameLayer,
            "the map has no game layer".into(),
        ));
    };
    // The physics layers are checked as the entities style loads them (the
    // full style draws none of them, but sizes the picture by the game
    // layer): a map with a broken one is refused in either style, as
    // `maps index` refuses it.
    for kind in PhysicsKind::PHYSICS {
        if let Some(i) = map.physics_layer(kind) {
            map.check_tiles(df, i, inflater)
                .map_err(|e| ErrorRecord::map(&e))?;
        }
    }
    let (tw, th) = (game.width.max(0) as u32, game.height.max(0) as u32);
    let whole = TileRect {
        x: 0,
        y: 0,
        w: tw,
        h: th,
    };
    let geometry_of = |r: TileRect| {
        let mut g = Geometry::new(r.w, r.h, opts.size)
            .map_err(|m| render_error(RenderKind::TooLarge, m))?;
        (g.x0, g.y0) = (r.x, r.y);
        Ok::<Geometry, ErrorRecord>(g)
    };
    let mut cost = full::Cost::default();
    let (canvas, legend, geometry) = match opts.style {
        Style::Entities => draw_entities(
            df,
            map,
            crop,
            whole,
            geometry_of,
            textures,
            inflater,
            buf,
            &mut cost,
        )?,
        Style::Full => {
            let area = match crop {
                Crop::None => whole,
                Crop::Content => {
                    let mut load = |kind| -> Result<Option<TileLayer>, ErrorRecord> {
                        match map.physics_layer(kind) {
                            Some(i) => {
                                let mut scratch = Vec::new();
                                map.load_tiles(df, i, inflater, &mut scratch)
                                    .map_err(|e| ErrorRecord::map(&e))
                            }
                            None => Ok(None),
                        }
                    };
                    let game = load(PhysicsKind::Game)?;
                    let front = load(PhysicsKind::Front)?;
                    game.as_ref()
                        .and_then(|g| content_bounds(g, front.as_ref()))
                        .unwrap_or(whole)
                }
            };
            let geometry = geometry_of(area)?;
            let canvas = full::draw(
                df, map, &geometry, textures, inflater, buf, drawing, max_work, &mut cost,
            )?;
            (canvas, Vec::new(), geometry)
        }
    };
    Ok(Drawn {
        canvas,
        geometry,
        legend,
        work: cost.work,
        held_bytes: cost.held_bytes,
    })
}

/// The picture of a Teeworlds 0.3 map ([`crate::map::legacy`]): its game
/// layer (collision and entities) in the entities style. The full style
/// has nothing to draw it with (no groups or layers of the later format:
/// its tilemaps and images are not read), so it is refused with a
/// `no_map` error saying so.
fn draw_legacy(
    df: &Datafile<'_>,
    opts: &RenderOptions,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    map_warnings: &mut Warnings<crate::map::MapWarning>,
) -> Result<Drawn, ErrorRecord> {
    if opts.style == Style::Full {
        return Err(render_error(
            RenderKind::NoMap,
            "a Teeworlds 0.3 map (MAPRES items, no layers): only the entities style draws it"
                .into(),
        ));
    }
    let game = crate::map::legacy::game_layer(df, inflater, buf, map_warnings)
        .map_err(|e| ErrorRecord::map(&e))?
        .expect("is_legacy");
    let geometry = Geometry::new(game.width as u32, game.height as u32, opts.size)
        .map_err(|m| render_error(RenderKind::TooLarge, m))?;
    let n = if geometry.shrink > 1 {
        1
    } else {
        geometry.cell
    };
    let cells = textures.entity_cells(game.kind, n);
    let legend = if textures.has_atlas() {
        Vec::new()
    } else {
        entities::legend_entries(&[&game])
    };
    let canvas = entities::draw(&[(&game, &*cells)], &geometry);
    let held_bytes = (game.bytes.capacity() + buf.capacity() + canvas.rgb.capacity()) as u64;
    Ok(Drawn {
        canvas,
        geometry,
        legend,
        work: 0,
        held_bytes,
    })
}

/// The `entities` style of a parsed map (the part `crop` says of the
/// `whole` game layer, its geometry from `geometry_of`), its palette
/// legend (empty with the atlas) and geometry.
#[allow(clippy::too_many_arguments)]
fn draw_entities(
    df: &Datafile<'_>,
    map: &Map,
    crop: Crop,
    whole: TileRect,
    geometry_of: impl Fn(TileRect) -> Result<Geometry, ErrorRecord>,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    cost: &mut full::Cost,
) -> Result<(Canvas, Vec<legend::Entry>, Geometry), ErrorRecord> {
    let mut layers: Vec<TileLayer> = Vec::new();
    for kind in PhysicsKind::PHYSICS {
        let Some(i) = map.physics_layer(kind) else {
            continue;
        };
        if let Some(t) = map
            .load_tiles(df, i, inflater, buf)
            .map_err(|e| ErrorRecord::map(&e))?
        {
            layers.push(t);
        }
    }
    let area = match crop {
        Crop::None => whole,
        Crop::Content => {
            let of = |k| layers.iter().find(|l| l.kind == k);
            of(PhysicsKind::Game)
                .and_then(|g| content_bounds(g, of(PhysicsKind::Front)))
                .unwrap_or(whole)
        }
    };
    let geometry = &geometry_of(area)?;
    if area != whole {
        // Only the part is drawn: each layer cut to it (the drawing starts
        // at its first tile).
        layers = layers.iter().map(|l| crop_layer(l, area)).collect();
    }
    let n = if geometry.shrink > 1 {
        1
    } else {
        geometry.cell
    };
    let cells: Vec<Arc<Cells>> = layers
        .iter()
        .map(|l| textures.entity_cells(l.kind, n))
        .collect();
    let pairs: Vec<(&TileLayer, &Cells)> = layers.iter().zip(cells.iter().map(|c| &**c)).collect();
    let legend = if textures.has_atlas() {
        Vec::new()
    } else {
        entities::legend_entries(&layers.iter().collect::<Vec<_>>())
    };
    let canvas = entities::draw(&pairs, geometry);
    // Each layer's tiles (the worker's buffer became the first one's), the
    // buffer and the picture.
    let tiles: usize = layers.iter().map(|l| l.bytes.capacity()).sum();
    cost.held_bytes = (tiles + buf.capacity() + canvas.rgb.capacity()) as u64;
    Ok((canvas, legend, *geometry))
}
