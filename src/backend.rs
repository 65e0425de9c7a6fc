//! Choice of kernel tier, made once per run.
//!
//! `wide` selects its instructions at compile time (SSE2 is the x86-64
//! baseline; AVX2 only with `-C target-cpu=native` or `-C target-feature`).
//! Kernels that have tiers for higher x86 levels pick one once per process
//! from [`X86Level::active`] (the CPU's level, capped by the
//! `TEEBATCH_X86_LEVEL` environment variable) and keep it as a function
//! pointer: the varint unpacker (AVX-512 VBMI2, AVX2 + BMI2, `wide`), the
//! Huffman decoder (BMI2 or portable bit reader) and the snapshot checksum
//! (AVX2 or `wide`). [`tiers`] says what each chose. [`Backend`] chooses
//! whether to use those kernels at all: [`Backend::Scalar`] forces the
//! scalar tier, [`Backend::Oracle`] the reference, which is what benchmarks
//! and differential tests compare against; each family also has a way to
//! force one of its kernels (e.g. `varint::simd::unpack_kernel`).

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// Which tier the hot kernels use (`--backend`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Backend {
    /// The reference implementation: simple, slow, obviously correct.
    #[value(help = "The reference implementation: simple, slow, obviously correct")]
    Oracle,
    /// The fast scalar implementation.
    #[value(help = "The fast scalar implementation")]
    Scalar,
    /// The `wide` SIMD implementation where a kernel has one, else scalar.
    /// `auto` is another name for it: the kernels already pick the widest
    /// instructions this CPU has.
    #[default]
    #[value(
        alias = "auto",
        help = "SIMD kernels where a kernel has one, else scalar (the default; `auto` \
                is the same: the kernels pick the widest instructions the CPU has)"
    )]
    Simd,
}

impl Backend {
    pub const ALL: [Backend; 3] = [Backend::Oracle, Backend::Scalar, Backend::Simd];

    pub fn name(self) -> &'static str {
        match self {
            Backend::Oracle => "oracle",
            Backend::Scalar => "scalar",
            Backend::Simd => "simd",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "oracle" => Ok(Backend::Oracle),
            "scalar" => Ok(Backend::Scalar),
            "simd" | "auto" => Ok(Backend::Simd),
            other => Err(format!("unknown backend {other:?} (oracle, scalar, simd)")),
        }
    }
}

/// The SIMD-relevant target features this binary was compiled with.
pub fn compiled_target_features() -> Vec<&'static str> {
    let mut v = Vec::new();
    macro_rules! feat {
        ($($f:literal),*) => {$(
            if cfg!(target_feature = $f) { v.push($f); }
        )*};
    }
    feat!(
        "sse2", "ssse3", "sse4.1", "sse4.2", "avx", "avx2", "bmi1", "bmi2", "popcnt", "lzcnt",
        "avx512f", "neon", "simd128"
    );
    v
}

/// The x86-64 instruction-set levels the kernels have tiers for, lowest
/// first. On other architectures only [`X86Level::Sse2`] exists, meaning
/// the build target's baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum X86Level {
    /// The x86-64 baseline (SSE2), which every x86-64 CPU has.
    Sse2,
    /// AVX2 with BMI1, BMI2 and POPCNT (Intel Haswell, AMD Zen 1 and later).
    Avx2,
    /// AVX-512 F, BW, VBMI and VBMI2 on top of [`X86Level::Avx2`] (Intel Ice
    /// Lake, AMD Zen 4 and later).
    Avx512,
}

/// The environment variable that caps the x86 level the kernels may use
/// (`sse2`, `avx2` or `avx512`), so that a machine with AVX-512 can measure
/// what an AVX2 or SSE2 machine gets.
pub const X86_LEVEL_ENV: &str = "TEEBATCH_X86_LEVEL";

impl X86Level {
    pub const ALL: [X86Level; 3] = [X86Level::Sse2, X86Level::Avx2, X86Level::Avx512];

    pub fn name(self) -> &'static str {
        match self {
            X86Level::Sse2 => "sse2",
            X86Level::Avx2 => "avx2",
            X86Level::Avx512 => "avx512",
        }
    }

    /// The highest level this CPU has (checked once).
    pub fn detected() -> X86Level {
        static DETECTED: OnceLock<X86Level> = OnceLock::new();
        *DETECTED.get_or_init(detect)
    }

    /// The cap set by [`X86_LEVEL_ENV`]: `Ok(None)` where it is unset or
    /// empty, an error naming the variable and the value where it is not a
    /// level name.
    pub fn cap_from_env() -> Result<Option<X86Level>, String> {
        match std::env::var_os(X86_LEVEL_ENV) {
            None => Ok(None),
            Some(v) if v.is_empty() => Ok(None),
            Some(v) => v
                .to_str()
                .and_then(|s| s.parse().ok())
                .map(Some)
                .ok_or_else(|| {
                    format!(
                        "{X86_LEVEL_ENV}={}: not an x86 level (sse2, avx2, avx512)",
                        v.to_string_lossy()
                    )
                }),
        }
    }

    /// The level the kernels use in this process: the detected level,
    /// capped by [`X86_LEVEL_ENV`] (an invalid value caps nothing; the CLI
    /// refuses to start with one). Decided once, at the first call; every
    /// kernel family picks its tier from it once.
    pub fn active() -> X86Level {
        static ACTIVE: OnceLock<X86Level> = OnceLock::new();
        *ACTIVE.get_or_init(|| {
            let detected = X86Level::detected();
            match X86Level::cap_from_env() {
                Ok(Some(cap)) => detected.min(cap),
                _ => detected,
            }
        })
    }
}

#[cfg(target_arch = "x86_64")]
fn detect() -> X86Level {
    let avx2 = is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
        && is_x86_feature_detected!("popcnt");
    let avx512 = is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vbmi")
        && is_x86_feature_detected!("avx512vbmi2");
    match (avx2, avx512) {
        (true, true) => X86Level::Avx512,
        (true, false) => X86Level::Avx2,
        _ => X86Level::Sse2,
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> X86Level {
    X86Level::Sse2
}

impl fmt::Display for X86Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for X86Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "sse2" => Ok(X86Level::Sse2),
            "avx2" => Ok(X86Level::Avx2),
            "avx512" => Ok(X86Level::Avx512),
            other => Err(format!("unknown x86 level {other:?} (sse2, avx2, avx512)")),
        }
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
        varint: crate::codec::varint::simd::Kernel::chosen().name(),
        huffman: crate::codec::huffman::Tier::chosen().name(),
        checksum: crate::codec::snapshot::checksum::Kernel::chosen().name(),
        delta_add: crate::codec::snapshot::AddKernel::chosen().name(),
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
