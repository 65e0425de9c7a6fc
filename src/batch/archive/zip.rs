//! Zip archives: listing the central directory, inflating a member.

use super::checks::wanted;
use super::ArchiveKind;
use super::{printable, ArchiveError, Listed, Method};
use std::io;

/// Inflates the raw deflate stream `stored` into `buf` (cleared first),
/// growing it as output is produced: by what it holds (at least 64 KiB),
/// never past `declared + 1` bytes, so the capacity stays within twice
/// what was produced plus 64 KiB whatever the archive declares. Output past
/// the declared size stops at one byte more (the caller sees the mismatch).
pub(super) fn inflate_into(stored: &[u8], declared: u64, buf: &mut Vec<u8>) -> Result<(), String> {
    use flate2::{Decompress, FlushDecompress, Status};
    buf.clear();
    let cap = declared.saturating_add(1);
    let mut d = Decompress::new(false);
    loop {
        if buf.len() == buf.capacity() {
            let len = buf.len() as u64;
            if len >= cap {
                return Ok(());
            }
            let more = len.max(64 << 10).min(cap - len);
            buf.reserve_exact(more as usize);
        }
        let (in_before, out_before) = (d.total_in(), d.total_out());
        let status = d
            .decompress_vec(&stored[in_before as usize..], buf, FlushDecompress::Finish)
            .map_err(|e| e.to_string())?;
        if status == Status::StreamEnd {
            return Ok(());
        }
        let stalled = d.total_in() == in_before && d.total_out() == out_before;
        if stalled && buf.len() < buf.capacity() {
            return Err("the deflate stream ends early".into());
        }
    }
}

/// Lists a zip archive. The `zip` crate keeps one entry per name, so a
/// central directory that names a member more than once is also an error
/// for the archive (the entries it hides are not read).
pub(super) fn list_zip(
    bytes: &[u8],
    ext: &str,
) -> Result<(Vec<Listed>, Option<ArchiveError>), ArchiveError> {
    let zerr = |e: zip::result::ZipError| {
        ArchiveError::new(
            ArchiveKind::BadArchive,
            "central_directory",
            bytes.len() as u64,
            format!("not a readable zip archive: {}", printable(&e.to_string())),
        )
    };
    let mut z = zip::ZipArchive::new(io::Cursor::new(bytes)).map_err(zerr)?;
    let mut out = Vec::new();
    for i in 0..z.len() {
        let Ok(meta) = z.by_index_data(i) else {
            continue;
        };
        let raw = meta.name_raw();
        let Some(nested) = wanted(raw, ext) else {
            continue;
        };
        let header_offset = meta.header_start();
        let (stored_size, size, crc) = (meta.compressed_size(), meta.size(), meta.crc32());
        let method = meta.compression();
        let mut l = Listed {
            raw: raw.to_vec(),
            header_offset,
            data_offset: header_offset,
            stored_size,
            size,
            method: Method::Stored,
            crc32: Some(crc),
            problem: nested.map(|mut e| {
                e.offset = header_offset;
                e
            }),
        };
        if meta.encrypted() {
            // ZipCrypto or AES (whose method is 99): never inflated, never
            // checked against a CRC it cannot match.
            l.problem.get_or_insert(ArchiveError::new(
                ArchiveKind::Encrypted,
                "member",
                header_offset,
                "member is encrypted (not supported)".into(),
            ));
        }
        match method {
            zip::CompressionMethod::Stored => {}
            m if m == zip::CompressionMethod::DEFLATE => l.method = Method::Deflated,
            m => {
                l.problem.get_or_insert(ArchiveError::new(
                    ArchiveKind::Unsupported,
                    "member",
                    header_offset,
                    format!("compression method {m} is not supported (only stored and deflate)"),
                ));
            }
        }
        match z.by_index_raw(i) {
            Ok(f) => match f.data_start() {
                Some(d) => l.data_offset = d,
                None => {
                    l.problem.get_or_insert(ArchiveError::new(
                        ArchiveKind::BadArchive,
                        "member",
                        header_offset,
                        "member's local header not found".into(),
                    ));
                }
            },
            Err(e) => {
                l.problem.get_or_insert(ArchiveError::new(
                    ArchiveKind::LyingSize,
                    "member",
                    header_offset,
                    format!("member's local header is unreadable: {e}"),
                ));
            }
        }
        out.push(l);
    }
    let hidden = z.has_duplicate_names().then(|| {
        ArchiveError::new(
            ArchiveKind::DuplicateName,
            "central_directory",
            z.central_directory_start(),
            "the central directory names a member more than once; only the last entry of each name is read".into(),
        )
    });
    Ok((out, hidden))
}
