//! The `full` style: the map as the game draws it, back to front.
//!
//! Groups in item order, each group's layers in order.
//!
//! **Where a group is drawn.** In the game a group with parallax `par`
//! (percent / 100) and offset `off` shows, around the camera at `c`, its
//! point `off + c × par` at the screen's centre (DDNet's
//! `MapScreenToWorld`); the screen is `S` world units wide (the game's
//! screen at zoom 1 on a 16:9 display, [`screen`]: about 1429.8 × 804.3).
//! A picture of the whole map (`P` world units wide, centre `C = P / 2`,
//! the game layer's size) shows on each axis:
//!
//! - a group with parallax ±100 %, or any group when the map is no wider
//!   than the screen (`P ≤ S`): as the screen shows it with the camera at
//!   the centre of the map: the group's point `p` at map point
//!   `p + C × (1 − par) − off`, rounded to whole pixels (the rule of the
//!   game group, unchanged);
//! - any other group (parallax 0 follows the camera, 50 % moves at half
//!   its speed, 200 % at twice): everything the screen shows of it while
//!   the camera crosses the map with the screen inside the map (camera
//!   from `S / 2` to `P − S / 2`), stretched over the picture. That is the
//!   group's span `off + par × S / 2 − S / 2 ..= off + par × (P − S / 2) + S / 2`,
//!   `s = (|par| × (P − S) + S) / P` times the picture, centred where the
//!   screen's centre is with the camera at the map's centre: the group's
//!   point `p` at map point `C + (p − off − par × C) / s`. A parallax-0 sky
//!   quad made to fill the screen thus fills the picture (the screen's
//!   view of it stretched), and a background made for the whole camera
//!   path reaches the picture's edges. Its tiles are drawn by the texel
//!   under each pixel's centre (nearest).
//!
//! Tile layers are drawn from their image's 16 × 16 cells (embedded
//! images decoded from the map, external ones from `mapres/<name>.png`),
//! turned by the tile flags and tinted by the layer colour: each texel's
//! colour times the layer colour's, its alpha times the colour's alpha
//! (the premultiplied texel times the premultiplied colour), so a layer
//! at alpha 83 shows its background through, as in the game. A layer
//! without an image draws its tiles in its colour, as does a layer whose
//! external image is missing (with a warning naming the image). Quads are
//! filled with their corner colours (interpolated) times their texture,
//! blended by the product's alpha. Physics layers are not drawn.
//!
//! Envelopes are read at time 0 ([`super::envelope`], every curve DDNet
//! has, bezier included): a tile layer's colour envelope multiplies the
//! layer colour (alpha too); a quad's colour envelope
//! multiplies its corner colours, and its position envelope turns the
//! corners about the quad's pivot by the rotation and then moves them by
//! the offset (DDNet's `RenderQuads`).
//!
//! A group with clipping on draws only inside its clip rectangle, given in
//! world units of the game group (as the game's `RenderGroup` maps it to
//! the screen); a clip rectangle with no area hides the group.
//!
//! With several tiles per pixel the map is drawn at one pixel per tile and
//! each picture pixel is the mean of its tiles' pixels.
//!
//! Cost: a tile layer reads only the tiles that meet its group's clip
//! rectangle (the picture at most) and visits each of their pixels once
//! (a scaled group's tile the pixels whose centres it holds); a
//! quad is clipped to the rectangle and each of its two triangles is
//! covered row by row, each row's span of pixels found from the edges
//! (a pixel or two of margin, each tested as before), so a quad costs its
//! rows plus the pixels it covers, never its bounding box; an envelope is
//! read by bisection, once per quad and kind. All of it is counted
//! ([`Cost::work`]) and capped at [`Limits::picture_work`] of the drawing's
//! pixels: past it the picture fails with `work_limit`, naming the layer.

mod quads;
use super::envelope::Envelopes;
use super::raster::{mul255, premultiply, Canvas, Cells, Rgba, Transform, MAX_TEXTURE_PIXELS};
use super::{Geometry, Textures};
use crate::datafile::{Datafile, Inflater};
use crate::kind::Stage;
use crate::limits::Limits;
use crate::map::tiles::PhysicsKind;
use crate::map::{ImageVariant, LayerKind, Map, QUAD_SIZE};
use crate::report::{ErrorRecord, WarningRecord};
use crate::warn::{Warn, Warnings};
use quads::{draw_quad, int, QuadAt};
use std::sync::Arc;

