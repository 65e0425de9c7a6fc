//! A map written from explicit parts, for tests that need one exact
//! content (e.g. one rule violation for `maps check`): a game layer of a
//! given size, tiles placed one by one in any physics layer, images,
//! envelopes, sounds, server settings, plain tile, quads and sounds layers.
//!
//! [`MapBuilder::new`] starts with a game layer of air with a hookable
//! floor; every layer is in one group. Layers are written in the order
//! game, front, tele, speedup, switch, tune, then the plain, quads and
//! sounds layers in the order added.

use super::items;
use crate::datafile::DatafileWriter;
use crate::map::tiles::PhysicsKind;
use crate::map::{
    ITEM_ENVELOPE, ITEM_ENVPOINTS, ITEM_GROUP, ITEM_IMAGE, ITEM_INFO, ITEM_LAYER, ITEM_SOUND,
    ITEM_VERSION,
};

/// An image of the map.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ImageSpec {
    External(String),
    Embedded(String, i32, i32),
}

/// A layer other than the physics layers.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Extra {
    /// A plain tile layer: image, colour envelope.
    Tiles(i32, i32),
    /// A quads layer with one quad: image, position and colour envelopes.
    Quads(i32, i32, i32),
    /// A sounds layer with one source: sound, position and sound envelopes.
    Sounds(i32, i32, i32),
}

/// A map under construction (see the module docs).
#[derive(Clone, Debug)]
pub struct MapBuilder {
    width: usize,
    height: usize,
    /// Tiles per physics kind (in [`PhysicsKind::PHYSICS`] order), in the
    /// kind's tile format; `None` for a layer not in the map.
    physics: [Option<Vec<u8>>; 6],
    images: Vec<ImageSpec>,
    envelopes: Vec<String>,
    sounds: Vec<String>,
    settings: Vec<String>,
    extra: Vec<Extra>,
}

fn slot(kind: PhysicsKind) -> usize {
    PhysicsKind::PHYSICS
        .iter()
        .position(|&k| k == kind)
        .expect("a physics kind")
}

impl MapBuilder {
    /// A `width` × `height` game layer (at least 2 × 2) of air with a
    /// hookable bottom row.
    pub fn new(width: usize, height: usize) -> Self {
        let (width, height) = (width.max(2), height.max(2));
        let mut b = MapBuilder {
            width,
            height,
            physics: Default::default(),
            images: Vec::new(),
            envelopes: Vec::new(),
            sounds: Vec::new(),
            settings: Vec::new(),
            extra: Vec::new(),
        };
        for x in 0..width {
            b.set(PhysicsKind::Game, x, height - 1, &[1, 0, 0, 0]);
        }
        b
    }

    /// Places the tile `bytes` (in `kind`'s format: id, flags for game and
    /// front; number, id (, flags, delay) for tele, switch, tune; force,
    /// max speed, id, 0, angle for speedup) at `(x, y)` of the layer of
    /// `kind`, adding the layer if the map has none.
    pub fn set(&mut self, kind: PhysicsKind, x: usize, y: usize, bytes: &[u8]) -> &mut Self {
        let ts = kind.tile_size();
        assert_eq!(bytes.len(), ts, "a {} tile has {ts} bytes", kind.name());
        assert!(
            x < self.width && y < self.height,
            "({x}, {y}) outside the map"
        );
        let n = self.width * self.height;
        let tiles = self.physics[slot(kind)].get_or_insert_with(|| vec![0; n * ts]);
        let i = (y * self.width + x) * ts;
        tiles[i..i + ts].copy_from_slice(bytes);
        self
    }

    /// Adds an empty layer of `kind` if the map has none.
    pub fn layer(&mut self, kind: PhysicsKind) -> &mut Self {
        let n = self.width * self.height * kind.tile_size();
        self.physics[slot(kind)].get_or_insert_with(|| vec![0; n]);
        self
    }

    /// An external image named `name`; its index.
    pub fn external_image(&mut self, name: &str) -> i32 {
        self.images.push(ImageSpec::External(name.into()));
        self.images.len() as i32 - 1
    }

