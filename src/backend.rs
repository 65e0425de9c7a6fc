//! Choice of kernel tier, made once per run.
//!
//! `wide` selects its instructions at compile time (SSE2 is the x86-64
//! baseline; AVX2 only with `-C target-cpu=native` or `-C target-feature`).
//! One kernel also checks the CPU at run time: the SIMD varint unpacker runs
//! an AVX-512 (VBMI2) kernel where the CPU has it (see
//! [`crate::codec::varint::simd::kernel_name`]). What can be chosen is
//! whether to use the SIMD tier at all: [`Backend::Scalar`] forces the scalar
//! tier, which is what benchmarks and differential tests compare against.

use std::fmt;
use std::str::FromStr;

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

/// One line for `--version`: architecture, compiled SIMD features and the
/// kernels chosen at run time.
pub fn describe() -> String {
    format!(
        "{} (target features: {}; SIMD tier is the default, varint kernel {}; \
         `--backend scalar` forces scalar)",
        std::env::consts::ARCH,
        compiled_target_features().join(","),
        crate::codec::varint::simd::kernel_name(),
    )
}
