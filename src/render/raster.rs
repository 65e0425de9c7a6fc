//! The canvas, blending, texture cells and their resampling, PNG in and out.
//!
//! All arithmetic is on integers (rounded the same way everywhere), so the
//! same input and options give the same bytes on every run and thread count.
//!
//! Colours of texture cells are stored with premultiplied alpha; the canvas
//! is opaque RGB (every picture starts from an opaque background), so
//! drawing a cell over it is `dst = src + dst × (255 − α) / 255`.

use std::io;

use crate::map::tiles::{TILEFLAG_ROTATE, TILEFLAG_XFLIP, TILEFLAG_YFLIP};

/// An opaque RGB picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canvas {
    pub width: u32,
    pub height: u32,
    /// Row-major RGB bytes.
    pub rgb: Vec<u8>,
}

/// `a × b / 255`, rounded to nearest.
#[inline]
pub fn mul255(a: u32, b: u32) -> u32 {
    let t = a * b + 128;
    (t + (t >> 8)) >> 8
}

/// Premultiplied `src` over opaque `dst`.
#[inline]
pub fn over(dst: &mut [u8], src: [u8; 4]) {
    let inv = 255 - u32::from(src[3]);
    for c in 0..3 {
        dst[c] = (u32::from(src[c]) + mul255(u32::from(dst[c]), inv)).min(255) as u8;
    }
}

/// A straight-alpha colour as premultiplied.
pub fn premultiply(c: [u8; 4]) -> [u8; 4] {
    let a = u32::from(c[3]);
    [
        mul255(u32::from(c[0]), a) as u8,
        mul255(u32::from(c[1]), a) as u8,
        mul255(u32::from(c[2]), a) as u8,
        c[3],
    ]
}

impl Canvas {
    /// A canvas filled with `background`.
    pub fn new(width: u32, height: u32, background: [u8; 3]) -> Canvas {
        let n = width as usize * height as usize;
        let mut rgb = Vec::with_capacity(n * 3);
        for _ in 0..n {
            rgb.extend_from_slice(&background);
        }
        Canvas { width, height, rgb }
    }

    /// The colour at `(x, y)`.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 3]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        Some([self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]])
    }

    /// Draws premultiplied `c` over the pixel at `(x, y)` (ignored outside).
    #[inline]
    pub fn blend(&mut self, x: i64, y: i64, c: [u8; 4]) {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        over(&mut self.rgb[i..i + 3], c);
    }

    /// Draws the `n × n` cell `cell` (premultiplied RGBA) with its top left
    /// corner at `(x0, y0)`, its texture coordinates transformed by `t`.
    pub fn draw_cell(&mut self, x0: u32, y0: u32, n: u32, cell: &[u8], t: Transform) {
        let n = n as usize;
        let w = self.width as usize;
        for oy in 0..n {
            let y = y0 as usize + oy;
            if y >= self.height as usize {
                break;
            }
            for ox in 0..n {
                let x = x0 as usize + ox;
                if x >= w {
                    break;
                }
                let Some((sx, sy)) = t.source(ox, oy, n) else {
                    continue;
                };
                let s = (sy * n + sx) * 4;
                let c = [cell[s], cell[s + 1], cell[s + 2], cell[s + 3]];
                if c[3] == 0 {
                    continue;
                }
                let i = (y * w + x) * 3;
                over(&mut self.rgb[i..i + 3], c);
            }
        }
    }

    /// Encodes the canvas as an 8-bit RGB PNG.
    pub fn encode_png(&self) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width, self.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut w = enc.write_header().map_err(io::Error::other)?;
        w.write_image_data(&self.rgb).map_err(io::Error::other)?;
        w.finish().map_err(io::Error::other)?;
        Ok(out)
    }
}

/// How a tile's texture is turned when drawn (DDNet's tile flags, or a
/// speedup's angle).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Transform {
    #[default]
    None,
    /// `TILEFLAG_XFLIP` (1), `TILEFLAG_YFLIP` (2), `TILEFLAG_ROTATE` (8):
    /// rotated 90° clockwise, then flipped in texture space.
    Flags(u8),
    /// Rotated clockwise on screen by this many degrees (speedups).
    Degrees(i16),
}

impl Transform {
    /// The texture pixel shown at `(ox, oy)` of an `n × n` cell (the
    /// corners of a turned speedup show the nearest edge pixel).
    #[inline]
    pub fn source(self, ox: usize, oy: usize, n: usize) -> Option<(usize, usize)> {
        match self {
            Transform::None => Some((ox, oy)),
            Transform::Flags(f) => {
                let (mut sx, mut sy) = if f & TILEFLAG_ROTATE != 0 {
                    (oy, n - 1 - ox)
                } else {
                    (ox, oy)
                };
                if f & TILEFLAG_XFLIP != 0 {
                    sx = n - 1 - sx;
                }
                if f & TILEFLAG_YFLIP != 0 {
                    sy = n - 1 - sy;
                }
                Some((sx, sy))
            }
            Transform::Degrees(d) => {
                // Inverse rotation of the pixel centre about the cell centre,
                // in units of half a pixel; nearest texture pixel.
                let (s, c) = (f64::from(d)).to_radians().sin_cos();
                let h = n as f64;
                let (px, py) = (2.0 * ox as f64 + 1.0 - h, 2.0 * oy as f64 + 1.0 - h);
                let sx = ((c * px + s * py + h) / 2.0).floor().clamp(0.0, h - 1.0);
                let sy = ((-s * px + c * py + h) / 2.0).floor().clamp(0.0, h - 1.0);
                Some((sx as usize, sy as usize))
            }
        }
    }
}

