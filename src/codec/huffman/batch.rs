//! Batch decoding: several independent streams at once.
//!
//! The single-stream fast loop is latency-bound: each table lookup needs the
//! bit buffer shifted by the previous entry, so one stream is one long
//! dependency chain (about 9 cycles per lookup). Independent streams
//! (consecutive demo chunk payloads) have independent chains; decoding a few
//! of them in one loop lets their lookups overlap, until the loop is bound by
//! instructions instead.
//!
//! Each stream runs in a *lane*. One iteration of the interleaved loop
//! refills every lane's bit buffer, then decodes the lanes' table entries
//! round-robin with the single-stream code (`fast::fast_entry`), so the
//! lanes' bit buffers and counts stay in registers. A lane whose stream
//! reaches EOF records its result and takes the next stream of the batch
//! without leaving the loop; when there is none the loop goes on with one
//! lane fewer.
//!
//! Unlike the single-stream loop, a lane does not leave for the tail when
//! fewer than 8 input bytes are left: it goes on with zero bytes past the
//! end (as the tail reads them), so valid streams decode to EOF in the
//! interleaved loop. A lane leaves only for too little output room or after
//! 8 zero bytes past the end (no EOF); the single-stream tail
//! (`Cursor::finish`) then finishes that stream from where it stands.
//!
//! Decoding on past the end with no check against it is exact. Zero bits
//! decode to 0x80 symbols and never to EOF (whose code has ones), so a
//! symbol that starts past the end can only be followed by more of them,
//! never by EOF: an EOF found this way starts before the end, and every
//! symbol before it is what the tail decodes (codes that straddle the end
//! are completed with zeros by both). A stream with no EOF goes on past the
//! end until the lane leaves, having decoded every symbol that starts
//! before the end, and the tail then reports
//! [`HuffmanErrorKind::MissingEof`](super::HuffmanErrorKind::MissingEof) at
//! once. The output never fills up in the interleaved loop (an iteration
//! needs a whole window of room), so where a stream's symbols do not fit,
//! the lane leaves before it has taken them all, and the tail reports
//! [`HuffmanErrorKind::OutputFull`](super::HuffmanErrorKind::OutputFull) at
//! the same symbol as the single-stream decoder. Each stream's result is
//! therefore exactly what [`fast::decompress`] gives.

use super::fast::{self, fast_entry, Cursor, ENTRIES_PER_REFILL, LUT_BITS, LUT_SIZE, WINDOW};
use super::Tier;
use super::{oracle, HuffmanError};

/// Streams decoded at once by [`decompress_batch`].
///
/// Measured as user cycles (`perf stat`, x86-64 baseline, shared 2-core AMD
/// EPYC) for all real demo payloads in batches of 8 / of 64, relative to
/// one lane: 2 lanes 0.68 / 0.63, 3 lanes 0.65 / 0.59, 4 lanes 0.62 / 0.56,
/// 5 lanes 0.65 / 0.65, 6 lanes 0.66 / 0.66. Past 4 lanes the loop's state
/// no longer fits in registers. With 4 lanes one lane's bit buffer lives
/// on the stack; one output pointer per lane instead of the window and an
/// index (`unsafe` stores) keeps all four in registers, but measured no
/// faster (full decode of the real demos at the AVX2 cap, Zen 4 EPYC: 0.3 %
/// fewer instructions, times within the noise of interleaved runs), and 5
/// or 6 lanes with it were 6–8 % slower. Dropping the count registers
/// instead (a sentinel bit above the valid bits, the count found with
/// `lzcnt` at each refill) kept every lane's bit buffer in a register but
/// made the full decode 3 % slower: the `lzcnt` sits on the refill's
/// dependency chain, where the count it replaces was ready early.
pub const WIDTH: usize = 4;

/// Decodes `inputs[i]` into `arena[start_i..start_i + caps[i]]`, where
/// `start_i = caps[..i].sum()`, and stores in `results[i]` exactly what
/// [`fast::decompress`] returns on that input and slice.
///
/// Output bytes of a stream's slice after its decoded length are
/// unspecified, as with [`super::decompress`].
///
/// # Panics
///
/// Where `inputs`, `caps` and `results` differ in length, or the caps add up
/// to more than `arena.len()` (caller bugs, like an out-of-range slice
/// index). Input bytes never cause a panic.
pub fn decompress_batch(
    inputs: &[&[u8]],
    caps: &[usize],
    arena: &mut [u8],
    results: &mut [Result<usize, HuffmanError>],
) {
    decompress_batch_on(Tier::chosen(), inputs, caps, arena, results);
}

