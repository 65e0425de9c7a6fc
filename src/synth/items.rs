//! The int layouts of the map items teebatch's map writers emit
//! ([`super::map`], [`super::builder`], [`super::scene`]), written once:
//! groups, tile, quads and sounds layers, quads, images and envelopes.
//! The reader's side of the same layouts is `crate::map`.

use crate::map::strings::to_i32_string;

/// A tile layer item (`ITEM_LAYER`, kind 2).
#[derive(Clone, Copy, Debug)]
pub struct TileLayer<'a> {
    /// 3, or 4 for tiles packed with DDNet's tile skip.
    pub version: i32,
    pub width: i32,
    pub height: i32,
    /// 0 a plain layer, 1 game, 2 tele, 4 speedup, 8 front, 16 switch,
    /// 32 tune.
    pub flags: i32,
    /// RGBA, 0..=255.
    pub colour: [i32; 4],
    /// Colour envelope (-1: none) and its offset in ms.
    pub colour_env: i32,
    pub colour_env_offset: i32,
    /// Image index, -1 none.
    pub image: i32,
    /// Data index of the tiles.
    pub data: i32,
    pub name: &'a str,
    /// Data indices of the tele, speedup, front, switch and tune tiles
    /// (-1 none).
    pub specials: [i32; 5],
}

impl TileLayer<'_> {
    /// A plain version 3 layer of `width` × `height` tiles at `data`,
    /// white, no envelope, image or special data.
    pub fn plain(width: i32, height: i32, data: i32, name: &str) -> TileLayer<'_> {
        TileLayer {
            version: 3,
            width,
            height,
            flags: 0,
            colour: [255; 4],
            colour_env: -1,
            colour_env_offset: 0,
            image: -1,
            data,
            name,
            specials: [-1; 5],
        }
    }

    /// The item's ints.
    pub fn item(&self) -> Vec<i32> {
        let mut item = vec![0, 2, 0, self.version, self.width, self.height, self.flags];
        item.extend(self.colour);
        item.extend([
            self.colour_env,
            self.colour_env_offset,
            self.image,
            self.data,
        ]);
        item.extend(to_i32_string(self.name, 3));
        item.extend(self.specials);
        item
    }
}

/// The special data slot of a physics layer's `flags` (2 tele, 4
/// speedup, 8 front, 16 switch, 32 tune), in [`TileLayer::specials`]
/// order; `None` for the game layer and plain layers.
pub fn special_slot(flags: i32) -> Option<usize> {
    use crate::map::tiles::{FLAG_FRONT, FLAG_SPEEDUP, FLAG_SWITCH, FLAG_TELE, FLAG_TUNE};
    [FLAG_TELE, FLAG_SPEEDUP, FLAG_FRONT, FLAG_SWITCH, FLAG_TUNE]
        .iter()
        .position(|&f| f == flags)
}

/// A quads layer item (`ITEM_LAYER`, kind 3) of `quads` quads at `data`.
pub fn quads_layer(quads: i32, data: i32, image: i32, name: &str) -> Vec<i32> {
    let mut item = vec![0, 3, 0, 2, quads, data, image];
    item.extend(to_i32_string(name, 3));
    item
}

/// A sounds layer item (`ITEM_LAYER`, kind 10) of `sources` sources at
/// `data`.
pub fn sounds_layer(sources: i32, data: i32, sound: i32, name: &str) -> Vec<i32> {
    let mut item = vec![0, 10, 0, 2, sources, data, sound];
    item.extend(to_i32_string(name, 3));
    item
}

/// One quad's 38 ints, in fixed point (1024 = one world unit).
#[derive(Clone, Copy, Debug)]
pub struct Quad {
    /// Top left, top right, bottom left, bottom right.
    pub corners: [(i32, i32); 4],
    pub pivot: (i32, i32),
    /// RGBA per corner, 0..=255.
    pub colours: [[i32; 4]; 4],
    /// Texture coordinates per corner.
    pub uv: [(i32, i32); 4],
    /// Position and colour envelopes (-1: none) with their offsets.
    pub pos_env: (i32, i32),
    pub colour_env: (i32, i32),
}

