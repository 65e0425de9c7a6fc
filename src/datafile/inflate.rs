//! Bounded zlib decompression of data blocks with libdeflater.

use super::error::{Error, ErrorKind, Section};
use libdeflater::{DecompressionError, Decompressor};

/// Default [`InflateLimits::max_decompressed_bytes`]: 1 GiB per file. The
/// largest real map in the shared datasets (DDNetPP's BlmapChill, 1.4 MB)
/// decompresses to 626 MB.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: u64 = 1 << 30;

/// The decompression budget of one file (the datafile part of
/// [`crate::limits::Limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InflateLimits {
    /// Maximum total decompressed bytes of one file's data blocks.
    pub max_decompressed_bytes: u64,
}

impl Default for InflateLimits {
    fn default() -> Self {
        InflateLimits {
            max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED_BYTES,
        }
    }
}

/// The most bytes a zlib stream of `n` bytes can inflate to.
///
/// Deflate's densest code is a 258-byte match in about 2 bits, a ratio just
/// under 1032:1; the slack covers the headers of tiny streams.
pub(crate) fn max_inflated_len(n: usize) -> u64 {
    n as u64 * 1032 + 1024
}

/// A reusable decompressor that also keeps the per-file byte budget.
///
/// One per worker thread: call [`Inflater::start_file`] before each file.
pub struct Inflater {
    decompressor: Decompressor,
    limits: InflateLimits,
    used: u64,
    /// The block charged the most bytes in this file: (bytes, section,
    /// offset). A budget error names it: the block that used the budget,
    /// not whichever small block came last.
    largest: Option<(u64, Section, usize)>,
    /// The output of [`Inflater::inflate_block`]: its length only grows
    /// (to the largest block inflated so far), so it is zero-filled once
    /// per size, not again for each block larger than the one before.
    block: Vec<u8>,
}

impl Default for Inflater {
    fn default() -> Self {
        Inflater::new(InflateLimits::default())
    }
}

impl std::fmt::Debug for Inflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inflater")
            .field("limits", &self.limits)
            .field("used", &self.used)
            .finish()
    }
}

impl Inflater {
    pub fn new(limits: InflateLimits) -> Self {
        Inflater {
            decompressor: Decompressor::new(),
            limits,
            used: 0,
            largest: None,
            block: Vec::new(),
        }
    }

    pub fn limits(&self) -> InflateLimits {
        self.limits
    }

    /// Resets the per-file budget.
    pub fn start_file(&mut self) {
        self.used = 0;
        self.largest = None;
    }

    /// Decompressed bytes charged to the current file so far.
    pub fn used(&self) -> u64 {
        self.used
    }

    /// Bytes of buffer the inflater keeps between files (the capacity of
    /// [`Inflater::inflate_block`]'s buffer).
    pub fn held_bytes(&self) -> usize {
        self.block.capacity()
    }

    /// Charges `n` bytes of block `section` to the file's budget. Over the
    /// limit, the error names the block that was charged the most so far
    /// (this one or an earlier one of the same file).
    fn charge(&mut self, n: u64, section: Section, offset: usize) -> Result<(), Error> {
        let total = self.used.saturating_add(n);
        let this = (n, section, offset);
        let largest = match self.largest {
            Some(l) if l.0 >= n => l,
            _ => this,
        };
        if total > self.limits.max_decompressed_bytes {
            return Err(Error::new(ErrorKind::LimitExceeded, largest.1, largest.2));
        }
        self.used = total;
        self.largest = Some(largest);
        Ok(())
    }

    /// Inflates the zlib stream `raw` that must produce exactly `expected`
    /// bytes piece by piece through a buffer of `piece` bytes, handing each
    /// full piece (and the last, shorter one) to `f`; charged to the budget
    /// like [`Inflater::inflate_exact`], but nothing the size of the block is
    /// allocated.
    pub fn inflate_pieces(
        &mut self,
        raw: &[u8],
        expected: usize,
        piece: usize,
        section: Section,
        offset: usize,
        mut f: impl FnMut(&[u8]),
    ) -> Result<(), Error> {
        if expected as u64 > max_inflated_len(raw.len()) {
            return Err(Error::new(ErrorKind::BadDataSize, section, offset));
        }
        self.charge(expected as u64, section, offset)?;
        let mut z = flate2::Decompress::new(true);
        let mut buf = vec![0u8; piece.max(1)];
        let mut filled = 0;
        let mismatch = || Error::new(ErrorKind::DataSizeMismatch, section, offset);
        loop {
            let before_in = z.total_in() as usize;
            let before_out = z.total_out();
            let status = z
                .decompress(
                    &raw[before_in..],
                    &mut buf[filled..],
                    flate2::FlushDecompress::None,
                )
                .map_err(|_| Error::new(ErrorKind::Inflate, section, offset))?;
            filled += (z.total_out() - before_out) as usize;
            if z.total_out() > expected as u64 {
                return Err(mismatch());
            }
            let end = status == flate2::Status::StreamEnd;
            if filled == buf.len() || (end && filled > 0) {
                f(&buf[..filled]);
                filled = 0;
            }
            if end {
                break;
            }
            if z.total_out() == before_out && z.total_in() as usize == before_in {
                // No progress: the stream is cut short.
                return Err(mismatch());
            }
        }
        if z.total_out() != expected as u64 {
            return Err(mismatch());
        }
        Ok(())
    }