/// The colour of the sky where nothing is drawn.
pub const BACKGROUND: [u8; 3] = [28, 30, 38];

/// What drawing one picture cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Pixel visits, rows scanned, tiles and quads read (the units of
    /// [`Limits::picture_work`]).
    pub work: u64,
    /// The most bytes held at once by tiles, canvases and the scratch
    /// buffer (capacities).
    pub held_bytes: u64,
}

/// The work of one picture against its cap.
struct Meter {
    used: u64,
    cap: u64,
}

/// The cap of a [`Meter`] was passed.
struct Over;

impl Meter {
    /// Counts `n` units of work; `Err` once past the cap.
    #[inline]
    fn charge(&mut self, n: u64) -> Result<(), Over> {
        self.used = self.used.saturating_add(n);
        if self.used > self.cap {
            Err(Over)
        } else {
            Ok(())
        }
    }
}

/// The image of map image `index`, or why there is none.
enum Texture {
    /// Decoded (embedded) or loaded (external).
    Image(Arc<Rgba>),
    /// No usable image: draw in the layer colour.
    Plain,
}

/// Images of one map, decoded or loaded on first use.
struct Images<'t> {
    textures: &'t Textures,
    loaded: Vec<Option<Arc<Rgba>>>,
    tried: Vec<bool>,
}

impl Images<'_> {
    fn get(
        &mut self,
        i: usize,
        map: &Map,
        df: &Datafile<'_>,
        inflater: &mut Inflater,
        buf: &mut Vec<u8>,
        warnings: &mut Warnings<WarningRecord>,
    ) -> Texture {
        if i >= self.loaded.len() {
            return Texture::Plain;
        }
        if !self.tried[i] {
            self.tried[i] = true;
            let img = &map.images[i];
            let warn = |kind: &'static str, what: String| WarningRecord {
                stage: Stage::Render,
                kind,
                section: format!("image {i} ({what})"),
                offset: img.item_offset as u64,
            };
            if img.external {
                let name = img.name.clone().unwrap_or_default();
                match self.textures.external(&name) {
                    Some(t) => self.loaded[i] = Some(t),
                    None => warnings.warn(warn("missing_external_image", name)),
                }
            } else {
                match embedded(img, df, inflater, buf) {
                    Ok(t) => self.loaded[i] = Some(Arc::new(t)),
                    Err(m) => warnings.warn(warn("bad_embedded_image", m)),
                }
            }
        }
        match &self.loaded[i] {
            Some(t) => Texture::Image(t.clone()),
            None => Texture::Plain,
        }
    }
}

/// Decodes an embedded image's pixel block.
fn embedded(
    img: &crate::map::Image,
    df: &Datafile<'_>,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
) -> Result<Rgba, String> {
    let (w, h) = (img.width, img.height);
    if w <= 0 || h <= 0 || (w as u64) * (h as u64) > MAX_TEXTURE_PIXELS {
        return Err(format!("{w} × {h} pixels"));
    }
    let data = img.data.ok_or("no pixel data")?;
    df.decompress(data, inflater, buf)
        .map_err(|e| e.to_string())?;
    let n = w as usize * h as usize;
    let pixels = match img.variant {
        ImageVariant::Rgb if buf.len() == n * 3 => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        _ if buf.len() == n * 4 => buf.clone(),
        _ => return Err(format!("{} bytes for {w} × {h} pixels", buf.len())),
    };
    Ok(Rgba {
        width: w as u32,
        height: h as u32,
        pixels,
    })
}

/// The layer colour (straight RGBA, clamped to 0..=255).
fn colour(c: [i32; 4]) -> [u8; 4] {
    c.map(|v| v.clamp(0, 255) as u8)
}

/// Premultiplied `p` tinted by premultiplied `tint` (the layer colour
/// premultiplied by its alpha, [`premultiply`]): each channel times the
/// tint's, so the colour's alpha scales the texel's colour as well as its
/// alpha, as the game's blending of a translucent layer does.
#[inline]
fn tinted(p: [u8; 4], tint: [u8; 4]) -> [u8; 4] {
    [
        mul255(u32::from(p[0]), u32::from(tint[0])) as u8,
        mul255(u32::from(p[1]), u32::from(tint[1])) as u8,
        mul255(u32::from(p[2]), u32::from(tint[2])) as u8,
        mul255(u32::from(p[3]), u32::from(tint[3])) as u8,
    ]
}

