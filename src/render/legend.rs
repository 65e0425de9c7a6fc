//! Legends drawn inside pictures: a colour swatch and a label per row, on a
//! dark translucent panel in one corner of the picture.
//!
//! Text is drawn with the public-domain 8 × 8 glyphs of the `font8x8`
//! crate (ASCII; any other character, and control characters, show as
//! `?`). A row is [`ROW`] pixels high: an 8 × 8 swatch of the entry's
//! colour, a gap, then the label.
//!
//! Size rule: the panel covers at most half the picture's width and half
//! its height, so the map is never hidden by more than a quarter.
//!
//! - Labels longer than fit in half the width are cut (at least
//!   [`MIN_LABEL_CHARS`] characters must fit).
//! - When not every row fits in half the height, the rows that fit minus
//!   one are shown and the last row says `+N more` ([`Outcome::Truncated`]).
//! - A picture where not even one entry and the `+N more` row fit (or
//!   [`MIN_LABEL_CHARS`] characters) gets no legend ([`Outcome::Skipped`]):
//!   pictures narrower than 100 pixels, or lower than 28 pixels (one
//!   entry) or 48 pixels (more entries).
//!
//! Placement: of the four corners (tried in the order top left, top
//! right, bottom left, bottom right), the one whose panel area has the
//! fewest pixels different from the picture's background, so the panel
//! hides as little of the drawing as possible (first corner on ties).

use super::raster::{premultiply, Canvas};

/// One row of a legend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub colour: [u8; 3],
    pub label: String,
}

/// Pixels per row (an 8 pixel glyph and 2 pixels of space).
pub const ROW: u32 = 10;
/// Pixels between the panel's edge and its rows.
pub const PAD: u32 = 3;
/// Side of a colour swatch.
pub const SWATCH: u32 = 8;
/// Pixels between a swatch and its label.
pub(crate) const GAP: u32 = 4;
/// Most characters of a label.
pub(crate) const MAX_LABEL_CHARS: usize = 16;
/// Fewest characters of a label for a legend to be drawn.
pub const MIN_LABEL_CHARS: usize = 4;
/// The panel (straight RGBA).
pub(crate) const PANEL: [u8; 4] = [0, 0, 0, 200];
/// The text colour.
pub(crate) const TEXT: [u8; 3] = [255, 255, 255];

/// What [`draw`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to show.
    Empty,
    /// Every entry, in the panel `(x, y, width, height)`.
    Drawn(Rect),
    /// `shown` of `total` entries and a `+N more` row.
    Truncated {
        rect: Rect,
        shown: usize,
        total: usize,
    },
    /// The picture is too small for a legend.
    Skipped,
}

/// A panel: left, top, width, height in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: u32,
    pub y: u32,
    pub w: u32,
    pub h: u32,
}

/// `label` as ASCII printable characters (others as `?`), at most `max`.
pub(crate) fn ascii(label: &str, max: usize) -> String {
    label
        .chars()
        .take(max)
        .map(|c| {
            if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            }
        })
        .collect()
}

/// Draws `text` (ASCII) with its top left at `(x, y)` in `colour`.
pub fn text(canvas: &mut Canvas, x: i64, y: i64, text: &str, colour: [u8; 3]) {
    let c = [colour[0], colour[1], colour[2], 255];
    for (k, ch) in text.chars().enumerate() {
        let code = if ch.is_ascii() {
            ch as usize
        } else {
            b'?' as usize
        };
        let glyph = font8x8::legacy::BASIC_LEGACY[code];
        let gx = x + 8 * k as i64;
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..8 {
                // Bit 0 is the leftmost pixel.
                if bits & (1 << col) != 0 {
                    canvas.blend(gx + col, y + row as i64, c);
                }
            }
        }
    }
}