    /// An embedded RGBA image of `width` × `height` grey pixels; its index.
    pub fn embedded_image(&mut self, name: &str, width: i32, height: i32) -> i32 {
        self.images
            .push(ImageSpec::Embedded(name.into(), width, height));
        self.images.len() as i32 - 1
    }

    /// A colour envelope with one point; its index.
    pub fn envelope(&mut self, name: &str) -> i32 {
        self.envelopes.push(name.into());
        self.envelopes.len() as i32 - 1
    }

    /// An embedded sound (a few bytes standing for opus data); its index.
    pub fn sound(&mut self, name: &str) -> i32 {
        self.sounds.push(name.into());
        self.sounds.len() as i32 - 1
    }

    /// A server settings line.
    pub fn setting(&mut self, line: &str) -> &mut Self {
        self.settings.push(line.into());
        self
    }

    /// A plain tile layer drawn with `image` (-1: none), coloured by
    /// envelope `color_env` (-1: none).
    pub fn tiles_layer(&mut self, image: i32, color_env: i32) -> &mut Self {
        self.extra.push(Extra::Tiles(image, color_env));
        self
    }

    /// A quads layer with one quad (-1: no image or envelope).
    pub fn quads_layer(&mut self, image: i32, pos_env: i32, color_env: i32) -> &mut Self {
        self.extra.push(Extra::Quads(image, pos_env, color_env));
        self
    }

    /// A sounds layer with one source (-1: no sound or envelope).
    pub fn sounds_layer(&mut self, sound: i32, pos_env: i32, sound_env: i32) -> &mut Self {
        self.extra.push(Extra::Sounds(sound, pos_env, sound_env));
        self
    }

