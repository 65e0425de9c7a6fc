//! Image items (type 2).

use super::reader::{too_short, Reader};
use super::view::{self, ImageItem};
use super::{Image, ImageVariant};
use crate::datafile::Item;
use crate::map::error::{MapError, MapSection, MapWarningKind as W};

/// Image `i`; its name is inflated only when `names` is set.
pub(super) fn read_image(
    r: &mut Reader<'_, '_>,
    i: usize,
    it: &Item<'_>,
    names: bool,
) -> Result<Image, MapError> {
    let s = MapSection::Image(i as u32);
    let v = view::of(it, ImageItem::new);
    if v.len() < ImageItem::VARIANT {
        return Err(too_short(s, it));
    }
    let version = v.version();
    let expected = if version >= 2 { 7 } else { 6 };
    if v.len() != expected {
        r.warn(W::OddItemSize, s, it.offset);
    }
    let (width, height) = (v.width(), v.height());
    let external = v.external() != 0;
    let name_at = v.offset_of(ImageItem::NAME);
    let name_data = r.opt_data(v.name(), s, name_at);
    if v.name() == -1 {
        r.warn(W::MissingName, s, name_at);
    }
    let name = match (names, name_data) {
        (true, Some(n)) => Some(r.data_string(n, s)?),
        _ => None,
    };
    let variant = if version >= 2 {
        match v.variant() {
            0 => ImageVariant::Rgb,
            1 => ImageVariant::Rgba,
            other => ImageVariant::Other(other),
        }
    } else {
        ImageVariant::Rgba
    };
    let data = if external {
        // External images should have -1; a stray index is harmless.
        None
    } else {
        let data = r.opt_data(v.data(), s, v.offset_of(ImageItem::DATA));
        let bpp = match variant {
            ImageVariant::Rgb => 3u64,
            _ => 4,
        };
        let want = (width.max(0) as u64) * (height.max(0) as u64) * bpp;
        let ok = data
            .and_then(|k| r.df.data_size(k))
            .is_some_and(|n| n as u64 == want);
        if !ok {
            r.warn(W::ImageDataSize, s, it.offset);
        }
        data
    };
    Ok(Image {
        version,
        width,
        height,
        external,
        name,
        name_data,
        data,
        variant,
        item_offset: it.offset,
    })
}