/// Draws the legend of `entries` in a corner of `canvas` (whose empty
/// parts are `background`), by the size and placement rules above.
pub fn draw(canvas: &mut Canvas, entries: &[Entry], background: [u8; 3]) -> Outcome {
    if entries.is_empty() {
        return Outcome::Empty;
    }
    let (max_w, max_h) = (canvas.width / 2, canvas.height / 2);
    let fixed = 2 * PAD + SWATCH + GAP;
    let fit_rows = (max_h.saturating_sub(2 * PAD) + 2) / ROW;
    let total = entries.len();
    let (shown, more) = if fit_rows as usize >= total {
        (total, None)
    } else if fit_rows >= 2 {
        let shown = fit_rows as usize - 1;
        (shown, Some(format!("+{} more", total - shown)))
    } else {
        return Outcome::Skipped;
    };
    let fit_chars = (max_w.saturating_sub(fixed) / 8) as usize;
    if fit_chars < MIN_LABEL_CHARS {
        return Outcome::Skipped;
    }
    let limit = fit_chars.min(MAX_LABEL_CHARS);
    let mut rows: Vec<(Option<[u8; 3]>, String)> = entries[..shown]
        .iter()
        .map(|e| (Some(e.colour), ascii(&e.label, limit)))
        .collect();
    if let Some(m) = more {
        rows.push((None, ascii(&m, limit)));
    }
    let chars = rows.iter().map(|r| r.1.len()).max().unwrap_or(0) as u32;
    let w = fixed + 8 * chars;
    let h = 2 * PAD + rows.len() as u32 * ROW - 2;
    let corners = [
        (0, 0),
        (canvas.width - w, 0),
        (0, canvas.height - h),
        (canvas.width - w, canvas.height - h),
    ];
    let busy = |&(x0, y0): &(u32, u32)| -> usize {
        let mut n = 0;
        for y in y0..y0 + h {
            let row = &canvas.rgb[(y * canvas.width + x0) as usize * 3..][..w as usize * 3];
            n += row.chunks_exact(3).filter(|p| *p != background).count();
        }
        n
    };
    let mut best = corners[0];
    let mut best_busy = busy(&best);
    for c in &corners[1..] {
        let b = busy(c);
        if b < best_busy {
            (best, best_busy) = (*c, b);
        }
    }
    let (x0, y0) = best;
    let panel = premultiply(PANEL);
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            canvas.blend(i64::from(x), i64::from(y), panel);
        }
    }
    for (i, (colour, label)) in rows.iter().enumerate() {
        let ry = y0 + PAD + i as u32 * ROW;
        if let Some(c) = colour {
            let c = [c[0], c[1], c[2], 255];
            for y in ry..ry + SWATCH {
                for x in x0 + PAD..x0 + PAD + SWATCH {
                    canvas.blend(i64::from(x), i64::from(y), c);
                }
            }
        }
        text(
            canvas,
            i64::from(x0 + PAD + SWATCH + GAP),
            i64::from(ry),
            label,
            TEXT,
        );
    }
    let rect = Rect { x: x0, y: y0, w, h };
    if shown < total {
        Outcome::Truncated { rect, shown, total }
    } else {
        Outcome::Drawn(rect)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(c: [u8; 3], l: &str) -> Entry {
        Entry {
            colour: c,
            label: l.into(),
        }
    }

    #[test]
    fn swatches_have_their_colour_and_text_is_drawn() {
        let bg = [28, 30, 38];
        let mut c = Canvas::new(200, 100, bg);
        let es = [entry([255, 255, 0], "spawn"), entry([0, 200, 0], "start")];
        let Outcome::Drawn(r) = draw(&mut c, &es, bg) else {
            panic!()
        };
        assert_eq!(
            (r.x, r.y, r.w, r.h),
            (0, 0, 2 * PAD + SWATCH + GAP + 40, 24)
        );
        assert_eq!(c.pixel(PAD, PAD), Some([255, 255, 0]));
        assert_eq!(c.pixel(PAD + 7, PAD + 7), Some([255, 255, 0]));
        assert_eq!(c.pixel(PAD + 3, PAD + ROW + 4), Some([0, 200, 0]));
        // 'S' of "spawn": some white pixels in its cell, panel elsewhere.
        let tx = PAD + SWATCH + GAP;
        let white = (0..8)
            .flat_map(|y| (0..8).map(move |x| (x, y)))
            .filter(|&(x, y)| c.pixel(tx + x, PAD + y) == Some([255; 3]))
            .count();
        assert!(white > 4 && white < 40, "{white}");
        // Outside the panel: untouched.
        assert_eq!(c.pixel(r.w, 0), Some(bg));
    }

    #[test]
    fn busy_corner_is_avoided_and_small_pictures_truncate_or_skip() {
        let bg = [0, 0, 0];
        let mut c = Canvas::new(200, 100, bg);
        c.blend(1, 1, [9, 9, 9, 255]);
        let Outcome::Drawn(r) = draw(&mut c, &[entry([1, 2, 3], "a")], bg) else {
            panic!()
        };
        assert_eq!((r.x, r.y), (200 - r.w, 0));

        let es: Vec<Entry> = (0..10).map(|i| entry([i, i, i], "x")).collect();
        let mut c = Canvas::new(200, 60, bg);
        // Half height 30: two rows, one entry and "+9 more".
        match draw(&mut c, &es, bg) {
            Outcome::Truncated { shown, total, .. } => assert_eq!((shown, total), (1, 10)),
            o => panic!("{o:?}"),
        }
        let mut c = Canvas::new(200, 40, bg);
        assert_eq!(draw(&mut c, &es, bg), Outcome::Skipped);
        let before = c.clone();
        let mut c = Canvas::new(40, 200, bg);
        assert_eq!(draw(&mut c, &es, bg), Outcome::Skipped);
        assert_eq!(before.rgb.len(), 200 * 40 * 3);
        assert_eq!(ascii("é\tab", 16), "??ab");
    }
}
