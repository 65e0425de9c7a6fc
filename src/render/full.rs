//! The `full` style: the map as the game draws it, back to front.
//!
//! Groups in item order, each group's layers in order. A group with
//! parallax `(px, py)` % and offset `(ox, oy)` is seen from the centre of
//! the game layer `C`: a point of the group at `p` is drawn at
//! `p + C × (1 − parallax / 100) − offset` (the camera formula of the game's
//! `MapScreenToWorld` with the camera at `C`). Tile layers are drawn from
//! their image's 16 × 16 cells (embedded images decoded from the map,
//! external ones from `mapres/<name>.png`), turned by the tile flags and
//! tinted by the layer colour; a layer without an image draws its tiles in
//! its colour, as does a layer whose external image is missing (with a
//! warning naming the image). Quads are filled with their corner colours
//! (interpolated) times their texture. Physics layers are not drawn.
//!
//! Envelopes are read at time 0 ([`super::envelope`]): a tile layer's
//! colour envelope multiplies the layer colour; a quad's colour envelope
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

use super::envelope::Envelopes;
use super::raster::{mul255, premultiply, Canvas, Cells, Rgba, Transform, MAX_TEXTURE_PIXELS};
use super::{Geometry, Textures};
use crate::batch::record::WarningRecord;
use crate::datafile::{Datafile, Inflater};
use crate::kind::Stage;
use crate::map::tiles::PhysicsKind;
use crate::map::{ImageVariant, LayerKind, Map, QUAD_SIZE};
use crate::warn::{Warn, Warnings};
use std::sync::Arc;

/// The colour of the sky where nothing is drawn.
pub const BACKGROUND: [u8; 3] = [28, 30, 38];

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

/// Premultiplied `p` tinted by straight `tint`.
#[inline]
fn tinted(p: [u8; 4], tint: [u8; 4]) -> [u8; 4] {
    [
        mul255(u32::from(p[0]), u32::from(tint[0])) as u8,
        mul255(u32::from(p[1]), u32::from(tint[1])) as u8,
        mul255(u32::from(p[2]), u32::from(tint[2])) as u8,
        mul255(u32::from(p[3]), u32::from(tint[3])) as u8,
    ]
}

/// Draws the map's groups and layers on a canvas of `geo`'s size.
#[allow(clippy::too_many_arguments)]
pub fn draw(
    df: &Datafile<'_>,
    map: &Map,
    geo: &Geometry,
    textures: &Textures,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    warnings: &mut Warnings<WarningRecord>,
) -> Result<Canvas, crate::batch::record::ErrorRecord> {
    // Drawn at `cell` pixels per tile (1 when shrinking, then averaged).
    let cell = if geo.shrink > 1 { 1 } else { geo.cell };
    if u64::from(geo.tiles_w) * u64::from(geo.tiles_h) * u64::from(cell * cell)
        > super::MAX_PICTURE_PIXELS
    {
        return Err(crate::batch::record::ErrorRecord {
            stage: Stage::Render,
            kind: "too_large",
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
    let px_per_world = f64::from(cell) / 32.0;
    let centre = (f64::from(geo.tiles_w) * 16.0, f64::from(geo.tiles_h) * 16.0);
    let mut images = Images {
        textures,
        loaded: vec![None; map.images.len()],
        tried: vec![false; map.images.len()],
    };
    // Embedded images' cells, per map (external ones are shared by the run).
    let mut cells_cache: std::collections::HashMap<usize, Arc<Cells>> = Default::default();
    let envelopes = Envelopes::new(df, map);
    let shift_of = |g: &crate::map::Group| {
        let shift = (
            centre.0 * (1.0 - f64::from(g.parallax.0) / 100.0) - f64::from(g.offset.0),
            centre.1 * (1.0 - f64::from(g.parallax.1) / 100.0) - f64::from(g.offset.1),
        );
        (
            (shift.0 * px_per_world).round() as i64,
            (shift.1 * px_per_world).round() as i64,
        )
    };
    let game_shift = map
        .physics_layer(PhysicsKind::Game)
        .and_then(|i| map.layers[i].group)
        .and_then(|g| map.groups.get(g))
        .map_or((0, 0), shift_of);
    let whole = Clip {
        x0: 0,
        y0: 0,
        x1: i64::from(canvas.width),
        y1: i64::from(canvas.height),
    };
    for g in &map.groups {
        let shift_px = shift_of(g);
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
                        .map_err(|e| crate::batch::record::ErrorRecord::map(&e))?
                    else {
                        continue;
                    };
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
                    for y in 0..tiles.height {
                        for x in 0..tiles.width {
                            let t = tiles.tile(x, y).expect("in bounds");
                            if t[0] == 0 {
                                continue;
                            }
                            let x0 = x as i64 * i64::from(cell) + shift_px.0;
                            let y0 = y as i64 * i64::from(cell) + shift_px.1;
                            draw_tinted(
                                &mut canvas,
                                &clip,
                                x0,
                                y0,
                                cell,
                                cells.cell(t[0]),
                                t[1],
                                tint,
                            );
                        }
                    }
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
                            scale: px_per_world,
                            shift: shift_px,
                            pos: env(34),
                            colour: env(36),
                        };
                        draw_quad(&mut canvas, &clip, quad, &at, tex);
                    }
                }
                _ => {}
            }
        }
    }
    if geo.shrink > 1 {
        return Ok(shrink(&canvas, geo));
    }
    Ok(canvas)
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