/// The game's screen at zoom 1 on a 16:9 display, in world units: DDNet's
/// `CalcScreenParams` (`√(1150 × 1000 / aspect)` high, `aspect` times that
/// wide, at most 1500 × 1050): about 1429.8 × 804.3.
pub fn screen() -> (f64, f64) {
    let aspect = 16.0 / 9.0;
    let h = (1150.0f64 * 1000.0 / aspect).sqrt();
    let (w, h) = (h * aspect, h);
    let (w, h) = if w > 1500.0 {
        (1500.0, 1500.0 / aspect)
    } else {
        (w, h)
    };
    if h > 1050.0 {
        (1050.0 * aspect, 1050.0)
    } else {
        (w, h)
    }
}

/// How one axis of a group's world maps to the drawing: the pixel of
/// group point `p` is `p × scale + origin`. `whole`: the scale is the
/// drawing's own and `origin` a whole pixel (tiles then fall on whole
/// cells).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Axis {
    scale: f64,
    origin: f64,
    whole: bool,
}

/// The placement of a group on one axis of the picture (see the module
/// documentation): `parallax` and `offset` of the group, `tiles` of the
/// game layer on this axis, `screen` the game's screen on this axis in
/// world units, `ppw` pixels per world unit.
fn place(parallax: i32, offset: i32, tiles: u32, screen: f64, ppw: f64) -> Axis {
    let pic = f64::from(tiles) * 32.0;
    let centre = pic / 2.0;
    let par = f64::from(parallax) / 100.0;
    let offset = f64::from(offset);
    if parallax.unsigned_abs() == 100 || pic <= screen {
        // Seen from the centre, as the screen there shows it.
        let shift = centre * (1.0 - par) - offset;
        return Axis {
            scale: ppw,
            origin: (shift * ppw).round(),
            whole: true,
        };
    }
    // What the screen shows of the group while the camera crosses the
    // map (the screen inside it), stretched over the picture.
    let s = (par.abs() * (pic - screen) + screen) / pic;
    Axis {
        scale: ppw / s,
        origin: (centre - (offset + par * centre) / s) * ppw,
        whole: false,
    }
}

