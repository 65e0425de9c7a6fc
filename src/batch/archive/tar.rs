//! Tar archives: listing the entries raw, with bounded GNU long-name and
//! PAX headers.

use super::checks::wanted;
use super::ArchiveKind;
use super::{printable, ArchiveError, Listed, Method};
use std::io::{self, Read};

/// Lists a tar archive; an error part-way keeps the members before it.
pub(super) fn list_tar(bytes: &[u8], ext: &str) -> (Vec<Listed>, Vec<ArchiveError>) {
    let mut out = Vec::new();
    // Seeking over member bytes instead of reading them.
    let mut a = tar::Archive::new(io::Cursor::new(bytes));
    let (mut errors, fatal) = list_tar_entries(a.entries_with_seek(), ext, &mut out);
    errors.extend(fatal);
    (out, errors)
}

fn tar_error(offset: u64, e: io::Error) -> Option<ArchiveError> {
    Some(ArchiveError::new(
        ArchiveKind::BadArchive,
        "archive",
        offset,
        format!("not a readable tar archive: {}", printable(&e.to_string())),
    ))
}

/// Longest member name taken from a GNU long-name entry or a PAX `path`
/// record; a longer one is refused (`name_too_long`) without being read.
pub const MAX_NAME_BYTES: u64 = 4096;

/// Largest PAX extended header read (its records describe one member; a
/// larger one is refused as `name_too_long` without being read).
pub const MAX_PAX_BYTES: u64 = 64 << 10;

/// Lists the entries of a tar: the members named `*.ext` into `out`, then
/// the members refused as a whole (`name_too_long`, records for the
/// archive) and the error that ended the listing, if any.
///
/// The entries are read raw: the GNU long-name and PAX headers, which the
/// `tar` crate would read whole whatever their size, are read here only
/// up to [`MAX_NAME_BYTES`] / [`MAX_PAX_BYTES`]; a GNU long link name (a
/// link's target) is never read.
pub(super) fn list_tar_entries<R: Read>(
    entries: io::Result<tar::Entries<'_, R>>,
    ext: &str,
    out: &mut Vec<Listed>,
) -> (Vec<ArchiveError>, Option<ArchiveError>) {
    let bad = tar_error;
    let mut refusals = Vec::new();
    let entries = match entries {
        Ok(e) => e.raw(true),
        Err(e) => return (refusals, bad(0, e)),
    };
    let fatal = |offset, message: String| {
        Some(ArchiveError::new(
            ArchiveKind::BadArchive,
            "archive",
            offset,
            message,
        ))
    };
    let mut last_end = 0u64;
    // What the extension entries before the next member say about it.
    let mut long_name: Option<Vec<u8>> = None;
    let mut pax: Option<Vec<u8>> = None;
    let mut ext_start: Option<u64> = None;
    let mut refused: Option<ArchiveError> = None;
    for entry in entries {
        let mut entry = match entry {
            Ok(e) => e,
            Err(e) => return (refusals, bad(last_end, e)),
        };
        let header_offset = entry.raw_header_position();
        let data_offset = entry.raw_file_position();
        let size = entry.size();
        last_end = data_offset.saturating_add(size);
        let h = entry.header();
        let t = h.entry_type();
        let recognized = h.as_gnu().is_some() || h.as_ustar().is_some();
        if recognized && (t.is_gnu_longname() || t.is_gnu_longlink() || t.is_pax_local_extensions())
        {
            ext_start.get_or_insert(header_offset);
            if t.is_gnu_longlink() {
                // A link's target: never needed.
                continue;
            }
            let (what, cap, slot) = if t.is_pax_local_extensions() {
                ("PAX extended header", MAX_PAX_BYTES, &mut pax)
            } else {
                ("GNU long name", MAX_NAME_BYTES, &mut long_name)
            };
            if slot.is_some() {
                return (
                    refusals,
                    fatal(header_offset, format!("a second {what} for one member")),
                );
            }
            if size > cap {
                refused.get_or_insert(ArchiveError::new(
                    ArchiveKind::NameTooLong,
                    "member",
                    header_offset,
                    format!(
                        "a {what} of {size} bytes is over the {cap}-byte limit: the member it describes is not read"
                    ),
                ));
                *slot = Some(Vec::new());
                continue;
            }
            let mut v = Vec::with_capacity(size as usize);
            if let Err(e) = (&mut entry).take(cap).read_to_end(&mut v) {
                return (refusals, bad(header_offset, e));
            }
            *slot = Some(v);
            continue;
        }
        // A member: the extension entries before it describe it.
        let start = ext_start.take().unwrap_or(header_offset);
        let mut name = long_name.take().map(|mut n| {
            if n.last() == Some(&0) {
                n.pop();
            }
            n
        });
        let mut refusal = refused.take();
        if let Some(p) = pax.take() {
            for x in tar::PaxExtensions::new(&p).flatten() {
                match x.key_bytes() {
                    b"path" if name.is_none() && refusal.is_none() => {
                        let v = x.value_bytes();
                        if v.len() as u64 > MAX_NAME_BYTES {
                            refusal = Some(ArchiveError::new(
                                ArchiveKind::NameTooLong,
                                "member",
                                start,
                                format!(
                                    "a PAX path of {} bytes is over the {MAX_NAME_BYTES}-byte limit: the member is not read",
                                    v.len()
                                ),
                            ));
                        } else {
                            name = Some(v.to_vec());
                        }
                    }
                    b"size" => {
                        let pax_size = x.value().ok().and_then(|v| v.parse::<u64>().ok());
                        if pax_size.is_some_and(|p| p != size) {
                            // The next header is where the PAX size puts
                            // it, which the raw listing does not follow.
                            return (
                                refusals,
                                fatal(
                                    start,
                                    format!(
                                        "a PAX size ({}) that differs from the header's ({size}) is not supported",
                                        pax_size.unwrap_or_default()
                                    ),
                                ),
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
        if t.is_gnu_sparse() && h.as_gnu().is_some_and(|g| g.is_extended()) {
            return (
                refusals,
                fatal(
                    header_offset,
                    "a GNU sparse member with extension headers is not supported".into(),
                ),
            );
        }
        if let Some(r) = refusal {
            refusals.push(r);
            continue;
        }
        let regular = t.is_file() || t == tar::EntryType::Continuous;
        // Directories and the tar's own metadata entries are not inputs;
        // a link, device or FIFO named like an input is one that cannot
        // be read, and gets its record rather than vanishing.
        if !regular
            && !matches!(
                t,
                tar::EntryType::Link
                    | tar::EntryType::Symlink
                    | tar::EntryType::Char
                    | tar::EntryType::Block
                    | tar::EntryType::Fifo
                    | tar::EntryType::GNUSparse
            )
        {
            continue;
        }
        let raw = match name {
            Some(n) => n,
            None => entry.path_bytes().into_owned(),
        };
        let Some(nested) = wanted(&raw, ext) else {
            continue;
        };
        let nested = if regular {
            nested
        } else {
            Some(ArchiveError::new(
                ArchiveKind::Unsupported,
                "member",
                0,
                format!("a tar member of type {t:?} is not read (only regular files are)"),
            ))
        };
        out.push(Listed {
            raw,
            header_offset,
            data_offset,
            stored_size: size,
            size,
            method: Method::Stored,
            crc32: None,
            problem: nested.map(|mut e| {
                e.offset = header_offset;
                e
            }),
        });
    }
    if let Some(r) = refused {
        refusals.push(r);
    } else if let Some(at) = ext_start {
        return (
            refusals,
            fatal(at, "an extension header with no member after it".into()),
        );
    }
    (refusals, None)
}
