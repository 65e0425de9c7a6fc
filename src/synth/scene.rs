//! Small hand-made maps for pixel tests of the `full` style: groups with
//! their parallax, offset and clip rectangle; tile layers with a colour,
//! an embedded image and a colour envelope; quads with corner colours,
//! texture coordinates and envelopes; envelopes whose points may carry
//! bezier tangents, written as DDNet writes them (the
//! `mapitemtype-envpoints-bezier@ddnet.tw` item declared by UUID) or as
//! Teeworlds 0.7 does (envelope version 3, 22-int points).
//!
//! [`Scene::write`] gives the map's bytes; a game layer of the scene's
//! size (all air) is written in the first group that asks for it
//! ([`Layer::Game`]), as the full style sizes the picture by it.

use super::items;
use crate::datafile::DatafileWriter;
use crate::map::uuids;
use crate::map::{
    ITEM_ENVELOPE, ITEM_ENVPOINTS, ITEM_GROUP, ITEM_IMAGE, ITEM_LAYER, ITEM_UUID_INDEX,
    ITEM_VERSION,
};

/// A map to draw.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// The game layer's size in tiles.
    pub width: usize,
    pub height: usize,
    pub images: Vec<Image>,
    pub envelopes: Vec<Envelope>,
    pub groups: Vec<Group>,
    /// How bezier tangents are written (when any point has them).
    pub bezier: BezierLayout,
}

/// Where bezier tangents go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BezierLayout {
    /// DDNet: a separate item of 16 ints per point, its type declared by
    /// UUID; envelopes of version 2.
    #[default]
    Ddnet,
    /// Teeworlds 0.7: envelopes of version 3, each point 22 ints.
    Upstream,
}

/// An embedded RGBA image.
#[derive(Clone, Debug)]
pub struct Image {
    pub name: String,
    pub width: u32,
    pub height: u32,
    /// Straight RGBA, row by row.
    pub pixels: Vec<u8>,
}

impl Image {
    /// A `16·n × 16·n` tileset whose every pixel is `rgba`.
    pub fn filled(name: &str, n: u32, rgba: [u8; 4]) -> Image {
        let side = 16 * n;
        Image {
            name: name.into(),
            width: side,
            height: side,
            pixels: rgba.repeat((side * side) as usize),
        }
    }
}

/// An envelope: channels (3 position, 4 colour) and points in time order.
#[derive(Clone, Debug)]
pub struct Envelope {
    pub channels: i32,
    pub points: Vec<Point>,
}

/// An envelope point: time in ms, curve, values (fixed point, 1024 =
/// 1.0) and bezier tangents (in Δtime, in Δvalue, out Δtime, out Δvalue
/// of each channel; zero when `None`).
#[derive(Clone, Copy, Debug)]
pub struct Point {
    pub time: i32,
    pub curve: i32,
    pub values: [i32; 4],
    pub tangents: Option<[[i32; 4]; 4]>,
}

/// A group and its layers.
#[derive(Clone, Debug)]
pub struct Group {
    /// Percent.
    pub parallax: (i32, i32),
    /// World units.
    pub offset: (i32, i32),
    /// x, y, width, height in world units.
    pub clip: Option<[i32; 4]>,
    pub layers: Vec<Layer>,
}

impl Group {
    /// A group without offset or clip.
    pub fn new(parallax: (i32, i32), layers: Vec<Layer>) -> Group {
        Group {
            parallax,
            offset: (0, 0),
            clip: None,
            layers,
        }
    }
}

/// A layer.
#[derive(Clone, Debug)]
pub enum Layer {
    /// The game layer (air) of the scene's size.
    Game,
    Tiles(Tiles),
    Quads(Quads),
}

/// A tile layer: its size, colour (RGBA 0..=255), image, colour envelope
/// and offset (ms), and its tiles (x, y, id, flags).
#[derive(Clone, Debug)]
pub struct Tiles {
    pub width: usize,
    pub height: usize,
    pub colour: [i32; 4],
    pub image: Option<usize>,
    pub env: Option<(usize, i32)>,
    pub tiles: Vec<(usize, usize, u8, u8)>,
}

/// A quads layer.
#[derive(Clone, Debug)]
pub struct Quads {
    pub image: Option<usize>,
    pub quads: Vec<Quad>,
}

/// A quad: corners (top left, top right, bottom left, bottom right) and
/// pivot in world units, corner colours, texture coordinates, position
/// and colour envelopes with their offsets.
#[derive(Clone, Copy, Debug)]
pub struct Quad {
    pub corners: [(f64, f64); 4],
    pub pivot: (f64, f64),
    pub colours: [[i32; 4]; 4],
    pub uv: [(f64, f64); 4],
    pub pos_env: Option<(usize, i32)>,
    pub colour_env: Option<(usize, i32)>,
}

impl Quad {
    /// An axis-aligned quad from `(x0, y0)` to `(x1, y1)` of one colour,
    /// the whole texture, no envelopes.
    pub fn rect(x0: f64, y0: f64, x1: f64, y1: f64, colour: [i32; 4]) -> Quad {
        Quad {
            corners: [(x0, y0), (x1, y0), (x0, y1), (x1, y1)],
            pivot: ((x0 + x1) / 2.0, (y0 + y1) / 2.0),
            colours: [colour; 4],
            uv: [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)],
            pos_env: None,
            colour_env: None,
        }
    }
}