impl Quad {
    /// The quad's little-endian bytes (152) appended to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        let mut v = [0i32; 38];
        for (k, &(x, y)) in self.corners.iter().chain([&self.pivot]).enumerate() {
            v[2 * k] = x;
            v[2 * k + 1] = y;
        }
        for (k, c) in self.colours.iter().enumerate() {
            v[10 + 4 * k..14 + 4 * k].copy_from_slice(c);
        }
        for (k, &(u, w)) in self.uv.iter().enumerate() {
            v[26 + 2 * k] = u;
            v[27 + 2 * k] = w;
        }
        v[34..36].copy_from_slice(&[self.pos_env.0, self.pos_env.1]);
        v[36..38].copy_from_slice(&[self.colour_env.0, self.colour_env.1]);
        out.extend(v.iter().flat_map(|x| x.to_le_bytes()));
    }
}

/// A group item (`ITEM_GROUP`, version 3): offset and parallax, its
/// `layers` layers from `start`, the clip rectangle if any.
pub fn group(
    offset: (i32, i32),
    parallax: (i32, i32),
    start: i32,
    layers: i32,
    clip: Option<[i32; 4]>,
    name: &str,
) -> Vec<i32> {
    let mut item = vec![3, offset.0, offset.1, parallax.0, parallax.1, start, layers];
    item.extend(clip.map_or([0; 5], |c| [1, c[0], c[1], c[2], c[3]]));
    item.extend(to_i32_string(name, 3));
    item
}

/// An envelope item (`ITEM_ENVELOPE`): its version, channels, its
/// `points` points from `start` in the points item, name, synchronised.
pub fn envelope(
    version: i32,
    channels: i32,
    start: i32,
    points: i32,
    name: &str,
    synced: bool,
) -> Vec<i32> {
    let mut item = vec![version, channels, start, points];
    item.extend(to_i32_string(name, 8));
    item.push(i32::from(synced));
    item
}

/// An image item (`ITEM_IMAGE`, version 1): external (`pixels` -1) or
/// embedded, its name and pixels as data indices.
pub fn image(width: i32, height: i32, external: bool, name: i32, pixels: i32) -> [i32; 6] {
    [1, width, height, i32::from(external), name, pixels]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layouts as the reader sees them: a tile layer's fields at the
    /// offsets `crate::map` reads, a quad's 38 ints.
    #[test]
    fn layouts_match_the_reader() {
        let t = TileLayer {
            version: 4,
            flags: 8,
            colour: [1, 2, 3, 4],
            colour_env: 5,
            colour_env_offset: 6,
            image: 7,
            specials: [-1, -1, 9, -1, -1],
            ..TileLayer::plain(10, 11, 12, "t")
        };
        let item = t.item();
        assert_eq!(item.len(), 23);
        assert_eq!(
            &item[..15],
            &[0, 2, 0, 4, 10, 11, 8, 1, 2, 3, 4, 5, 6, 7, 12]
        );
        assert_eq!(&item[18..], &[-1, -1, 9, -1, -1]);
        assert_eq!(special_slot(8), Some(2));
        assert_eq!(special_slot(1), None);
        let mut bytes = Vec::new();
        Quad {
            corners: [(1, 2), (3, 4), (5, 6), (7, 8)],
            pivot: (9, 10),
            colours: [[11, 12, 13, 14]; 4],
            uv: [(15, 16); 4],
            pos_env: (17, 18),
            colour_env: (19, 20),
        }
        .write(&mut bytes);
        let ints: Vec<i32> = bytes
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(ints.len(), 38);
        assert_eq!(&ints[..10], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(&ints[10..14], &[11, 12, 13, 14]);
        assert_eq!(&ints[26..28], &[15, 16]);
        assert_eq!(&ints[34..], &[17, 18, 19, 20]);
        assert_eq!(
            group((1, 2), (50, 60), 3, 4, Some([5, 6, 7, 8]), "g")[..12],
            [3, 1, 2, 50, 60, 3, 4, 1, 5, 6, 7, 8]
        );
        assert_eq!(envelope(2, 4, 0, 2, "e", true)[12], 1);
    }
}