/// [`decompress_batch`] with the tier `tier`: [`Tier::Oracle`] decodes the
/// streams one by one with [`oracle::decompress`], the others interleave
/// them.
///
/// # Panics
///
/// As [`decompress_batch`], and where this CPU cannot run `tier` (see
/// [`Tier::available`]).
pub fn decompress_batch_on(
    tier: Tier,
    inputs: &[&[u8]],
    caps: &[usize],
    arena: &mut [u8],
    results: &mut [Result<usize, HuffmanError>],
) {
    match tier.forced() {
        Tier::Oracle => {
            check_shapes(inputs, caps, arena, results);
            let mut rest = arena;
            for ((input, &cap), result) in inputs.iter().zip(caps).zip(results) {
                let (out, tail) = rest.split_at_mut(cap);
                *result = oracle::decompress(input, out);
                rest = tail;
            }
        }
        Tier::Portable | Tier::Bmi2 => interleaved::<WIDTH>(tier, inputs, caps, arena, results),
    }
}

/// [`decompress_batch`] with `W` (1..=8) lanes. For benchmarks.
#[doc(hidden)]
pub fn decompress_batch_interleaved<const W: usize>(
    inputs: &[&[u8]],
    caps: &[usize],
    arena: &mut [u8],
    results: &mut [Result<usize, HuffmanError>],
) {
    interleaved::<W>(Tier::Portable, inputs, caps, arena, results);
}

/// [`decompress_batch_interleaved`] with the loop compiled for `tier` (one
/// of the fast tiers the CPU has).
fn interleaved<const W: usize>(
    tier: Tier,
    inputs: &[&[u8]],
    caps: &[usize],
    arena: &mut [u8],
    results: &mut [Result<usize, HuffmanError>],
) {
    const { assert!(W >= 1 && W <= 8) };
    check_shapes(inputs, caps, arena, results);
    let (lut, sub) = fast::lut_and_sub();
    let mut queue = Queue {
        streams: inputs.iter().zip(caps).enumerate(),
        rest: arena,
    };
    let mut lanes: [Lane; W] = std::array::from_fn(|_| Lane::start(0, &[], &mut []));
    let mut active = 0;
    while active < W {
        let Some((slot, input, out)) = queue.next() else {
            break;
        };
        lanes[active] = Lane::start(slot, input, out);
        active += 1;
    }
    let mut batch = Batch {
        lut,
        sub,
        queue,
        results,
    };
    while active > 0 {
        let lanes = &mut lanes[..active];
        // Only the loops for up to `W` lanes are instantiated.
        macro_rules! run {
            ($($n:literal)*) => {
                match active {
                    $(#[cfg(target_arch = "x86_64")]
                    $n if $n <= W && tier == Tier::Bmi2 => {
                        // SAFETY: the caller checked that this CPU has the
                        // Bmi2 tier's features.
                        unsafe { batch.run_bmi2::<$n>(lanes) }
                    })*
                    $($n if $n <= W => batch.run::<$n>(lanes),)*
                    _ => unreachable!("1..=W lanes"),
                }
            };
        }
        // The lane whose stream ended with no stream left to take.
        let done = run!(1 2 3 4 5 6 7 8);
        active -= 1;
        lanes.swap(done, active);
    }
}

/// Panics on caller misuse: see [`decompress_batch`].
fn check_shapes(
    inputs: &[&[u8]],
    caps: &[usize],
    arena: &[u8],
    results: &[Result<usize, HuffmanError>],
) {
    assert_eq!(inputs.len(), caps.len(), "one cap per input");
    assert_eq!(inputs.len(), results.len(), "one result per input");
    let total = caps
        .iter()
        .try_fold(0usize, |sum, &cap| sum.checked_add(cap));
    assert!(
        total.is_some_and(|total| total <= arena.len()),
        "the caps add up to more than the arena"
    );
}

/// The streams not yet started, each with its slice of the arena.
struct Queue<'a, 'b> {
    streams: std::iter::Enumerate<
        std::iter::Zip<std::slice::Iter<'b, &'a [u8]>, std::slice::Iter<'b, usize>>,
    >,
    rest: &'a mut [u8],
}

impl<'a> Queue<'a, '_> {
    /// The next stream: its index in the batch, input and output slice.
    fn next(&mut self) -> Option<(usize, &'a [u8], &'a mut [u8])> {
        let (slot, (&input, &cap)) = self.streams.next()?;
        let (out, rest) = std::mem::take(&mut self.rest).split_at_mut(cap);
        self.rest = rest;
        Some((slot, input, out))
    }
}