/// A decoded straight-alpha RGBA image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rgba {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

/// Most pixels of a texture read from disk (a 4096 × 4096 tileset).
pub const MAX_TEXTURE_PIXELS: u64 = 4096 * 4096;

/// Decodes a PNG to straight RGBA (any bit depth and colour type),
/// refusing pictures over [`MAX_TEXTURE_PIXELS`].
pub fn decode_png(bytes: &[u8]) -> Result<Rgba, String> {
    let mut dec = png::Decoder::new(io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = dec.read_info().map_err(|e| e.to_string())?;
    let (w, h) = {
        let info = reader.info();
        (info.width, info.height)
    };
    if u64::from(w) * u64::from(h) > MAX_TEXTURE_PIXELS {
        return Err(format!(
            "{w} × {h} pixels is over the {MAX_TEXTURE_PIXELS} pixel limit"
        ));
    }
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| "image too large".to_string())?;
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    buf.truncate(frame.buffer_size());
    let n = w as usize * h as usize;
    let pixels = match frame.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err("indexed colour was not expanded".into()),
    };
    if pixels.len() != n * 4 {
        return Err("decoded size does not match the header".into());
    }
    Ok(Rgba {
        width: w,
        height: h,
        pixels,
    })
}

/// The 256 cells of a 16 × 16 tileset or atlas resampled to `n × n`
/// pixels each, premultiplied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cells {
    pub n: u32,
    /// Cell `i` is `data[i × n × n × 4 ..][.. n × n × 4]`.
    pub data: Vec<u8>,
}

impl Cells {
    /// Cell `id`.
    pub fn cell(&self, id: u8) -> &[u8] {
        let len = (self.n * self.n * 4) as usize;
        &self.data[id as usize * len..][..len]
    }

    /// The single colour of cell `id` (meaningful when `n` is 1).
    pub fn color(&self, id: u8) -> [u8; 4] {
        let c = self.cell(id);
        [c[0], c[1], c[2], c[3]]
    }

    /// Fills cell `id` with the straight-alpha colour `c`.
    pub fn fill(&mut self, id: u8, c: [u8; 4]) {
        let len = (self.n * self.n * 4) as usize;
        let p = premultiply(c);
        for px in self.data[id as usize * len..][..len].chunks_exact_mut(4) {
            px.copy_from_slice(&p);
        }
    }

    /// Draws an arrow pointing right (opaque colour `c`) over cell `id`.
    pub fn arrow(&mut self, id: u8, c: [u8; 3]) {
        let n = self.n as usize;
        let len = n * n * 4;
        let cell = &mut self.data[id as usize * len..][..len];
        for y in 0..n {
            for x in 0..n {
                // Pixel centre in units of the cell side.
                let fx = (2 * x + 1) as f64 / (2 * n) as f64;
                let fy = (2 * y + 1) as f64 / (2 * n) as f64;
                let inside =
                    (0.2..=0.85).contains(&fx) && (fy - 0.5).abs() <= 0.3 * (0.85 - fx) / 0.65;
                if inside || n == 1 {
                    // One pixel: the mean of the arrow and the fill.
                    let px = &mut cell[(y * n + x) * 4..][..4];
                    let a = if n == 1 { 96 } else { 255 };
                    let mut rgb = [px[0], px[1], px[2]];
                    over(&mut rgb, premultiply([c[0], c[1], c[2], a]));
                    px[..3].copy_from_slice(&rgb);
                    px[3] = if n == 1 { px[3].max(a) } else { 255 };
                }
            }
        }
    }

    /// Cells of flat colours (straight alpha), `n × n` each.
    pub fn flat(colors: &[[u8; 4]; 256], n: u32) -> Cells {
        let per = (n * n) as usize;
        let mut data = Vec::with_capacity(256 * per * 4);
        for c in colors {
            let p = premultiply(*c);
            for _ in 0..per {
                data.extend_from_slice(&p);
            }
        }
        Cells { n, data }
    }

