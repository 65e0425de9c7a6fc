//! The snapshot kernels a [`Backend`] resolves to, and the delta applier
//! that owns them.
//!
//! [`SnapshotKernels`] is resolved once (a checksum kernel as a function pointer,
//! the add kernel as the tier its item loops are compiled for); a
//! [`DeltaApplier`] owns it with the spare snapshot an application needs,
//! so that applying a delta takes the snapshot, the delta and what the
//! caller reports, not the tier and the scratch buffer again each time.
//! Each application dispatches on the add tier once, then runs a loop
//! compiled for it; the checksum is one call per snapshot or item.

use super::checksum::{self, checksum_oracle, checksum_scalar, ChecksumFn};
use super::{AddKernel, Changes, Error, Protocol, Snapshot, Warning};
use crate::backend::Backend;
use crate::warn::Warn;

/// The kernel of the wrapping adds (`new = old + diff`, `data += diff`) a
/// backend resolved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddTier {
    /// [`super::wrapping_add_oracle`], [`super::wrapping_add_assign_oracle`].
    Oracle,
    /// [`super::wrapping_add_scalar`], [`super::wrapping_add_assign_scalar`].
    Scalar,
    /// [`super::wrapping_add_simd`], [`super::wrapping_add_assign_simd`]
    /// ([`AddKernel::Wide`]).
    Wide,
    /// [`super::wrapping_add_simd`] for `old + diff`,
    /// `wrapping_add_assign_avx2_lanes` (x86-64) in the in-place applier
    /// ([`AddKernel::Avx2`]; only where the CPU has AVX2).
    Avx2,
}

/// The snapshot kernels of one backend, resolved once.
#[derive(Clone, Copy, Debug)]
pub struct SnapshotKernels {
    backend: Backend,
    checksum: ChecksumFn,
    add: AddTier,
}

impl SnapshotKernels {
    /// The kernels `backend` means: the references, the scalar kernels, or
    /// the SIMD kernels chosen for this CPU ([`checksum::Kernel::chosen`],
    /// [`AddKernel::chosen`]).
    pub fn new(backend: Backend) -> SnapshotKernels {
        let (checksum, add): (ChecksumFn, _) = match backend {
            Backend::Oracle => (checksum_oracle, AddTier::Oracle),
            Backend::Scalar => (checksum_scalar, AddTier::Scalar),
            Backend::Simd => (
                checksum::Kernel::chosen().entry(),
                match AddKernel::chosen() {
                    AddKernel::Avx2 => AddTier::Avx2,
                    AddKernel::Wide => AddTier::Wide,
                },
            ),
        };
        SnapshotKernels {
            backend,
            checksum,
            add,
        }
    }

    /// The backend these kernels were resolved from.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The add kernel.
    pub fn add_tier(&self) -> AddTier {
        self.add
    }

    /// The wrapping sum of `data` (a snapshot checksum).
    #[inline]
    pub fn checksum(&self, data: &[i32]) -> i32 {
        (self.checksum)(data)
    }

    /// `out = old + diff` (wrapping), over the common length.
    #[inline]
    pub fn wrapping_add(&self, old: &[i32], diff: &[i32], out: &mut [i32]) {
        match self.add {
            AddTier::Oracle => super::wrapping_add_oracle(old, diff, out),
            AddTier::Scalar => super::wrapping_add_scalar(old, diff, out),
            AddTier::Wide | AddTier::Avx2 => super::wrapping_add_simd(old, diff, out),
        }
    }

    /// `data += diff` (wrapping), over the common length; returns the
    /// wrapping sum of the diff ints used.
    pub fn wrapping_add_assign(&self, data: &mut [i32], diff: &[i32]) -> i32 {
        match self.add {
            AddTier::Oracle => super::wrapping_add_assign_oracle(data, diff),
            AddTier::Scalar => super::wrapping_add_assign_scalar(data, diff),
            AddTier::Wide => super::wrapping_add_assign_simd(data, diff),
            AddTier::Avx2 => super::wrapping_add_assign_on(AddKernel::Avx2, data, diff),
        }
    }

    /// Applies the delta ints `delta` to `old`, writing the result into
    /// `new` (its buffers are reused; on error it is left empty). Warnings
    /// are appended to `warnings` (those met before an error stay there).
    /// See [`super::delta`] for the rules.
    pub fn apply_delta(
        &self,
        old: &Snapshot,
        delta: &[i32],
        protocol: Protocol,
        new: &mut Snapshot,
        warnings: &mut impl Warn<Warning>,
    ) -> Result<(), Error> {
        super::delta::apply_delta_by(self, old, delta, protocol, new, warnings)
    }
}