    /// The map file.
    pub fn build(&self) -> Vec<u8> {
        let (w, h) = (self.width as i32, self.height as i32);
        let mut df = DatafileWriter::new();
        df.add_item(ITEM_VERSION, 0, &[1]);
        let mut info = vec![1, -1, -1, -1, -1];
        if !self.settings.is_empty() {
            let mut block = Vec::new();
            for s in &self.settings {
                block.extend_from_slice(s.as_bytes());
                block.push(0);
            }
            info.push(df.add_data(&block) as i32);
        }
        df.add_item(ITEM_INFO, 0, &info);
        let cstr = |s: &str| {
            let mut v = s.as_bytes().to_vec();
            v.push(0);
            v
        };
        for (i, img) in self.images.iter().enumerate() {
            let item = match img {
                ImageSpec::External(name) => {
                    let d = df.add_data(&cstr(name)) as i32;
                    items::image(1024, 1024, true, d, -1)
                }
                ImageSpec::Embedded(name, iw, ih) => {
                    let d = df.add_data(&cstr(name)) as i32;
                    let px = vec![128u8; (*iw as usize) * (*ih as usize) * 4];
                    let p = df.add_data(&px) as i32;
                    items::image(*iw, *ih, false, d, p)
                }
            };
            df.add_item(ITEM_IMAGE, i as u16, &item);
        }
        if !self.envelopes.is_empty() {
            for (i, name) in self.envelopes.iter().enumerate() {
                let env = items::envelope(2, 4, i as i32, 1, name, false);
                df.add_item(ITEM_ENVELOPE, i as u16, &env);
            }
            let points: Vec<i32> = (0..self.envelopes.len())
                .flat_map(|_| [0, 1, 1024, 1024, 1024, 1024])
                .collect();
            df.add_item(ITEM_ENVPOINTS, 0, &points);
        }
        for (i, name) in self.sounds.iter().enumerate() {
            let d_name = df.add_data(&cstr(name)) as i32;
            let opus = b"OggS teebatch";
            let d = df.add_data(opus) as i32;
            df.add_item(ITEM_SOUND, i as u16, &[1, 0, d_name, d, opus.len() as i32]);
        }

        let mut layer_id = 0u16;
        let zeros = vec![0u8; self.width * self.height * 4];
        for (k, kind) in PhysicsKind::PHYSICS.iter().enumerate() {
            let Some(tiles) = &self.physics[k] else {
                continue;
            };
            let (main, special) = if *kind == PhysicsKind::Game {
                (df.add_data(tiles) as i32, -1)
            } else {
                (df.add_data(&zeros) as i32, df.add_data(tiles) as i32)
            };
            let mut specials = [-1; 5];
            if let Some(slot) = items::special_slot(kind.flag()) {
                specials[slot] = special;
            }
            let item = items::TileLayer {
                flags: kind.flag(),
                specials,
                ..items::TileLayer::plain(w, h, main, kind.name())
            };
            df.add_item(ITEM_LAYER, layer_id, &item.item());
            layer_id += 1;
        }
        for e in &self.extra {
            let item = match *e {
                Extra::Tiles(image, color_env) => {
                    let mut tiles = vec![0u8; self.width * self.height * 4];
                    tiles[0] = 1;
                    let d = df.add_data(&tiles) as i32;
                    items::TileLayer {
                        colour_env: color_env,
                        image,
                        ..items::TileLayer::plain(w, h, d, "Tiles")
                    }
                    .item()
                }
                Extra::Quads(image, pos_env, color_env) => {
                    let at = |dx: i32, dy: i32| (dx * 32 * 1024, dy * 32 * 1024);
                    let mut bytes = Vec::new();
                    items::Quad {
                        corners: [at(0, 0), at(1, 0), at(0, 1), at(1, 1)],
                        pivot: at(0, 0),
                        colours: [[255; 4]; 4],
                        uv: [(0, 0); 4],
                        pos_env: (pos_env, 0),
                        colour_env: (color_env, 0),
                    }
                    .write(&mut bytes);
                    let d = df.add_data(&bytes) as i32;
                    items::quads_layer(1, d, image, "Quads")
                }
                Extra::Sounds(sound, pos_env, sound_env) => {
                    // Position, loop, pan, delay, falloff, position
                    // envelope and offset, sound envelope and offset,
                    // shape (circle of radius 1500).
                    let ints = [0, 0, 1, 1, 0, 0, pos_env, 0, sound_env, 0, 1, 1500, 0];
                    let bytes: Vec<u8> = ints.iter().flat_map(|v: &i32| v.to_le_bytes()).collect();
                    let d = df.add_data(&bytes) as i32;
                    items::sounds_layer(1, d, sound, "Sounds")
                }
            };
            df.add_item(ITEM_LAYER, layer_id, &item);
            layer_id += 1;
        }
        let g = items::group((0, 0), (100, 100), 0, layer_id as i32, None, "Game");
        df.add_item(ITEM_GROUP, 0, &g);
        df.write()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datafile::{Datafile, Inflater};
    use crate::map::{LayerKind, Map};

    /// The parts come back as written.
    #[test]
    fn built_maps_read_back() {
        let mut b = MapBuilder::new(5, 4);
        b.set(PhysicsKind::Tele, 1, 1, &[3, 26]);
        let img = b.external_image("grass_main");
        let env = b.envelope("pulse");
        let snd = b.sound("wind");
        b.setting("sv_hit 0")
            .tiles_layer(img, env)
            .quads_layer(-1, env, -1)
            .sounds_layer(snd, -1, env);
        let bytes = b.build();
        let df = Datafile::parse(&bytes).unwrap();
        let mut inflater = Inflater::new(crate::limits::Limits::default().datafile());
        let map = Map::parse(&df, &mut inflater, &mut Vec::new(), &mut Vec::new())
            .unwrap()
            .unwrap();
        assert_eq!(map.layers.len(), 5);
        assert_eq!(map.info.as_ref().unwrap().settings, ["sv_hit 0"]);
        assert_eq!(map.images[0].name.as_deref(), Some("grass_main"));
        assert_eq!(map.sounds.len(), 1);
        let tele = map.physics_layer(PhysicsKind::Tele).unwrap();
        let t = map
            .load_tiles(&df, tele, &mut inflater, &mut Vec::new())
            .unwrap()
            .unwrap();
        assert_eq!(t.tile(1, 1), Some(&[3u8, 26][..]));
        assert!(matches!(&map.layers[4].kind, LayerKind::Sounds(s) if s.sound == Some(0)));
    }
}