/// One stream in flight. Its bit buffer and count live in the loop's
/// registers while it runs (and in `bitbuf`, `bitcount` otherwise).
struct Lane<'a> {
    input: &'a [u8],
    /// The input after the bytes loaded into the bit buffer.
    unread: &'a [u8],
    /// Zero bytes loaded past the end of the input.
    overrun: usize,
    out: &'a mut [u8],
    /// Output bytes written.
    n: usize,
    bitbuf: u64,
    bitcount: u32,
    /// Index in the batch.
    slot: usize,
}

impl<'a> Lane<'a> {
    fn start(slot: usize, input: &'a [u8], out: &'a mut [u8]) -> Lane<'a> {
        Lane {
            input,
            unread: input,
            overrun: 0,
            out,
            n: 0,
            bitbuf: 0,
            bitcount: 0,
            slot,
        }
    }

    /// `Cursor::refill` for this lane with its bit buffer and count kept
    /// apart, going on past the end of the input with zero bytes, up to 8
    /// of them.
    #[inline(always)]
    fn refill(&mut self, bitbuf: &mut u64, bitcount: &mut u32) -> Option<&mut [u8; WINDOW]> {
        let window = self.out.get_mut(self.n..)?.first_chunk_mut::<WINDOW>()?;
        let word = match self.unread.first_chunk::<8>() {
            Some(bytes) => u64::from_le_bytes(*bytes),
            None => padded_word(self.input, self.unread, self.overrun)?,
        };
        let count = *bitcount & 0xff;
        *bitbuf |= word << count;
        // Whole bytes that fit above the valid bits: (63 - count) / 8.
        let loaded = 7 - (count as usize >> 3 & 7);
        match self.unread.get(loaded..) {
            Some(unread) => self.unread = unread,
            None => run_out(&mut self.unread, &mut self.overrun, loaded),
        }
        *bitcount = count | 56;
        Some(window)
    }

    /// The cursor of the stream (with its bit buffer and count saved).
    fn cursor(&self) -> Cursor {
        Cursor {
            bitbuf: self.bitbuf,
            bitcount: self.bitcount,
            pos: self.input.len() - self.unread.len() + self.overrun,
            n: self.n,
        }
    }

    /// The result of the stream, which left the fast loop because of `stop`
    /// with its bit buffer and count saved.
    #[inline(never)]
    fn result(&mut self, stop: Stop) -> Result<usize, HuffmanError> {
        match stop {
            Stop::Eof => Ok(self.n),
            Stop::Leave => self.cursor().finish(self.input, self.out),
        }
    }
}

/// Accounts for `loaded` bytes loaded where fewer are `unread`.
#[cold]
fn run_out(unread: &mut &[u8], overrun: &mut usize, loaded: usize) {
    *overrun += loaded - unread.len();
    *unread = &[];
}

/// The next 8 bytes of a stream whose `unread` bytes (the end of `input`)
/// are fewer than 8: they and then zero bytes, as the tail reads past the
/// end; `None` where 8 zero bytes past the end were loaded already (see the
/// module docs for why decoding on with these is exact).
///
/// Every stream's last refills come here, so it takes no `memcpy` call
/// (which a copy of a variable length is): the input's last 8 bytes shifted
/// down by the bytes already loaded, or for inputs under 8 bytes the bytes
/// one by one. Through `memcpy` it took 1 % of a full decode of the
/// generated demos (whose message payloads are short).
#[inline(never)]
fn padded_word(input: &[u8], unread: &[u8], overrun: usize) -> Option<u64> {
    if overrun >= 8 {
        return None;
    }
    let left = unread.len().min(7);
    if left == 0 {
        return Some(0);
    }
    Some(match input.last_chunk::<8>() {
        Some(last) => u64::from_le_bytes(*last) >> (8 * (8 - left)),
        None => unread
            .iter()
            .rev()
            .fold(0, |word, &b| word << 8 | u64::from(b)),
    })
}

/// Why a lane left the interleaved loop.
#[derive(Clone, Copy)]
enum Stop {
    /// Its stream decoded EOF.
    Eof,
    /// It cannot run another fast iteration.
    Leave,
}

/// What the lanes share.
struct Batch<'a, 'b, 'r> {
    lut: &'static [u64; LUT_SIZE],
    sub: &'static [u64],
    queue: Queue<'a, 'b>,
    results: &'r mut [Result<usize, HuffmanError>],
}