    /// The cells of `img` (16 × 16 cells; a width or height that is not a
    /// multiple of 16 drops the remainder) box-filtered to `n × n` each.
    pub fn resample(img: &Rgba, n: u32) -> Cells {
        let sw = (img.width / 16).max(1);
        let sh = (img.height / 16).max(1);
        let wx = box_weights(sw, n);
        let wy = box_weights(sh, n);
        let total = u64::from(sw) * u64::from(sh);
        let mut data = Vec::with_capacity(256 * (n * n) as usize * 4);
        for id in 0..256u32 {
            let (cx, cy) = ((id % 16) * sw, (id / 16) * sh);
            for ys in &wy {
                for xs in &wx {
                    let mut acc = [0u64; 4];
                    for &(dy, wyv) in ys {
                        let y = cy + dy;
                        for &(dx, wxv) in xs {
                            let x = cx + dx;
                            let w = u64::from(wyv) * u64::from(wxv);
                            let Some(p) = pixel(img, x, y) else { continue };
                            let a = u64::from(p[3]);
                            // Premultiplied sums (× 255 kept for rounding).
                            for c in 0..3 {
                                acc[c] += u64::from(p[c]) * a * w;
                            }
                            acc[3] += a * 255 * w;
                        }
                    }
                    let d = total * 255;
                    for v in acc {
                        data.push(((v + d / 2) / d).min(255) as u8);
                    }
                }
            }
        }
        Cells { n, data }
    }
}

fn pixel(img: &Rgba, x: u32, y: u32) -> Option<[u8; 4]> {
    if x >= img.width || y >= img.height {
        return None;
    }
    let i = (y as usize * img.width as usize + x as usize) * 4;
    Some([
        img.pixels[i],
        img.pixels[i + 1],
        img.pixels[i + 2],
        img.pixels[i + 3],
    ])
}

/// For each of `d` output pixels, the source pixels (of `s`) it covers and
/// their overlap, in units where a source pixel is `d` long and an output
/// pixel `s` long (so each list sums to `s`).
pub(crate) fn box_weights(s: u32, d: u32) -> Vec<Vec<(u32, u32)>> {
    (0..d)
        .map(|o| {
            let (lo, hi) = (o * s, (o + 1) * s);
            let mut v = Vec::new();
            for i in lo / d..hi.div_ceil(d).min(s) {
                let (a, b) = (i * d, (i + 1) * d);
                let overlap = hi.min(b).saturating_sub(lo.max(a));
                if overlap > 0 {
                    v.push((i, overlap));
                }
            }
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_weights_cover_the_source_once() {
        for (s, d) in [(64, 1), (64, 3), (64, 7), (64, 64), (5, 3), (16, 5)] {
            let w = box_weights(s, d);
            assert_eq!(w.len(), d as usize);
            let mut per_src = vec![0u32; s as usize];
            for list in &w {
                assert_eq!(list.iter().map(|p| p.1).sum::<u32>(), s);
                for &(i, o) in list {
                    per_src[i as usize] += o;
                }
            }
            assert!(per_src.iter().all(|&t| t == d), "{s} -> {d}");
        }
    }

    #[test]
    fn resample_averages_premultiplied() {
        // A 32 × 32 image: cell 0 (2 × 2) has one opaque red pixel and three
        // transparent ones.
        let mut img = Rgba {
            width: 32,
            height: 32,
            pixels: vec![0; 32 * 32 * 4],
        };
        img.pixels[..4].copy_from_slice(&[255, 0, 0, 255]);
        let c = Cells::resample(&img, 1);
        assert_eq!(c.color(0), [64, 0, 0, 64]);
        assert_eq!(c.color(1), [0, 0, 0, 0]);
        let full = Cells::resample(&img, 2);
        assert_eq!(&full.cell(0)[..8], &[255, 0, 0, 255, 0, 0, 0, 0]);
    }

    #[test]
    fn transforms_match_ddnet_corners() {
        // Rotate: the screen's top left shows the texture's bottom left.
        assert_eq!(Transform::Flags(8).source(0, 0, 4), Some((0, 3)));
        assert_eq!(Transform::Flags(1).source(0, 0, 4), Some((3, 0)));
        assert_eq!(Transform::Flags(2).source(0, 0, 4), Some((0, 3)));
        assert_eq!(Transform::Degrees(0).source(1, 2, 4), Some((1, 2)));
        // 90° clockwise on screen: the texture's top left shows at the top right.
        assert_eq!(Transform::Degrees(90).source(3, 0, 4), Some((0, 0)));
        assert_eq!(Transform::Degrees(180).source(0, 0, 4), Some((3, 3)));
    }

    #[test]
    fn over_blends_and_png_round_trips() {
        let mut px = [100, 100, 100];
        over(&mut px, premultiply([255, 0, 0, 128]));
        assert_eq!(px, [178, 50, 50]);
        let mut c = Canvas::new(3, 2, [1, 2, 3]);
        c.blend(2, 1, [255, 255, 255, 255]);
        let png = c.encode_png().unwrap();
        let back = decode_png(&png).unwrap();
        assert_eq!((back.width, back.height), (3, 2));
        assert_eq!(&back.pixels[..4], &[1, 2, 3, 255]);
        assert_eq!(&back.pixels[20..], &[255, 255, 255, 255]);
    }
}
