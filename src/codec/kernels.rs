//! Dispatch as a value: the kernels a [`Backend`] resolves to, what the
//! kernel families chose, and how to say it.
//!
//! [`crate::backend`] knows the CPU (the detected and active
//! [`X86Level`]) and the one chooser every family shares
//! ([`crate::backend::widest`]); each family of [`crate::codec`] names its
//! kernels and the level each needs. [`Kernels::new`] resolves a backend
//! once into one kernel per family, which a demo decoder keeps for all the
//! payloads it decodes (no match on the backend per call). [`tiers`] asks
//! every family for its choice, [`describe`] says it in one line.
//!
//! A new tier of a family: a variant in the family's `kernel_family!`
//! table with the level it needs, its arm in the family's `entry`, and the
//! chooser picks it where the CPU has the level.

use super::huffman::{self, DecompressFn, HuffmanError};
use super::snapshot::{checksum, AddKernel, SnapshotKernels};
use super::varint::{self, UnpackFn, VarintError, VarintWarning};
use crate::backend::{compiled_target_features, Backend, X86Level, X86_LEVEL_ENV};
use crate::warn::Warn;

/// The codec kernels of one backend, resolved once: the Huffman decoder
/// (its tier for batches, its entry point for single streams), the varint
/// unpacker and the snapshot kernels. A small `Copy` value: each call goes
/// through one function pointer or one loop compiled for the tier, per
/// buffer, never per element.
#[derive(Clone, Copy, Debug)]
pub struct Kernels {
    backend: Backend,
    huffman: huffman::Tier,
    decompress: DecompressFn,
    unpack: UnpackFn,
    snapshot: SnapshotKernels,
}

impl Kernels {
    /// The kernels `backend` means: the references ([`Backend::Oracle`]),
    /// the scalar kernels, or each family's kernel chosen for this CPU
    /// ([`Backend::Simd`]).
    pub fn new(backend: Backend) -> Kernels {
        let huffman = huffman::Tier::for_backend(backend);
        Kernels {
            backend,
            huffman,
            decompress: huffman.entry(),
            unpack: varint::unpacker(backend),
            snapshot: SnapshotKernels::new(backend),
        }
    }

    /// The backend these kernels were resolved from.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The Huffman decoder's tier.
    pub fn huffman_tier(&self) -> huffman::Tier {
        self.huffman
    }

    /// The snapshot kernels (for a [`crate::codec::snapshot::DeltaApplier`]).
    pub fn snapshot(&self) -> SnapshotKernels {
        self.snapshot
    }

    /// [`huffman::decompress`] with this backend's tier.
    #[inline]
    pub fn decompress(&self, input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
        (self.decompress)(input, out)
    }

    /// [`huffman::decompress_batch`] with this backend's tier
    /// ([`huffman::Tier::Oracle`] decodes the streams one by one).
    pub fn decompress_batch(
        &self,
        inputs: &[&[u8]],
        caps: &[usize],
        arena: &mut [u8],
        results: &mut [Result<usize, HuffmanError>],
    ) {
        huffman::decompress_batch_on(self.huffman, inputs, caps, arena, results);
    }

    /// [`varint::unpack`] with this backend's unpacker.
    #[inline]
    pub fn unpack(
        &self,
        input: &[u8],
        out: &mut [i32],
        warnings: &mut dyn Warn<VarintWarning>,
    ) -> Result<usize, VarintError> {
        (self.unpack)(input, out, warnings)
    }

    /// The snapshot checksum of `data` with this backend's kernel.
    #[inline]
    pub fn checksum(&self, data: &[i32]) -> i32 {
        self.snapshot.checksum(data)
    }
}

impl Default for Kernels {
    fn default() -> Self {
        Kernels::new(Backend::default())
    }
}

/// The tier each kernel family chose for the SIMD backend in this process.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Tiers {
    /// The highest x86 level this CPU has.
    pub detected: X86Level,
    /// The level the kernels may use (`detected`, capped by
    /// [`X86_LEVEL_ENV`]).
    pub active: X86Level,
    /// The varint unpacker's kernel.
    pub varint: &'static str,
    /// The Huffman decoder's kernel.
    pub huffman: &'static str,
    /// The snapshot checksum's kernel.
    pub checksum: &'static str,
    /// The snapshot delta add's kernel.
    pub delta_add: &'static str,
}

/// What was detected and what each kernel family chose.
pub fn tiers() -> Tiers {
    Tiers {
        detected: X86Level::detected(),
        active: X86Level::active(),
        varint: varint::simd::Kernel::chosen().name(),
        huffman: huffman::Tier::chosen().name(),
        checksum: checksum::Kernel::chosen().name(),
        delta_add: AddKernel::chosen().name(),
    }
}

/// One line for `--version` and the bench headers: architecture, compiled
/// SIMD features, the detected and active x86 level, and the kernel each
/// family chose.
pub fn describe() -> String {
    let t = tiers();
    format!(
        "{} (target features: {}; cpu level {}, active {} ({X86_LEVEL_ENV} caps it); \
         simd tier kernels: varint {}, huffman {}, checksum {}, delta add {}; \
         `--backend scalar` forces scalar)",
        std::env::consts::ARCH,
        compiled_target_features().join(","),
        t.detected,
        t.active,
        t.varint,
        t.huffman,
        t.checksum,
        t.delta_add,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use X86Level::*;

    /// Every family's chooser picks at each level what its hand-written
    /// chooser picked before they became one.
    #[test]
    fn each_family_picks_the_widest_kernel_within_the_level() {
        use varint::simd::Kernel as V;
        // (Off x86-64 the active level is always `Sse2`.)
        for cap in X86Level::ALL {
            let avx2 = cap >= Avx2;
            let want_varint = match cap {
                Avx512 => V::Avx512,
                Avx2 => V::Avx2,
                Sse2 => V::Wide,
            };
            assert_eq!(V::widest_within(cap), want_varint, "{cap}");
            let want = if avx2 {
                huffman::Tier::Bmi2
            } else {
                huffman::Tier::Portable
            };
            assert_eq!(huffman::Tier::widest_within(cap), want, "{cap}");
            let want = if avx2 {
                checksum::Kernel::Avx2
            } else {
                checksum::Kernel::Wide
            };
            assert_eq!(checksum::Kernel::widest_within(cap), want, "{cap}");
            let want = if avx2 {
                AddKernel::Avx2
            } else {
                AddKernel::Wide
            };
            assert_eq!(AddKernel::widest_within(cap), want, "{cap}");
        }
    }

    #[test]
    fn tiers_are_the_chosen_kernels() {
        let t = tiers();
        assert_eq!(t.active, X86Level::active());
        assert!(t.active <= t.detected);
        assert_eq!(t.varint, varint::simd::Kernel::chosen().name());
        assert_eq!(t.huffman, huffman::Tier::chosen().name());
        assert!(describe().contains(&format!("huffman {}", t.huffman)));
    }
}
