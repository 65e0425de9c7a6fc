//! What the kernel families chose, and how to say it.
//!
//! [`crate::backend`] knows the CPU (the detected and active
//! [`X86Level`]) and the one chooser every family shares
//! ([`crate::backend::widest`]); each family of [`crate::codec`] names its
//! kernels and the level each needs. [`tiers`] asks every family for its
//! choice, [`describe`] says it in one line.

use super::huffman;
use super::snapshot::{checksum, AddKernel};
use super::varint;
use crate::backend::{compiled_target_features, X86Level, X86_LEVEL_ENV};

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