    /// Inflates at most the first `max` bytes of the zlib stream `raw`
    /// (whose block claims `expected` bytes) into `out`, charging only
    /// those: for strings, which need a bounded prefix, not a whole block a
    /// crafted file may inflate to the budget. A block of at most `max`
    /// bytes is inflated and checked whole ([`Inflater::inflate_exact`]).
    pub fn inflate_prefix(
        &mut self,
        raw: &[u8],
        expected: usize,
        max: usize,
        out: &mut Vec<u8>,
        section: Section,
        offset: usize,
    ) -> Result<(), Error> {
        if expected <= max {
            return self.inflate_exact(raw, expected, out, section, offset);
        }
        if expected as u64 > max_inflated_len(raw.len()) {
            return Err(Error::new(ErrorKind::BadDataSize, section, offset));
        }
        self.charge(max as u64, section, offset)?;
        out.clear();
        out.resize(max, 0);
        let mut z = flate2::Decompress::new(true);
        match z.decompress(raw, out, flate2::FlushDecompress::None) {
            Ok(_) if z.total_out() as usize == max => Ok(()),
            Ok(_) => {
                out.truncate(z.total_out() as usize);
                Err(Error::new(ErrorKind::DataSizeMismatch, section, offset))
            }
            Err(_) => {
                out.clear();
                Err(Error::new(ErrorKind::Inflate, section, offset))
            }
        }
    }

    /// Inflates the zlib stream `raw` that must produce exactly `expected`
    /// bytes into `out` (its previous contents are discarded; its capacity is
    /// reused, so a worker's buffer grows to its largest block and stays).
    pub fn inflate_exact(
        &mut self,
        raw: &[u8],
        expected: usize,
        out: &mut Vec<u8>,
        section: Section,
        offset: usize,
    ) -> Result<(), Error> {
        self.check_and_charge(raw, expected, section, offset)?;
        // Only the part of the buffer never used before gets zero-filled.
        if out.len() < expected {
            out.resize(expected, 0);
        } else {
            out.truncate(expected);
        }
        match self.decompressor.zlib_decompress(raw, out) {
            Ok(n) if n == expected => Ok(()),
            Ok(n) => {
                out.truncate(n);
                Err(Error::new(ErrorKind::DataSizeMismatch, section, offset))
            }
            Err(e) => {
                out.clear();
                Err(Self::inflate_error(e, section, offset))
            }
        }
    }

    /// As [`Inflater::inflate_exact`], into the inflater's own buffer,
    /// which only grows: for passes that read each block once and let it go
    /// (`maps index --verify`). The bytes stay valid until the next call.
    pub fn inflate_block(
        &mut self,
        raw: &[u8],
        expected: usize,
        section: Section,
        offset: usize,
    ) -> Result<&[u8], Error> {
        self.check_and_charge(raw, expected, section, offset)?;
        if self.block.len() < expected {
            self.block.resize(expected, 0);
        }
        let out = &mut self.block[..expected];
        match self.decompressor.zlib_decompress(raw, out) {
            Ok(n) if n == expected => Ok(out),
            Ok(_) => Err(Error::new(ErrorKind::DataSizeMismatch, section, offset)),
            Err(e) => Err(Self::inflate_error(e, section, offset)),
        }
    }

    /// Gives back the memory of [`Inflater::inflate_block`]'s buffer beyond
    /// `keep` bytes if it grew past them (the batch layer keeps as much as
    /// it keeps of its other buffers after each file).
    pub fn shrink_block_buffer(&mut self, keep: usize) {
        if self.block.capacity() > keep {
            self.block.clear();
            self.block.shrink_to(keep);
        }
    }

    /// The size checks before a whole-block inflate, then the charge.
    fn check_and_charge(
        &mut self,
        raw: &[u8],
        expected: usize,
        section: Section,
        offset: usize,
    ) -> Result<(), Error> {
        if expected as u64 > max_inflated_len(raw.len()) {
            return Err(Error::new(ErrorKind::BadDataSize, section, offset));
        }
        self.charge(expected as u64, section, offset)
    }

    fn inflate_error(e: DecompressionError, section: Section, offset: usize) -> Error {
        let kind = match e {
            DecompressionError::InsufficientSpace => ErrorKind::DataSizeMismatch,
            DecompressionError::BadData => ErrorKind::Inflate,
        };
        Error::new(kind, section, offset)
    }

    /// Charges a raw (version 3) block read in place to the budget.
    pub fn charge_stored(
        &mut self,
        n: usize,
        section: Section,
        offset: usize,
    ) -> Result<(), Error> {
        self.charge(n as u64, section, offset)
    }

    /// Copies a raw (version 3) block, charging it to the budget.
    pub fn copy_raw(
        &mut self,
        raw: &[u8],
        out: &mut Vec<u8>,
        section: Section,
        offset: usize,
    ) -> Result<(), Error> {
        self.charge(raw.len() as u64, section, offset)?;
        out.clear();
        out.extend_from_slice(raw);
        Ok(())
    }
}