/// Draws the map's groups and layers on a canvas of `geo`'s size, doing
/// at most `max_work` work (`None`: [`Limits::picture_work`] of the
/// drawing's pixels); what it cost is added to `cost`.
#[allow(clippy::too_many_arguments)]
pub fn draw(
    df: &Datafile<'_>,
    map: &Map,
    geo: &Geometry,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    warnings: &mut Warnings<WarningRecord>,
    max_work: Option<u64>,
    cost: &mut Cost,
) -> Result<Canvas, ErrorRecord> {
    // Drawn at `cell` pixels per tile (1 when shrinking, then averaged).
    let cell = if geo.shrink > 1 { 1 } else { geo.cell };
    if u64::from(geo.tiles_w) * u64::from(geo.tiles_h) * u64::from(cell * cell)
        > super::MAX_PICTURE_PIXELS
    {
        return Err(ErrorRecord {
            stage: Stage::Render,
            kind: super::RenderKind::TooLarge.kind(),
            section: "map".into(),
            offset: 0,
            message: format!(
                "{} × {} tiles are over the {} pixel limit of the full style",
                geo.tiles_w,
                geo.tiles_h,
                super::MAX_PICTURE_PIXELS
            ),
        });
    }
    let mut canvas = Canvas::new(geo.tiles_w * cell, geo.tiles_h * cell, BACKGROUND);
    let pixels = u64::from(canvas.width) * u64::from(canvas.height);
    let mut meter = Meter {
        used: 0,
        cap: max_work.unwrap_or_else(|| Limits::picture_work(pixels)),
    };
    let mut held = |tiles: usize, buf: &Vec<u8>, canvas: &Canvas| {
        let now = (tiles + buf.capacity() + canvas.rgb.capacity()) as u64;
        cost.held_bytes = cost.held_bytes.max(now);
    };
    let (cw, ch) = (canvas.width, canvas.height);
    let over = |g: usize, li: usize, meter: &Meter| {
        let layer = &map.layers[li];
        let rule = if max_work.is_none() {
            format!(
                " ({} per pixel plus {})",
                Limits::MAX_PICTURE_OVERDRAW,
                Limits::PICTURE_WORK_ALLOWANCE
            )
        } else {
            String::new()
        };
        ErrorRecord {
            stage: Stage::Render,
            kind: super::RenderKind::WorkLimit.kind(),
            section: format!("layer {li} ({})", layer.name),
            offset: layer.item_offset as u64,
            message: format!(
                "group {g} layer {li} ({}): drawing goes over the work limit of a picture \
                 drawn on {cw} × {ch} pixels, {} pixel visits, rows, tiles and quads read{rule}: \
                 its tiles or quads cover the picture too many times",
                layer.name, meter.cap,
            ),
        }
    };
    let px_per_world = f64::from(cell) / 32.0;
    // Groups are placed as on the whole map (the game layer's size, see
    // `place`), then shifted by the crop's top-left tile (0, 0 unless
    // cropped): a cropped picture is that part of the whole picture.
    let (whole_w, whole_h) = map.game_layer().map_or((geo.tiles_w, geo.tiles_h), |t| {
        (t.width.max(0) as u32, t.height.max(0) as u32)
    });
    let crop_px = (
        f64::from(geo.x0) * f64::from(cell),
        f64::from(geo.y0) * f64::from(cell),
    );
    let mut images = Images {
        textures,
        loaded: vec![None; map.images.len()],
        tried: vec![false; map.images.len()],
    };
    // Embedded images' cells, per map (external ones are shared by the run).
    let mut cells_cache: std::collections::HashMap<usize, Arc<Cells>> = Default::default();
    let envelopes = Envelopes::new(df, map);
    let scr = screen();
    let place_of = |g: &crate::map::Group| {
        let mut x = place(g.parallax.0, g.offset.0, whole_w, scr.0, px_per_world);
        let mut y = place(g.parallax.1, g.offset.1, whole_h, scr.1, px_per_world);
        x.origin -= crop_px.0;
        y.origin -= crop_px.1;
        (x, y)
    };
    let game_shift = map
        .physics_layer(PhysicsKind::Game)
        .and_then(|i| map.layers[i].group)
        .and_then(|g| map.groups.get(g))
        .map_or((0, 0), |g| {
            // The clip rectangle is in the game group's world units.
            let (x, y) = place_of(g);
            (x.origin.round() as i64, y.origin.round() as i64)
        });
    let whole = Clip {
        x0: 0,
        y0: 0,
        x1: i64::from(canvas.width),
        y1: i64::from(canvas.height),
    };
    for (gi, g) in map.groups.iter().enumerate() {
        let (ax, ay) = place_of(g);
        let clip = match g.clip {
            Some(c) if c.enabled => {
                let px = |v: i32| (f64::from(v) * px_per_world).round() as i64;
                let (x0, y0) = (px(c.x) + game_shift.0, px(c.y) + game_shift.1);
                let r = Clip {
                    x0: x0.max(0),
                    y0: y0.max(0),
                    x1: (x0 + px(c.width)).min(whole.x1),
                    y1: (y0 + px(c.height)).min(whole.y1),
                };
                if r.x0 >= r.x1 || r.y0 >= r.y1 {
                    continue;
                }
                r
            }
            _ => whole,
        };
        let start = g.start_layer.max(0) as usize;
        let end = start.saturating_add(g.num_layers.max(0) as usize);
        for li in start..end.min(map.layers.len()) {
            match &map.layers[li].kind {
                LayerKind::Tilemap(tm) if tm.kind == PhysicsKind::Tiles => {
                    let mut tint = colour(tm.color);
                    if let Some(e) = tm
                        .color_env
                        .and_then(|e| envelopes.eval(map, e, tm.color_env_offset))
                    {
                        tint = scaled(tint, e);
                    }
                    meter
                        .charge(envelopes.take_reads())
                        .map_err(|Over| over(gi, li, &meter))?;
                    if tint[3] == 0 {
                        continue;
                    }
                    // A layer whose data index is not a data block was
                    // warned about as the map was read
                    // (`tile_data_out_of_range`): not drawn, as the index
                    // does not count it.
                    if tm.tile_block(df).is_none() {
                        continue;
                    }
                    let tex = match tm.image {
                        Some(i) => images.get(i, map, df, inflater, buf, warnings),
                        None => Texture::Plain,
                    };
                    let Some(tiles) = map
                        .load_tiles(df, li, inflater, buf)
                        .map_err(|e| ErrorRecord::map(&e))?
                    else {
                        continue;
                    };
                    held(tiles.bytes.capacity(), buf, &canvas);
                    let cells: Arc<Cells> = match (&tex, tm.image) {
                        (Texture::Image(img), Some(i)) if map.images[i].external => {
                            let name = map.images[i].name.as_deref().unwrap_or_default();
                            textures.tileset_cells(name, img, cell)
                        }
                        (Texture::Image(img), Some(i)) => cells_cache
                            .entry(i)
                            .or_insert_with(|| Arc::new(Cells::resample(img, cell)))
                            .clone(),
                        _ => cells_cache
                            .entry(usize::MAX)
                            .or_insert_with(|| {
                                Arc::new(Cells::flat(&[[255, 255, 255, 255]; 256], cell))
                            })
                            .clone(),
                    };
                    let at = TilesAt {
                        clip,
                        shift: (ax.origin as i64, ay.origin as i64),
                        cell,
                        tint: premultiply(tint),
                    };
                    let drawn = if ax.whole && ay.whole {
                        draw_tiles(&mut canvas, &tiles, &cells, &at, &mut meter)
                    } else {
                        draw_tiles_scaled(&mut canvas, &tiles, &cells, &at, (ax, ay), &mut meter)
                    };
                    // The layer's bytes were the worker's buffer (inflated
                    // in place): handed back for the next layer.
                    if tiles.bytes.capacity() > buf.capacity() {
                        *buf = tiles.bytes;
                    }
                    drawn.map_err(|Over| over(gi, li, &meter))?;
                }
                LayerKind::Quads(q) => {
                    let tex = match q.image {
                        Some(i) => images.get(i, map, df, inflater, buf, warnings),
                        None => Texture::Plain,
                    };
                    let Ok(data) = usize::try_from(q.data) else {
                        continue;
                    };
                    let n = usize::try_from(q.num_quads).unwrap_or(0);
                    if n == 0 || df.decompress(data, inflater, buf).is_err() {
                        continue;
                    }
                    held(0, buf, &canvas);
                    let tex = match &tex {
                        Texture::Image(t) => Some(&**t),
                        Texture::Plain => None,
                    };
                    for quad in buf.chunks_exact(QUAD_SIZE).take(n) {
                        let env = |k: usize| {
                            usize::try_from(int(quad, k))
                                .ok()
                                .and_then(|e| envelopes.eval(map, e, int(quad, k + 1)))
                        };
                        let at = QuadAt {
                            scale: (ax.scale, ay.scale),
                            shift: (ax.origin, ay.origin),
                            pos: env(34),
                            colour: env(36),
                        };
                        meter
                            .charge(1 + envelopes.take_reads())
                            .and_then(|()| {
                                draw_quad(&mut canvas, &clip, quad, &at, tex, &mut meter)
                            })
                            .map_err(|Over| over(gi, li, &meter))?;
                    }
                }
                _ => {}
            }
        }
    }
    let out = if geo.shrink > 1 {
        let out = shrink(&canvas, geo);
        held(out.rgb.capacity(), buf, &canvas);
        out
    } else {
        canvas
    };
    cost.work = meter.used;
    Ok(out)
}

