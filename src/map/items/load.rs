//! Tile loading: a tilemap's data checked against the datafile and the
//! limits, then expanded or counted.

use super::{Layer, LayerKind, Map, TileLayer, Tilemap};
use crate::datafile::{Datafile, Inflater};
use crate::map::error::{MapError, MapErrorKind as E, MapSection, MapWarning, MapWarningKind as W};
use crate::map::tiles::{self, PhysicsKind, SkipErrorKind, TileFormat, TileHistogram};
use crate::warn::Warn;

/// Vanilla tile data larger than this is counted by
/// [`Map::tile_histogram`] as it is inflated, piece by piece, instead of
/// inflated whole into the caller's buffer.
pub const STREAM_TILES_BYTES: usize = 16 << 20;

impl Map {
    /// The index of the layer DDNet uses for physics kind `kind` (the last
    /// one of that kind).
    pub fn physics_layer(&self, kind: PhysicsKind) -> Option<usize> {
        self.layers
            .iter()
            .rposition(|l| matches!(&l.kind, LayerKind::Tilemap(t) if t.kind == kind))
    }

    /// The game layer's tilemap.
    pub fn game_layer(&self) -> Option<&Tilemap> {
        self.game_layer_at().map(|(_, t)| t)
    }

    /// The game layer's index and tilemap.
    pub fn game_layer_at(&self) -> Option<(usize, &Tilemap)> {
        let i = self.physics_layer(PhysicsKind::Game)?;
        match &self.layers[i].kind {
            LayerKind::Tilemap(t) => Some((i, t)),
            _ => None,
        }
    }

    /// Layer `layer` if it is a tilemap, with its checked tile source and its
    /// stored tile data inflated into `scratch`.
    fn stored_tiles(
        &self,
        df: &Datafile<'_>,
        layer: usize,
        inflater: &mut Inflater,
        scratch: &mut Vec<u8>,
    ) -> Result<Option<(&Layer, &Tilemap, TileSource)>, MapError> {
        let Some((l, tm, src)) = self.located_tiles(df, layer, inflater)? else {
            return Ok(None);
        };
        df.decompress(src.data, inflater, scratch)?;
        Ok(Some((l, tm, src)))
    }

    /// Checks layer `layer`'s tile data against the datafile and the limits
    /// as [`Map::load_tiles`] does before it inflates (size, data index,
    /// stored size), without inflating anything; `Ok` for a layer that is
    /// not a tilemap.
    pub fn check_tiles(
        &self,
        df: &Datafile<'_>,
        layer: usize,
        inflater: &Inflater,
    ) -> Result<(), MapError> {
        self.located_tiles(df, layer, inflater).map(drop)
    }

    /// Layer `layer` if it is a tilemap, with its checked tile source.
    fn located_tiles(
        &self,
        df: &Datafile<'_>,
        layer: usize,
        inflater: &Inflater,
    ) -> Result<Option<(&Layer, &Tilemap, TileSource)>, MapError> {
        let Some(l) = self.layers.get(layer) else {
            return Ok(None);
        };
        let LayerKind::Tilemap(tm) = &l.kind else {
            return Ok(None);
        };
        let src = locate_tiles(df, layer, l, tm, inflater)?;
        Ok(Some((l, tm, src)))
    }

    /// Loads and expands the tiles of layer `layer` (a tilemap) to
    /// `width × height` tiles. `scratch` receives the stored data; when it
    /// is already in the layer's format (neither tile skip nor a legacy
    /// format) it becomes the layer's bytes as it is, not copied, and
    /// `scratch` is left empty: a layer costs its inflated size once.
    pub fn load_tiles(
        &self,
        df: &Datafile<'_>,
        layer: usize,
        inflater: &mut Inflater,
        scratch: &mut Vec<u8>,
    ) -> Result<Option<TileLayer>, MapError> {
        let Some((_, tm, src)) = self.stored_tiles(df, layer, inflater, scratch)? else {
            return Ok(None);
        };
        let section = MapSection::Layer(layer as u32);
        let (w, h) = (src.width, src.height);
        let bytes = if src.skip {
            let mut out = Vec::new();
            tiles::expand_tile_skip(scratch, w * h, &mut out)
                .map_err(|e| skip_error(e.kind, section, src.data_offset))?;
            out
        } else if src.format == tm.kind.format() {
            std::mem::take(scratch)
        } else {
            tiles::upgrade_legacy(scratch, tm.kind, src.format)
        };
        Ok(Some(TileLayer {
            kind: tm.kind,
            width: w,
            height: h,
            bytes,
        }))
    }