/// Draws a tile cell tinted by `tint` with its flags at `(x0, y0)` (may be
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

fn int(q: &[u8], i: usize) -> i32 {
    i32::from_le_bytes([q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]])
}

/// Where and how a quad is drawn: pixels per world unit, the group's
/// shift in pixels, and the values of its position and colour envelopes.
struct QuadAt {
    scale: f64,
    shift: (i64, i64),
    pos: Option<[f64; 4]>,
    colour: Option<[f64; 4]>,
}

/// Fills one quad (152 bytes: corners top left, top right, bottom left,
/// bottom right, then the pivot; corner colours; texture coordinates;
/// position envelope and offset; colour envelope and offset) inside `clip`.
fn draw_quad(canvas: &mut Canvas, clip: &Clip, q: &[u8], at: &QuadAt, tex: Option<&Rgba>) {
    let (scale, shift) = (at.scale, at.shift);
    // Position envelope: offset (world units) and rotation (degrees).
    let [ox, oy, rot, _] = at.pos.unwrap_or([0.0; 4]);
    let (sin, cos) = rot.to_radians().sin_cos();
    let world = |k: usize| {
        (
            f64::from(int(q, 2 * k)) / 1024.0,
            f64::from(int(q, 2 * k + 1)) / 1024.0,
        )
    };
    let pivot = world(4);
    // Corners in pixels (points are fixed point, 1024 per world unit).
    let pt = |k: usize| {
        let (mut x, mut y) = world(k);
        if rot != 0.0 {
            let (dx, dy) = (x - pivot.0, y - pivot.1);
            x = dx * cos - dy * sin + pivot.0;
            y = dx * sin + dy * cos + pivot.1;
        }
        (
            (x + ox) * scale + shift.0 as f64,
            (y + oy) * scale + shift.1 as f64,
        )
    };
    let p = [pt(0), pt(1), pt(2), pt(3)];
    let env = at.colour.map_or([1.0; 4], |e| e.map(|v| v.clamp(0.0, 1.0)));
    let col = |k: usize| -> [f64; 4] {
        std::array::from_fn(|c| f64::from(int(q, 10 + 4 * k + c).clamp(0, 255)) * env[c])
    };
    let cols = [col(0), col(1), col(2), col(3)];
    let uv = |k: usize| {
        (
            f64::from(int(q, 26 + 2 * k)) / 1024.0,
            f64::from(int(q, 26 + 2 * k + 1)) / 1024.0,
        )
    };
    let uvs = [uv(0), uv(1), uv(2), uv(3)];
    let (w, h) = (clip.x1 as f64, clip.y1 as f64);
    let min_x = p
        .iter()
        .map(|v| v.0)
        .fold(f64::INFINITY, f64::min)
        .max(clip.x0 as f64);
    let max_x = p
        .iter()
        .map(|v| v.0)
        .fold(f64::NEG_INFINITY, f64::max)
        .min(w);
    let min_y = p
        .iter()
        .map(|v| v.1)
        .fold(f64::INFINITY, f64::min)
        .max(clip.y0 as f64);
    let max_y = p
        .iter()
        .map(|v| v.1)
        .fold(f64::NEG_INFINITY, f64::max)
        .min(h);
    if !(min_x < max_x && min_y < max_y) {
        return;
    }
    // Two triangles: (0, 1, 2) and (1, 3, 2).
    for tri in [[0usize, 1, 2], [1, 3, 2]] {
        let [a, b, c] = tri.map(|k| p[k]);
        let det = (b.1 - c.1) * (a.0 - c.0) + (c.0 - b.0) * (a.1 - c.1);
        if det.abs() < 1e-9 {
            continue;
        }
        for y in min_y.floor() as i64..max_y.ceil() as i64 {
            for x in min_x.floor() as i64..max_x.ceil() as i64 {
                let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
                let l0 = ((b.1 - c.1) * (px - c.0) + (c.0 - b.0) * (py - c.1)) / det;
                let l1 = ((c.1 - a.1) * (px - c.0) + (a.0 - c.0) * (py - c.1)) / det;
                let l2 = 1.0 - l0 - l1;
                // Half-open edges: a pixel on the shared diagonal is drawn once.
                if l0 < 0.0 || l1 < 0.0 || l2 < 0.0 || (tri[0] == 1 && l1 == 0.0) {
                    continue;
                }
                let l = [l0, l1, l2];
                let mut rgba = [0f64; 4];
                let (mut u, mut v) = (0.0, 0.0);
                for (k, &wgt) in tri.iter().zip(&l) {
                    for ch in 0..4 {
                        rgba[ch] += cols[*k][ch] * wgt;
                    }
                    u += uvs[*k].0 * wgt;
                    v += uvs[*k].1 * wgt;
                }
                let mut c = rgba.map(|f| f.round().clamp(0.0, 255.0) as u8);
                if let Some(t) = tex {
                    let tx = ((u.rem_euclid(1.0)) * f64::from(t.width)) as usize;
                    let ty = ((v.rem_euclid(1.0)) * f64::from(t.height)) as usize;
                    let i = (ty.min(t.height as usize - 1) * t.width as usize
                        + tx.min(t.width as usize - 1))
                        * 4;
                    let s = &t.pixels[i..i + 4];
                    c = std::array::from_fn(|ch| mul255(u32::from(c[ch]), u32::from(s[ch])) as u8);
                }
                if c[3] != 0 {
                    canvas.blend(x, y, premultiply(c));
                }
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