/// Where and how a tile layer is drawn: its group's clip rectangle and
/// shift in pixels (of an unscaled group), pixels per tile, the layer's
/// tint (premultiplied).
struct TilesAt {
    clip: Clip,
    shift: (i64, i64),
    cell: u32,
    tint: [u8; 4],
}

/// The tiles `lo .. hi` of a row of `len` tiles of `n` pixels, the first
/// drawn at pixel `shift`, that meet pixels `p0 .. p1`.
fn visible(p0: i64, p1: i64, shift: i64, n: i64, len: usize) -> std::ops::Range<usize> {
    // Tile `t` covers `shift + t·n .. shift + (t + 1)·n`.
    let lo = p0.saturating_sub(shift).div_euclid(n).max(0);
    let hi = shift
        .saturating_sub(p1)
        .div_euclid(n)
        .saturating_neg()
        .min(len as i64);
    if hi <= lo {
        0..0
    } else {
        lo as usize..hi as usize
    }
}

/// Draws the tiles of a layer that meet `at.clip`, each tinted by
/// `at.tint`; a tile read costs 1, a tile drawn its pixels too.
fn draw_tiles(
    canvas: &mut Canvas,
    tiles: &crate::map::TileLayer,
    cells: &Cells,
    at: &TilesAt,
    meter: &mut Meter,
) -> Result<(), Over> {
    let n = i64::from(at.cell);
    let per_tile = u64::from(at.cell) * u64::from(at.cell);
    let xs = visible(at.clip.x0, at.clip.x1, at.shift.0, n, tiles.width);
    for y in visible(at.clip.y0, at.clip.y1, at.shift.1, n, tiles.height) {
        for x in xs.clone() {
            let t = tiles.tile(x, y).expect("in bounds");
            if t[0] == 0 {
                meter.charge(1)?;
                continue;
            }
            meter.charge(1 + per_tile)?;
            let x0 = x as i64 * n + at.shift.0;
            let y0 = y as i64 * n + at.shift.1;
            draw_tinted(
                canvas,
                &at.clip,
                x0,
                y0,
                at.cell,
                cells.cell(t[0]),
                t[1],
                at.tint,
            );
        }
    }
    Ok(())
}