    /// The id histogram of layer `layer`'s tiles without expanding them;
    /// `Ok(None)` if it is not a tilemap. Non-zero padding is reported as a
    /// warning in `warnings`.
    pub fn tile_histogram(
        &self,
        df: &Datafile<'_>,
        layer: usize,
        inflater: &mut Inflater,
        scratch: &mut Vec<u8>,
        warnings: &mut impl Warn<MapWarning>,
    ) -> Result<Option<TileHistogram>, MapError> {
        let Some((l, tm, src)) = self.located_tiles(df, layer, inflater)? else {
            return Ok(None);
        };
        let section = MapSection::Layer(layer as u32);
        let stored = df.data_size(src.data).unwrap_or(0);
        let h = if !src.skip && stored > STREAM_TILES_BYTES {
            // Counted piece by piece (whole groups of 4 tiles per piece, as
            // `histogram` reads them): the worker's buffer does not grow to
            // the size of a huge layer.
            let piece = 4 * src.format.size * (1 << 14);
            let mut h = TileHistogram::default();
            df.decompress_pieces(src.data, piece, inflater, |p| {
                let part = tiles::histogram(p, src.format);
                for (c, n) in h.counts.iter_mut().zip(part.counts) {
                    *c += n;
                }
                h.padding_nonzero |= part.padding_nonzero;
            })?;
            h
        } else {
            df.decompress(src.data, inflater, scratch)?;
            if src.skip {
                tiles::histogram_skip(scratch, (src.width * src.height) as u64)
                    .map_err(|e| skip_error(e.kind, section, src.data_offset))?
            } else {
                tiles::histogram(scratch, src.format)
            }
        };
        if src.format != tm.kind.format() {
            warnings.warn(MapWarning::new(W::LegacyTileFormat, section, l.item_offset));
        }
        if h.padding_nonzero {
            warnings.warn(MapWarning::new(
                W::NonZeroTilePadding,
                section,
                l.item_offset,
            ));
        }
        Ok(Some(h))
    }
}

fn skip_error(kind: SkipErrorKind, section: MapSection, offset: usize) -> MapError {
    let kind = match kind {
        SkipErrorKind::Misaligned => E::TileDataSize,
        SkipErrorKind::Overrun => E::TileSkipOverrun,
        SkipErrorKind::Short => E::TileSkipShort,
    };
    MapError::new(kind, section, offset)
}

/// A validated tile data block.
struct TileSource {
    format: TileFormat,
    data: usize,
    data_offset: usize,
    width: usize,
    height: usize,
    skip: bool,
}

/// Checks a tilemap's size and data index against the datafile and the
/// limits before anything is inflated.
fn locate_tiles(
    df: &Datafile<'_>,
    layer: usize,
    l: &Layer,
    tm: &Tilemap,
    inflater: &Inflater,
) -> Result<TileSource, MapError> {
    let section = MapSection::Layer(layer as u32);
    let err = |k, off| Err(MapError::new(k, section, off));
    let (Ok(width), Ok(height)) = (usize::try_from(tm.width), usize::try_from(tm.height)) else {
        return err(E::BadLayerSize, l.item_offset);
    };
    if width == 0 || height == 0 {
        return err(E::BadLayerSize, l.item_offset);
    }
    // Both are below 2^31, so neither product overflows u64.
    let num_tiles = width as u64 * height as u64;
    let bytes = num_tiles * tm.kind.tile_size() as u64;
    let Some(data) = tm.tile_block(df) else {
        return err(E::BadDataRef, l.item_offset);
    };
    let data_offset = df.data_range(data).map_or(0, |r| r.start);
    if bytes > inflater.limits().max_decompressed_bytes || bytes > usize::MAX as u64 / 2 {
        return err(E::LimitExceeded, data_offset);
    }
    let stored = df.data_size(data).unwrap_or(0) as u64;
    let skip = tm.tile_skip();
    let format = if skip {
        if !stored.is_multiple_of(4) {
            return err(E::TileDataSize, data_offset);
        }
        if num_tiles > tiles::max_skip_tiles(stored as usize) {
            return err(E::TileSkipShort, data_offset);
        }
        tm.kind.format()
    } else {
        match tm.kind.format_for_size(num_tiles, stored) {
            Some(f) => f,
            None => return err(E::TileDataSize, data_offset),
        }
    };
    Ok(TileSource {
        format,
        data,
        data_offset,
        width,
        height,
        skip,
    })
}