impl<'a> Batch<'a, '_, '_> {
    /// Runs the interleaved loop on `N` lanes (all of `lanes`), giving each
    /// lane whose stream ends the next stream of the queue, until a stream
    /// ends with none left; returns that lane.
    #[inline(never)]
    fn run<const N: usize>(&mut self, lanes: &mut [Lane<'a>]) -> usize {
        self.run_body::<N>(lanes)
    }

    /// [`Batch::run`] compiled for BMI2 (`shlx`/`shrx` shifts by a
    /// register, no flags), for [`Tier::Bmi2`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi1,bmi2")]
    #[inline(never)]
    fn run_bmi2<const N: usize>(&mut self, lanes: &mut [Lane<'a>]) -> usize {
        self.run_body::<N>(lanes)
    }

    #[inline(always)]
    fn run_body<const N: usize>(&mut self, lanes: &mut [Lane<'a>]) -> usize {
        let Ok(lanes) = <&mut [Lane<'a>; N]>::try_from(lanes) else {
            unreachable!("N lanes")
        };
        let (lut, sub) = (self.lut, self.sub);
        // `each_lane!(l, { ... })`: the block once per lane, with `l` a
        // constant, so that the lanes' cursors, windows and run lengths are
        // separate registers rather than arrays in memory.
        macro_rules! each_lane {
            ($l:ident, $body:block) => {
                each_lane!(@ $l, $body, 0 1 2 3 4 5 6 7)
            };
            (@ $l:ident, $body:block, $($i:literal)*) => {
                $(
                    if $i < N {
                        let $l: usize = $i;
                        $body
                    }
                )*
            };
        }
        const { assert!(N <= 8) };
        // The bit buffers and counts are the loop's registers; positions
        // stay in `lanes`.
        let mut bitbufs = [0u64; N];
        let mut bitcounts = [0u32; N];
        each_lane!(l, {
            bitbufs[l] = lanes[l].bitbuf;
            bitcounts[l] = lanes[l].bitcount;
        });
        loop {
            let stop = 'iteration: {
                let mut windows: [Option<&mut [u8; WINDOW]>; N] = [const { None }; N];
                {
                    let mut lanes = lanes.iter_mut();
                    let mut slots = windows.iter_mut();
                    each_lane!(l, {
                        if let (Some(lane), Some(window)) = (lanes.next(), slots.next()) {
                            *window = lane.refill(&mut bitbufs[l], &mut bitcounts[l]);
                        }
                    });
                }
                each_lane!(l, {
                    if windows[l].is_none() {
                        break 'iteration Some((l, Stop::Leave));
                    }
                });
                let mut k = [0usize; N];
                let mut eof = None;
                // One round: the next entry of every lane.
                macro_rules! round {
                    ($done:lifetime, $cond:expr) => {
                        each_lane!(l, {
                            if let Some(w) = windows[l].as_deref_mut() {
                                let (bitbuf, bitcount) = (&mut bitbufs[l], &mut bitcounts[l]);
                                if $cond(*bitcount)
                                    && fast_entry(lut, sub, bitbuf, bitcount, w, &mut k[l])
                                {
                                    eof = Some(l);
                                    break $done;
                                }
                            }
                        });
                    };
                }
                'entries: {
                    const { assert!(ENTRIES_PER_REFILL == 3) };
                    round!('entries, |_| true);
                    round!('entries, |_| true);
                    round!('entries, |_| true);
                    // A fourth entry where a lane has a table index of valid
                    // bits left (long codes may have taken them).
                    round!('entries, |bitcount| bitcount as u8 >= LUT_BITS as u8);
                }
                each_lane!(l, {
                    lanes[l].n += k[l];
                });
                eof.map(|l| (l, Stop::Eof))
            };
            if let Some((l, stop)) = stop {
                each_lane!(i, {
                    lanes[i].bitbuf = bitbufs[i];
                    lanes[i].bitcount = bitcounts[i];
                });
                let lane = &mut lanes[l];
                self.results[lane.slot] = lane.result(stop);
                let Some((slot, input, out)) = self.queue.next() else {
                    return l;
                };
                *lane = Lane::start(slot, input, out);
                each_lane!(i, {
                    bitbufs[i] = lanes[i].bitbuf;
                    bitcounts[i] = lanes[i].bitcount;
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tree::{Tree, EOF};
    use super::*;

    /// What decoding past the end relies on: zero bits never decode to EOF.
    #[test]
    fn eof_code_has_a_one_bit() {
        assert_ne!(Tree::reference().codes[usize::from(EOF)].bits, 0);
        let mut out = [0; 256];
        let r = oracle::decompress(&[0; 16], &mut out);
        assert_eq!(
            r.map_err(|e| e.kind),
            Err(super::super::HuffmanErrorKind::MissingEof)
        );
    }
}
