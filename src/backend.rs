//! The CPU the kernels run on, and the one way a kernel is chosen.
//!
//! The ground floor under every kernel family: it imports nothing of the
//! crate. `wide` selects its instructions at compile time (SSE2 is the
//! x86-64 baseline; AVX2 only with `-C target-cpu=native` or
//! `-C target-feature`). Kernels that have tiers for higher x86 levels are
//! chosen from [`X86Level::active`] (the CPU's level, capped by the
//! `TEEBATCH_X86_LEVEL` environment variable): each family lists its
//! kernels once with `kernel_family!` (name, level needed, whether it may
//! be chosen), and [`widest`] picks the widest one within the level for
//! every family alike: the varint unpacker (AVX-512 VBMI2, AVX2 + BMI2,
//! `wide`), the Huffman decoder (BMI2 or portable bit reader), the snapshot
//! checksum and the in-place delta add (AVX2 or `wide`).
//! [`crate::codec::kernels::tiers`] says what each chose. [`Backend`]
//! chooses whether to use those kernels at all: [`Backend::Scalar`] forces
//! the scalar tier, [`Backend::Oracle`] the reference, which is what
//! benchmarks and differential tests compare against; a
//! [`crate::codec::kernels::Kernels`] value holds what a backend resolved
//! to. Each family can also force one of its kernels (`forced`, e.g.
//! `varint::simd::unpack_on`).

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// Which tier the hot kernels use (`--backend`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Backend {
    /// The reference implementation: simple, slow, obviously correct.
    #[cfg_attr(
        feature = "cli",
        value(help = "The reference implementation: simple, slow, obviously correct")
    )]
    Oracle,
    /// The fast scalar implementation.
    #[cfg_attr(feature = "cli", value(help = "The fast scalar implementation"))]
    Scalar,
    /// The `wide` SIMD implementation where a kernel has one, else scalar.
    /// `auto` is another name for it: the kernels already pick the widest
    /// instructions this CPU has.
    #[default]
    #[cfg_attr(
        feature = "cli",
        value(
            alias = "auto",
            help = "SIMD kernels where a kernel has one, else scalar (the default; `auto` \
                is the same: the kernels pick the widest instructions the CPU has)"
        )
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

/// Defines a kernel family's enum of SIMD-tier kernels from one table (name,
/// x86 level needed, whether it may be chosen) with the one chooser every
/// family shares: `ALL` (in table order), `name`, `level`, `available`
/// (this CPU has the level, whatever the cap), `chosen` (the widest
/// kernel within [`X86Level::active`]: the highest level a choosable kernel
/// needs, the first in the table among kernels of that level) and
/// `forced` (the kernel itself, or a panic where the CPU cannot run it).
///
/// ```ignore
/// kernel_family! {
///     /// The checksum's kernels.
///     pub enum Kernel: "checksum kernel" {
///         /// 256-bit AVX2 adds.
///         Avx2 = ("avx2", Avx2, chosen),
///         /// `wide` (SSE2 on x86-64).
///         Wide = ("wide", Sse2, chosen),
///     }
/// }
/// ```
macro_rules! kernel_family {
    (
        $(#[$meta:meta])*
        $vis:vis enum $family:ident: $what:literal {
            $(
                $(#[$vmeta:meta])*
                $variant:ident = ($name:literal, $level:ident, $choice:ident)
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $family {
            $($(#[$vmeta])* $variant,)+
        }

        impl $family {
            /// Every kernel of the family, in table order.
            pub const ALL: [$family; [$($family::$variant),+].len()] = [$($family::$variant),+];

            pub fn name(self) -> &'static str {
                match self {
                    $($family::$variant => $name,)+
                }
            }

            /// The x86 level the kernel needs.
            pub fn level(self) -> $crate::backend::X86Level {
                match self {
                    $($family::$variant => $crate::backend::X86Level::$level,)+
                }
            }

            /// Whether [`Self::chosen`] may pick the kernel.
            fn choosable(self) -> bool {
                match self {
                    $($family::$variant => $crate::backend::kernel_choice!($choice),)+
                }
            }

            /// Whether this CPU can run the kernel (whatever the level cap).
            pub fn available(self) -> bool {
                self.level() <= $crate::backend::X86Level::detected()
            }

            /// The kernel the family runs in this process: the widest one
            /// within [`X86Level::active`](crate::backend::X86Level::active).
            pub fn chosen() -> $family {
                Self::widest_within($crate::backend::X86Level::active())
            }

            /// The kernel [`Self::chosen`] picks where the active level is
            /// `cap`.
            pub fn widest_within(cap: $crate::backend::X86Level) -> $family {
                $crate::backend::widest(&Self::ALL, cap, |k| (k.level(), k.choosable()))
            }

            /// `self`, for a caller that forces this kernel.
            ///
            /// # Panics
            ///
            /// Where this CPU cannot run it (see [`Self::available`]).
            #[track_caller]
            pub fn forced(self) -> $family {
                assert!(
                    self.available(),
                    concat!("this CPU cannot run the {} ", $what),
                    self.name()
                );
                self
            }
        }
    };
}

pub(crate) use kernel_family;

/// `chosen` or `never` in a [`kernel_family!`] table: whether the
/// family's chooser may pick the kernel (`never`: it is only ever forced,
/// for comparisons).
macro_rules! kernel_choice {
    (chosen) => {
        true
    };
    (never) => {
        false
    };
}

pub(crate) use kernel_choice;

/// The one chooser of every kernel family: of the `kernels` that may be
/// chosen and need at most `cap`, the one needing the highest level (the
/// first of them in `kernels` order). `shape` gives a kernel's level and
/// whether it may be chosen.
///
/// # Panics
///
/// Where no kernel may be chosen at `cap` (a family without a baseline
/// kernel: a bug in its table).
pub fn widest<K: Copy>(kernels: &[K], cap: X86Level, shape: impl Fn(K) -> (X86Level, bool)) -> K {
    let mut best: Option<(K, X86Level)> = None;
    for &k in kernels {
        let (level, choosable) = shape(k);
        if choosable && level <= cap && best.is_none_or(|(_, b)| level > b) {
            best = Some((k, level));
        }
    }
    best.expect("every kernel family has a baseline kernel").0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widest_takes_the_highest_level_within_the_cap_first_in_order() {
        use X86Level::*;
        // (name, level, may be chosen)
        let ks = [
            ("a", Avx512, true),
            ("b", Avx2, true),
            ("c", Avx2, true),
            ("d", Sse2, false),
            ("e", Sse2, true),
        ];
        let pick = |cap| widest(&ks, cap, |k| (k.1, k.2)).0;
        assert_eq!(pick(Avx512), "a");
        assert_eq!(pick(Avx2), "b");
        assert_eq!(pick(Sse2), "e");
        // Order does not make a lower level win.
        let rev: Vec<_> = ks.iter().rev().copied().collect();
        assert_eq!(widest(&rev, Avx512, |k| (k.1, k.2)).0, "a");
        assert_eq!(widest(&rev, Avx2, |k| (k.1, k.2)).0, "c");
    }

    #[test]
    #[should_panic(expected = "baseline")]
    fn a_family_without_a_baseline_is_a_bug() {
        widest(&[X86Level::Avx2], X86Level::Sse2, |k| (k, true));
    }
}