/// The pixels `first .. end` of a scaled axis that show tile `t`: those
/// whose centre falls in it (`origin + t·side ≤ x + ½ < origin + (t + 1)·side`),
/// so neighbouring tiles share no pixel and leave none out.
#[inline]
fn tile_pixels(origin: f64, side: f64, t: usize) -> (i64, i64) {
    let edge = |k: f64| (origin + k * side - 0.5).ceil() as i64;
    (edge(t as f64), edge(t as f64 + 1.0))
}

/// The tiles of a scaled axis (`side` pixels per tile, tile 0 at
/// `origin`) of a row of `len` whose pixels meet `p0 .. p1`.
fn visible_scaled(p0: i64, p1: i64, origin: f64, side: f64, len: usize) -> std::ops::Range<usize> {
    if p1 <= p0 {
        return 0..0;
    }
    let tile = |x: i64| ((x as f64 + 0.5 - origin) / side).floor();
    let lo = tile(p0).max(0.0);
    let hi = (tile(p1 - 1) + 1.0).min(len as f64);
    if hi <= lo {
        0..0
    } else {
        lo as usize..hi as usize
    }
}

/// [`draw_tiles`] for a group whose parallax scales it (see the module
/// documentation): each pixel shows the texel of the cell under its centre
/// (nearest); a tile read costs 1, a tile drawn its pixels too.
fn draw_tiles_scaled(
    canvas: &mut Canvas,
    tiles: &crate::map::TileLayer,
    cells: &Cells,
    at: &TilesAt,
    (ax, ay): (Axis, Axis),
    meter: &mut Meter,
) -> Result<(), Over> {
    let n = at.cell as usize;
    let (sx, sy) = (32.0 * ax.scale, 32.0 * ay.scale);
    let clip = &at.clip;
    // The cell pixel of picture pixel `x` in tile `t` of an axis.
    let sub = |x: i64, origin: f64, side: f64, t: usize| {
        let f = ((x as f64 + 0.5 - origin) / side - t as f64) * n as f64;
        (f.floor().max(0.0) as usize).min(n - 1)
    };
    let xs = visible_scaled(clip.x0, clip.x1, ax.origin, sx, tiles.width);
    for ty in visible_scaled(clip.y0, clip.y1, ay.origin, sy, tiles.height) {
        let (y0, y1) = tile_pixels(ay.origin, sy, ty);
        let (y0, y1) = (y0.max(clip.y0), y1.min(clip.y1));
        for tx in xs.clone() {
            let t = tiles.tile(tx, ty).expect("in bounds");
            let (x0, x1) = tile_pixels(ax.origin, sx, tx);
            let (x0, x1) = (x0.max(clip.x0), x1.min(clip.x1));
            if t[0] == 0 || x1 <= x0 || y1 <= y0 {
                meter.charge(1)?;
                continue;
            }
            meter.charge(1 + (x1 - x0) as u64 * (y1 - y0) as u64)?;
            let cell = cells.cell(t[0]);
            let turn = Transform::Flags(t[1]);
            for y in y0..y1 {
                let oy = sub(y, ay.origin, sy, ty);
                for x in x0..x1 {
                    let ox = sub(x, ax.origin, sx, tx);
                    let Some((cx, cy)) = turn.source(ox, oy, n) else {
                        continue;
                    };
                    let s = (cy * n + cx) * 4;
                    let c = tinted([cell[s], cell[s + 1], cell[s + 2], cell[s + 3]], at.tint);
                    if c[3] != 0 {
                        canvas.blend(x, y, c);
                    }
                }
            }
        }
    }
    Ok(())
}

/// The pixels a group may draw on: `x0 .. x1`, `y0 .. y1`.
#[derive(Clone, Copy, Debug)]
struct Clip {
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
}

