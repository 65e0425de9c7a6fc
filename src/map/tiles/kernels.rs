//! Dispatch as a value for the tile kernels: a [`Backend`] resolved once
//! into [`TileKernels`], as [`crate::codec::kernels::Kernels`] does for the
//! codecs, so that a caller looping over layers or maps holds one value
//! instead of matching on the backend per call.

use super::skip::SkipError;
use super::{histogram, oracle, TileFormat, TileHistogram};
use crate::backend::Backend;

/// A tile skip expander: [`super::expand_tile_skip`]'s signature.
type ExpandFn = fn(&[u8], usize, &mut Vec<u8>) -> Result<(), SkipError>;

/// The tile kernels of one backend: the plain references of [`oracle`]
/// ([`Backend::Oracle`]) or the fast ones. There is no SIMD tier: a
/// histogram's scattered increments do not vectorise, tile skip runs are
/// short, and inflating dominates anyway; [`Backend::Simd`] means the
/// scalar kernels.
#[derive(Clone, Copy, Debug)]
pub struct TileKernels {
    histogram: fn(&[u8], TileFormat) -> TileHistogram,
    expand_skip: ExpandFn,
}

impl TileKernels {
    /// The kernels `backend` means.
    pub fn new(backend: Backend) -> TileKernels {
        match backend {
            Backend::Oracle => TileKernels {
                histogram: oracle::histogram,
                expand_skip: oracle_expand_tile_skip,
            },
            Backend::Scalar | Backend::Simd => TileKernels {
                histogram: histogram::histogram,
                expand_skip: super::skip::expand_tile_skip,
            },
        }
    }

    /// [`super::histogram`] with this backend's kernel.
    #[inline]
    pub fn histogram(&self, data: &[u8], fmt: TileFormat) -> TileHistogram {
        (self.histogram)(data, fmt)
    }

    /// [`super::expand_tile_skip`] with this backend's kernel (the
    /// reference leaves `out` as it was on error).
    #[inline]
    pub fn expand_tile_skip(
        &self,
        packed: &[u8],
        num_tiles: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), SkipError> {
        (self.expand_skip)(packed, num_tiles, out)
    }
}

/// [`oracle::expand_tile_skip`] into `out` (unchanged on error).
fn oracle_expand_tile_skip(
    packed: &[u8],
    num_tiles: usize,
    out: &mut Vec<u8>,
) -> Result<(), SkipError> {
    *out = oracle::expand_tile_skip(packed, num_tiles)?;
    Ok(())
}
