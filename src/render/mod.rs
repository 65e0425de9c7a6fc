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
//! - `geometry`: the picture size ([`Size`] → [`Geometry`]) and the part
//!   of the map it shows ([`Crop`]).
//! - `textures`: where the textures come from ([`Textures`], shared by all
//!   workers with a cache of resampled cells).
//! - this module: [`render_map`], the whole path from map bytes to a
//!   canvas, and its options, pictures and failures.
//!
//! A picture is never drawn larger than asked and then shrunk: with at
//! least one pixel per tile each tile is drawn from cells resampled to that
//! size; with several tiles per pixel each pixel is the mean of the tiles'
//! one-pixel colours.

pub mod entities;
pub mod envelope;
pub mod full;
mod geometry;
pub mod heatmap;
pub mod legend;
pub mod raster;
mod textures;

use crate::datafile::{Datafile, Inflater};
use crate::kind::Stage;
use crate::map::tiles::PhysicsKind;
use crate::map::{LoadOptions, Map, TileLayer};
use crate::report::{ErrorRecord, WarningRecord};
use crate::warn::Warnings;
use geometry::crop_layer;
pub use geometry::{
    content_bounds, Crop, Geometry, Size, TileRect, MAX_PICTURE_PIXELS, MAX_PX_PER_TILE,
};
use raster::{Canvas, Cells};
use std::sync::Arc;
pub use textures::{ddnet_data_dirs, Textures, TexturesFrom, MAPRES_ENV};

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
    TooManyWarnings => crate::kind::TOO_MANY_WARNINGS,
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
    render_map_limited(bytes, opts, textures, inflater, buf, None)
}

/// [`render_map`] with the full style's work capped at `max_work`
/// (`None`: [`crate::limits::Limits::picture_work`] of the drawing's
/// pixels).
pub fn render_map_limited(
    bytes: &[u8],
    opts: &RenderOptions,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    max_work: Option<u64>,
) -> Result<Picture, RenderFailure> {
    render_map_cropped(bytes, opts, Crop::None, textures, inflater, buf, max_work)
}

/// [`render_map_limited`] of the part of the map `crop` says: the picture's
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
        Datafile::parse_observed(bytes, &mut df_warnings).map_err(|e| ErrorRecord::datafile(&e))?;
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
    render_datafile_limited(df, df_warnings, opts, textures, inflater, buf, None)
}

/// [`render_datafile`] with the full style's work capped as
/// [`render_map_limited`] says.
pub fn render_datafile_limited(
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

/// [`render_datafile_limited`] of the part `crop` says.
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
    let map = match Map::parse_opts(df, inflater, buf, load, &mut map_warnings) {
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
