//! What listing alone can tell about members: names, nested archives,
//! sizes against the archive and the limits, overlaps.

use super::ArchiveKind;
use super::{ArchiveError, Kind, Listed, Method};
use crate::limits::Limits;

/// Whether a member name ends in `.ext` (case-insensitive) and names a file.
pub(super) fn has_ext(name: &[u8], ext: &str) -> bool {
    let e = ext.as_bytes();
    name.len() > e.len() + 1
        && name[name.len() - e.len() - 1] == b'.'
        && name[name.len() - e.len()..].eq_ignore_ascii_case(e)
        && name[name.len() - e.len() - 2] != b'/'
}

/// Whether a member name could escape a destination directory if it were
/// ever extracted: absolute, a drive letter, or a `..` component.
pub(super) fn unsafe_name(name: &str) -> bool {
    name.starts_with('/')
        || name.starts_with('\\')
        || name.as_bytes().get(1) == Some(&b':')
        || name.split(['/', '\\']).any(|c| c == "..")
}

/// Checks what listing alone can tell: names, nested archives, sizes
/// against the archive and the limits, overlaps.
pub(super) fn check_members(listed: &mut [Listed], archive_len: u64, limits: &Limits) {
    let mut total = 0u64;
    for l in listed.iter_mut() {
        if l.problem.is_some() {
            continue;
        }
        let e = |kind, message| Some(ArchiveError::new(kind, "member", l.header_offset, message));
        l.problem = if unsafe_name(&l.name()) {
            e(
                ArchiveKind::UnsafeName,
                "member name is absolute or has a `..` component".into(),
            )
        } else if l
            .data_offset
            .checked_add(l.stored_size)
            .is_none_or(|end| end > archive_len)
        {
            e(
                ArchiveKind::LyingSize,
                format!(
                    "member claims {} bytes at byte {}, past the archive's end ({archive_len} bytes)",
                    l.stored_size, l.data_offset
                ),
            )
        } else if l.method == Method::Stored && l.size != l.stored_size {
            e(
                ArchiveKind::LyingSize,
                format!(
                    "stored member declares {} bytes but holds {}",
                    l.size, l.stored_size
                ),
            )
        } else if l.size
            > l.stored_size
                .max(1)
                .saturating_mul(limits.max_archive_ratio)
        {
            e(
                ArchiveKind::ZipBomb,
                format!(
                    "member declares {} bytes from {} stored, over the {}:1 ratio limit",
                    l.size, l.stored_size, limits.max_archive_ratio
                ),
            )
        } else {
            total = total.saturating_add(l.size);
            (total > limits.max_archive_total_bytes).then(|| {
                ArchiveError::new(
                    ArchiveKind::TotalLimit,
                    "member",
                    l.header_offset,
                    format!(
                        "members up to this one declare more than the {} byte limit per archive",
                        limits.max_archive_total_bytes
                    ),
                )
            })
        };
    }
    // A name given to more than one member: the first keeps it, the later
    // ones are errors (extracting the archive would overwrite the first).
    let mut first: std::collections::HashMap<&[u8], u64> = std::collections::HashMap::new();
    let mut repeats = Vec::new();
    for (i, l) in listed.iter().enumerate() {
        match first.entry(l.raw.as_slice()) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(l.header_offset);
            }
            std::collections::hash_map::Entry::Occupied(o) => repeats.push((i, *o.get())),
        }
    }
    for (i, at) in repeats {
        listed[i].problem.get_or_insert(ArchiveError::new(
            ArchiveKind::DuplicateName,
            "member",
            listed[i].header_offset,
            format!("member name repeats the member at byte {at}"),
        ));
    }
    // Overlaps: members' [header, data end) ranges, sorted by start
    // (members already refused, e.g. for a lying size, are not read and
    // take no part).
    let mut order: Vec<usize> = (0..listed.len())
        .filter(|&i| listed[i].problem.is_none())
        .collect();
    order.sort_by_key(|&i| listed[i].header_offset);
    let mut prev: Option<(usize, u64)> = None;
    for &i in &order {
        let end = listed[i].data_offset.saturating_add(listed[i].stored_size);
        if let Some((p, pend)) = prev {
            if listed[i].header_offset < pend {
                let msg = |other: &Listed| {
                    format!(
                        "member overlaps `{}` (bytes {}..{})",
                        other.name(),
                        other.header_offset,
                        pend
                    )
                };
                let m = msg(&listed[p]);
                if listed[i].problem.is_none() {
                    listed[i].problem = Some(ArchiveError::new(
                        ArchiveKind::Overlapping,
                        "member",
                        listed[i].header_offset,
                        m,
                    ));
                }
                let m = format!(
                    "member overlaps `{}` (bytes {}..{end})",
                    listed[i].name(),
                    listed[i].header_offset
                );
                if listed[p].problem.is_none() {
                    listed[p].problem = Some(ArchiveError::new(
                        ArchiveKind::Overlapping,
                        "member",
                        listed[p].header_offset,
                        m,
                    ));
                }
            }
        }
        if prev.is_none_or(|(_, pend)| end > pend) {
            prev = Some((i, end));
        }
    }
}

/// A listed entry is kept when it is a member to process or an archive
/// inside the archive (reported, not opened).
pub(super) fn wanted(name: &[u8], ext: &str) -> Option<Option<ArchiveError>> {
    if has_ext(name, ext) {
        Some(None)
    } else if Kind::of_name(name).is_some() {
        Some(Some(ArchiveError::new(
            ArchiveKind::NestedArchive,
            "member",
            0,
            "an archive inside an archive is not opened".into(),
        )))
    } else {
        None
    }
}