impl Clip {
    #[inline]
    fn contains(&self, x: i64, y: i64) -> bool {
        x >= self.x0 && x < self.x1 && y >= self.y0 && y < self.y1
    }
}

/// Straight `c` times the envelope colour `e` (each channel clamped to
/// 0..=1).
fn scaled(c: [u8; 4], e: [f64; 4]) -> [u8; 4] {
    std::array::from_fn(|k| (f64::from(c[k]) * e[k].clamp(0.0, 1.0)).round() as u8)
}

/// Draws a tile cell tinted by premultiplied `tint` with its flags at `(x0, y0)` (may be
/// partly or wholly outside), only inside `clip`.
#[allow(clippy::too_many_arguments)]
fn draw_tinted(
    canvas: &mut Canvas,
    clip: &Clip,
    x0: i64,
    y0: i64,
    n: u32,
    cell: &[u8],
    flags: u8,
    tint: [u8; 4],
) {
    let nn = i64::from(n);
    if x0 >= clip.x1 || y0 >= clip.y1 || x0 + nn <= clip.x0 || y0 + nn <= clip.y0 {
        return;
    }
    let t = Transform::Flags(flags);
    for oy in 0..n as usize {
        for ox in 0..n as usize {
            let Some((sx, sy)) = t.source(ox, oy, n as usize) else {
                continue;
            };
            let s = (sy * n as usize + sx) * 4;
            let c = tinted([cell[s], cell[s + 1], cell[s + 2], cell[s + 3]], tint);
            let (x, y) = (x0 + ox as i64, y0 + oy as i64);
            if c[3] != 0 && clip.contains(x, y) {
                canvas.blend(x, y, c);
            }
        }
    }
}