/// Applies snapshot deltas with the kernels of one backend, keeping the
/// spare snapshot the applications need between calls.
#[derive(Clone, Debug)]
pub struct DeltaApplier {
    kernels: SnapshotKernels,
    spare: Snapshot,
}

impl DeltaApplier {
    /// An applier with the kernels `backend` means.
    pub fn new(backend: Backend) -> DeltaApplier {
        DeltaApplier::with_kernels(SnapshotKernels::new(backend))
    }

    /// An applier with `kernels`.
    pub fn with_kernels(kernels: SnapshotKernels) -> DeltaApplier {
        DeltaApplier::with_spare(kernels, Snapshot::new())
    }

    /// An applier with `kernels` and `spare` as its spare snapshot (a
    /// buffer the caller reuses; see [`DeltaApplier::into_spare`]).
    pub fn with_spare(kernels: SnapshotKernels, spare: Snapshot) -> DeltaApplier {
        DeltaApplier { kernels, spare }
    }

    /// The spare snapshot, to reuse its buffers.
    pub fn into_spare(self) -> Snapshot {
        self.spare
    }

    /// The kernels it applies with.
    pub fn kernels(&self) -> SnapshotKernels {
        self.kernels
    }

    /// The spare snapshot (its contents are unspecified between calls).
    pub fn spare(&self) -> &Snapshot {
        &self.spare
    }

    /// Replaces `snap` by the full snapshot `ints` ([`Snapshot::parse_into`]
    /// into the spare snapshot, then swapped in); returns its checksum. On
    /// error `snap` is unchanged.
    pub fn replace(&mut self, snap: &mut Snapshot, ints: &[i32]) -> Result<i32, Error> {
        self.spare.parse_into(ints)?;
        std::mem::swap(snap, &mut self.spare);
        Ok(self.kernels.checksum(snap.data()))
    }

    /// Applies `delta` to `snap` in place.
    ///
    /// Afterwards `snap` holds exactly what [`SnapshotKernels::apply_delta`] from
    /// the old `snap` would have put in `new` (same items, order and data;
    /// the same warnings pushed in the same order; the same error kind and
    /// offset). Returns the new checksum (equal to `snap.checksum()`),
    /// computed from `checksum`, which must be the old snapshot's checksum,
    /// plus what changed. See [`super::in_place`].
    ///
    /// On error `snap`'s contents are unspecified (but it is a valid
    /// snapshot, fit for [`Snapshot::parse_into`] or another delta);
    /// warnings met before the error stay in `warnings`.
    pub fn apply_in_place(
        &mut self,
        snap: &mut Snapshot,
        delta: &[i32],
        protocol: Protocol,
        warnings: &mut impl Warn<Warning>,
        checksum: i32,
    ) -> Result<i32, Error> {
        super::in_place::apply_in_place(
            &self.kernels,
            snap,
            &mut self.spare,
            delta,
            protocol,
            warnings,
            checksum,
            &mut super::in_place::NoTrack,
        )
    }

    /// [`DeltaApplier::apply_in_place`], also filling `changes` with what
    /// the delta changed (see [`Changes`]): the removed items' keys and
    /// sizes as they are removed, the positions of the updated kept items
    /// as their diffs are added, and where the appended items start. No
    /// extra pass over the snapshot. On error `changes` is unspecified.
    pub fn apply_in_place_tracked(
        &mut self,
        snap: &mut Snapshot,
        delta: &[i32],
        protocol: Protocol,
        warnings: &mut impl Warn<Warning>,
        checksum: i32,
        changes: &mut Changes,
    ) -> Result<i32, Error> {
        changes.clear();
        super::in_place::apply_in_place(
            &self.kernels,
            snap,
            &mut self.spare,
            delta,
            protocol,
            warnings,
            checksum,
            changes,
        )
    }

    /// The copying way, and the reference for
    /// [`DeltaApplier::apply_in_place`]: the spare snapshot becomes
    /// `apply(snap, delta)` ([`SnapshotKernels::apply_delta`]) and is swapped into
    /// `snap`; returns the new checksum, summed over all of it. On error
    /// `snap` is unchanged.
    pub fn apply_by_copy(
        &mut self,
        snap: &mut Snapshot,
        delta: &[i32],
        protocol: Protocol,
        warnings: &mut impl Warn<Warning>,
    ) -> Result<i32, Error> {
        super::in_place::apply_by_copy(
            &self.kernels,
            snap,
            &mut self.spare,
            delta,
            protocol,
            warnings,
        )
    }
}
