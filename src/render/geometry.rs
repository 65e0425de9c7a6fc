//! The size of a picture: pixels per tile or a longest side
//! ([`Size`] → [`Geometry`]), its limits, and the part of the game layer
//! it shows ([`Crop`], [`content_bounds`]).

use crate::map::TileLayer;

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
pub(super) fn crop_layer(l: &TileLayer, r: TileRect) -> TileLayer {
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