/// The mean of `shrink × shrink` pixel blocks of a one-pixel-per-tile picture.
fn shrink(src: &Canvas, geo: &Geometry) -> Canvas {
    let k = geo.shrink;
    let mut out = Canvas::new(geo.width, geo.height, BACKGROUND);
    for py in 0..geo.height {
        for px in 0..geo.width {
            let mut acc = [0u32; 3];
            let mut n = 0;
            for y in py * k..((py + 1) * k).min(src.height) {
                for x in px * k..((px + 1) * k).min(src.width) {
                    let p = src.pixel(x, y).expect("in bounds");
                    for c in 0..3 {
                        acc[c] += u32::from(p[c]);
                    }
                    n += 1;
                }
            }
            let i = ((py * geo.width + px) * 3) as usize;
            for (o, a) in out.rgb[i..i + 3].iter_mut().zip(acc) {
                if let Some(mean) = (a + n / 2).checked_div(n) {
                    *o = mean as u8;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::quads::{barycentric, draw_quad, QuadAt};
    use super::*;
    use crate::render::raster::premultiply;

    /// The oracle: every pixel of the bounding box tested (the rasteriser
    /// before spans), for the triangles of [`draw_quad`].
    fn boxed(canvas: &mut Canvas, clip: &Clip, p: [(f64, f64); 4], colour: [u8; 4]) -> u64 {
        let min_x = p.iter().map(|v| v.0).fold(f64::INFINITY, f64::min);
        let max_x = p.iter().map(|v| v.0).fold(f64::NEG_INFINITY, f64::max);
        let min_y = p.iter().map(|v| v.1).fold(f64::INFINITY, f64::min);
        let max_y = p.iter().map(|v| v.1).fold(f64::NEG_INFINITY, f64::max);
        let (min_x, max_x) = (min_x.max(clip.x0 as f64), max_x.min(clip.x1 as f64));
        let (min_y, max_y) = (min_y.max(clip.y0 as f64), max_y.min(clip.y1 as f64));
        let mut tested = 0;
        if !(min_x < max_x && min_y < max_y) {
            return 0;
        }
        for tri in [[0usize, 1, 2], [1, 3, 2]] {
            let [a, b, c] = tri.map(|k| p[k]);
            let det = (b.1 - c.1) * (a.0 - c.0) + (c.0 - b.0) * (a.1 - c.1);
            if det.abs() < 1e-9 {
                continue;
            }
            for y in min_y.floor() as i64..max_y.ceil() as i64 {
                for x in min_x.floor() as i64..max_x.ceil() as i64 {
                    tested += 1;
                    if barycentric(a, b, c, det, tri[0] == 1, x, y).is_none() {
                        continue;
                    }
                    canvas.blend(x, y, premultiply(colour));
                }
            }
        }
        tested
    }

    /// A quad item with corners `p` (world units, before scaling), the
    /// pivot at the first corner, one colour and no envelopes.
    fn quad_bytes(p: [(f64, f64); 4], colour: [u8; 4]) -> Vec<u8> {
        let mut q = [0i32; 38];
        for (k, (x, y)) in p.iter().enumerate() {
            q[2 * k] = (x * 1024.0) as i32;
            q[2 * k + 1] = (y * 1024.0) as i32;
        }
        q[8] = q[0];
        q[9] = q[1];
        for k in 0..4 {
            for ch in 0..4 {
                q[10 + 4 * k + ch] = i32::from(colour[ch]);
            }
        }
        q[34] = -1;
        q[36] = -1;
        q.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// Random quads (convex, concave, crossed, slivers, huge, off the
    /// canvas, turned by a position envelope) drawn by spans give the
    /// same pixels as testing the whole bounding box, half-transparent so
    /// a pixel drawn twice shows; and spans test at most the pixels
    /// inside plus a few per row.
    #[test]
    fn spans_draw_what_the_bounding_box_draws() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..3000 {
            let (w, h) = (40 + next(60) as u32, 30 + next(50) as u32);
            let scale = [0.5, 1.0, 2.0][next(3) as usize];
            let spread = [8.0, 64.0, 400.0, 100_000.0][next(4) as usize];
            let (cx, cy) = (next(80) as f64 - 10.0, next(60) as f64 - 10.0);
            let mut p = [(0.0, 0.0); 4];
            for v in &mut p {
                let dx = next(20_000) as f64 / 10_000.0 - 1.0;
                let dy = next(20_000) as f64 / 10_000.0 - 1.0;
                *v = (cx + dx * spread, cy + dy * spread);
            }
            if round % 5 == 0 {
                // Axis-aligned (edges parallel to the rows).
                p = [
                    (p[0].0, p[0].1),
                    (p[1].0, p[0].1),
                    (p[0].0, p[2].1),
                    (p[1].0, p[2].1),
                ];
            }
            let clip = if round % 3 == 0 {
                Clip {
                    x0: 5,
                    y0: 3,
                    x1: i64::from(w) - 7,
                    y1: i64::from(h) - 2,
                }
            } else {
                Clip {
                    x0: 0,
                    y0: 0,
                    x1: i64::from(w),
                    y1: i64::from(h),
                }
            };
            let colour = [200, 100, 50, 128];
            let q = quad_bytes(p, colour);
            let rot = if round % 7 == 0 {
                Some([0.0, 0.0, next(360) as f64, 0.0])
            } else {
                None
            };
            let at = QuadAt {
                scale: (scale, scale),
                shift: (3.0, -2.0),
                pos: rot,
                colour: None,
            };
            // The corners as draw_quad computes them.
            let [ox, oy, r, _] = rot.unwrap_or([0.0; 4]);
            let (sin, cos) = r.to_radians().sin_cos();
            let world = |k: usize| {
                (
                    f64::from(int(&q, 2 * k)) / 1024.0,
                    f64::from(int(&q, 2 * k + 1)) / 1024.0,
                )
            };
            let pivot = world(4);
            let corners: [(f64, f64); 4] = std::array::from_fn(|k| {
                let (mut x, mut y) = world(k);
                if r != 0.0 {
                    let (dx, dy) = (x - pivot.0, y - pivot.1);
                    x = dx * cos - dy * sin + pivot.0;
                    y = dx * sin + dy * cos + pivot.1;
                }
                ((x + ox) * scale + 3.0, (y + oy) * scale - 2.0)
            });
            let mut want = Canvas::new(w, h, BACKGROUND);
            boxed(&mut want, &clip, corners, colour);
            let mut got = Canvas::new(w, h, BACKGROUND);
            let mut meter = Meter {
                used: 0,
                cap: u64::MAX,
            };
            assert!(draw_quad(&mut got, &clip, &q, &at, None, &mut meter).is_ok());
            assert!(got == want, "round {round}: {corners:?} clip {clip:?}");
            let drawn = want.rgb.chunks(3).filter(|p| *p != BACKGROUND).count() as u64;
            // Two triangles (a crossed quad draws a pixel twice), each row
            // with its margin.
            let rows = u64::from(h) + 6;
            assert!(
                meter.used <= 2 * drawn + 2 * rows * 8,
                "round {round}: {} for {drawn}",
                meter.used
            );
        }
    }
}