/// The map-internal type id given to the bezier item.
const BEZIER_TYPE: u16 = 0x7fff;

fn fixed(v: f64) -> i32 {
    (v * 1024.0).round() as i32
}

impl Scene {
    /// The map's bytes.
    pub fn write(&self) -> Vec<u8> {
        let mut df = DatafileWriter::new();
        df.add_item(ITEM_VERSION, 0, &[1]);
        for (i, img) in self.images.iter().enumerate() {
            let mut name = img.name.as_bytes().to_vec();
            name.push(0);
            let d_name = df.add_data(&name) as i32;
            let d_pixels = df.add_data(&img.pixels) as i32;
            let (w, h) = (img.width as i32, img.height as i32);
            df.add_item(
                ITEM_IMAGE,
                i as u16,
                &items::image(w, h, false, d_name, d_pixels),
            );
        }
        self.write_envelopes(&mut df);
        let mut layer_id = 0u16;
        for (gi, g) in self.groups.iter().enumerate() {
            let start = i32::from(layer_id);
            for l in &g.layers {
                self.write_layer(&mut df, layer_id, l);
                layer_id += 1;
            }
            let n = g.layers.len() as i32;
            let item = items::group(g.offset, g.parallax, start, n, g.clip, "g");
            df.add_item(ITEM_GROUP, gi as u16, &item);
        }
        df.write()
    }

    fn write_envelopes(&self, df: &mut DatafileWriter) {
        if self.envelopes.is_empty() {
            return;
        }
        let upstream = self.bezier == BezierLayout::Upstream;
        let mut start = 0;
        for (i, e) in self.envelopes.iter().enumerate() {
            let version = if upstream { 3 } else { 2 };
            let n = e.points.len() as i32;
            let item = items::envelope(version, e.channels, start, n, "env", false);
            df.add_item(ITEM_ENVELOPE, i as u16, &item);
            start += e.points.len() as i32;
        }
        let points = self.envelopes.iter().flat_map(|e| &e.points);
        let mut ints = Vec::new();
        let mut tangents = Vec::new();
        for p in points {
            ints.extend([p.time, p.curve]);
            ints.extend(p.values);
            let t: Vec<i32> = p.tangents.unwrap_or([[0; 4]; 4]).concat();
            if upstream {
                ints.extend(&t);
            } else {
                tangents.extend(t);
            }
        }
        df.add_item(ITEM_ENVPOINTS, 0, &ints);
        let any = self
            .envelopes
            .iter()
            .any(|e| e.points.iter().any(|p| p.tangents.is_some()));
        if !upstream && any {
            let uuid = uuids::uuid_of_name(uuids::BEZIER_ITEM);
            df.add_item(ITEM_UUID_INDEX, BEZIER_TYPE, &uuids::uuid_to_ints(&uuid));
            df.add_item(BEZIER_TYPE, 0, &tangents);
        }
    }

    fn write_layer(&self, df: &mut DatafileWriter, id: u16, l: &Layer) {
        let tilemap = |df: &mut DatafileWriter, w: usize, h: usize, flags: i32, t: &Tiles| {
            let mut bytes = vec![0u8; w * h * 4];
            for &(x, y, tile, tflags) in &t.tiles {
                if x < w && y < h {
                    bytes[(y * w + x) * 4] = tile;
                    bytes[(y * w + x) * 4 + 1] = tflags;
                }
            }
            let d = df.add_data(&bytes) as i32;
            let (env, offset) = t.env.map_or((-1, 0), |(e, o)| (e as i32, o));
            let item = items::TileLayer {
                flags,
                colour: t.colour,
                colour_env: env,
                colour_env_offset: offset,
                image: t.image.map_or(-1, |i| i as i32),
                ..items::TileLayer::plain(w as i32, h as i32, d, "t")
            };
            df.add_item(ITEM_LAYER, id, &item.item());
        };
        match l {
            Layer::Game => {
                let air = Tiles {
                    width: self.width,
                    height: self.height,
                    colour: [255; 4],
                    image: None,
                    env: None,
                    tiles: Vec::new(),
                };
                tilemap(df, self.width, self.height, 1, &air);
            }
            Layer::Tiles(t) => tilemap(df, t.width, t.height, 0, t),
            Layer::Quads(q) => {
                let mut bytes = Vec::with_capacity(q.quads.len() * 152);
                let point = |(x, y): (f64, f64)| (fixed(x), fixed(y));
                let env = |e: Option<(usize, i32)>| e.map_or((-1, 0), |(e, o)| (e as i32, o));
                for quad in &q.quads {
                    items::Quad {
                        corners: quad.corners.map(point),
                        pivot: point(quad.pivot),
                        colours: quad.colours,
                        uv: quad.uv.map(point),
                        pos_env: env(quad.pos_env),
                        colour_env: env(quad.colour_env),
                    }
                    .write(&mut bytes);
                }
                let d = df.add_data(&bytes) as i32;
                let image = q.image.map_or(-1, |i| i as i32);
                let item = items::quads_layer(q.quads.len() as i32, d, image, "q");
                df.add_item(ITEM_LAYER, id, &item);
            }
        }
    }
}
