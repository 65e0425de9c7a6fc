//! `maps info`: one map's header, items and map part
//! ([`crate::map::inspect`]), as a document ([`MapInfo`]) and as text
//! ([`MapInfo::write_text`]).

use super::record::{ErrorRecord, WarningRecord};
use crate::datafile::{Datafile, Inflater};
use crate::limits::Limits;
use crate::map::inspect::{self, Inspection, ItemTypeCount, LayerInfo};
use crate::map::{LoadOptions, Map};
use crate::warn::Warnings;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::{self, Write};
use std::path::Path;

/// What `maps info` says of one file. Fields that could not be read
/// because of an error are absent; what was read before it is kept.
#[derive(Clone, Debug, Serialize)]
pub struct MapInfo {
    pub path: String,
    pub size: u64,
    pub sha256: String,
    pub crc32: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub datafile: Option<DatafileInfo>,
    /// Why the datafile has no map part (`no_version_item`, `no_layers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absent: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<Inspection>,
    pub warnings: Vec<WarningRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorRecord>,
}

/// The datafile header and item types.
#[derive(Clone, Debug, Serialize)]
pub struct DatafileInfo {
    /// `3`, `4` or `4crude` (as `maps index`'s `datafile_version`).
    pub version: &'static str,
    pub num_item_types: usize,
    pub num_items: usize,
    pub num_data: usize,
    /// Bytes of the item section.
    pub item_bytes: usize,
    /// Bytes of the data section as stored (compressed for version 4).
    pub compressed_bytes: u64,
    /// Bytes of all data blocks uncompressed, per the size table.
    pub decompressed_bytes: u64,
    pub item_types: Vec<ItemTypeCount>,
}

/// Reads the map file `path` (a regular file of at most
/// `limits.max_map_file_bytes`) and inspects it. An I/O error is returned;
/// a file that is not a map gives a [`MapInfo`] with its `error`.
pub fn info_file(path: &Path, limits: &Limits) -> io::Result<MapInfo> {
    let m = super::check_regular_file(path).map_err(|e| super::output::with_path(path, e))?;
    if m.len() > limits.max_map_file_bytes {
        return Err(io::Error::other(format!(
            "{}: {} bytes is over the {} byte limit of a map file",
            path.display(),
            m.len(),
            limits.max_map_file_bytes
        )));
    }
    let bytes = super::read_named_file(path)?;
    Ok(info_bytes(super::encode_path(path), &bytes, limits))
}

/// Inspects the map in `bytes`, reported under `path`.
pub(crate) fn info_bytes(path: String, bytes: &[u8], limits: &Limits) -> MapInfo {
    let mut info = MapInfo {
        path,
        size: bytes.len() as u64,
        sha256: hex::encode(Sha256::digest(bytes)),
        crc32: format!("{:08x}", crc32fast::hash(bytes)),
        datafile: None,
        absent: None,
        map: None,
        warnings: Vec::new(),
        error: None,
    };
    let mut df_warnings = Warnings::new(limits.max_warnings);
    let df = match Datafile::parse_observed(bytes, &mut df_warnings) {
        Ok(df) => df,
        Err(e) => {
            info.error = Some(ErrorRecord::datafile(&e));
            return info;
        }
    };
    info.warnings
        .extend(df_warnings.iter().map(WarningRecord::datafile));
    let l = df.header();
    let mut header = DatafileInfo {
        version: l.version.name(),
        num_item_types: l.num_item_types,
        num_items: l.num_items,
        num_data: l.num_data,
        item_bytes: l.item_size,
        compressed_bytes: l.data_size as u64,
        decompressed_bytes: df.data_size_total(),
        item_types: inspect::item_types(&df, &[]),
    };
    info.absent = crate::map::absent_reason(&df).map(|r| r.name());
    let mut inflater = Inflater::new(limits.datafile());
    let mut scratch = Vec::new();
    let mut warnings = Warnings::new(limits.max_warnings);
    match Map::parse_opts(
        &df,
        &mut inflater,
        &mut scratch,
        LoadOptions::FULL,
        &mut warnings,
    ) {
        Ok(Some(map)) => {
            header.item_types = inspect::item_types(&df, &map.uuid_types);
            info.map = Some(inspect::inspect(&df, &map));
        }
        Ok(None) => {}
        Err(e) => info.error = Some(ErrorRecord::map(&e)),
    }
    info.warnings
        .extend(warnings.iter().map(WarningRecord::map));
    info.datafile = Some(header);
    info
}

impl MapInfo {
    /// Whether the file could not be read as a map (`maps info` exits 1).
    pub fn is_failure(&self) -> bool {
        self.error.is_some()
    }

    /// The report as text, one fact per line, sections in the order of
    /// the document.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "path: {}", self.path)?;
        writeln!(
            out,
            "size: {} bytes, sha256 {}, crc32 {}",
            self.size, self.sha256, self.crc32
        )?;
        if let Some(d) = &self.datafile {
            writeln!(
                out,
                "datafile: version {}, {} item types, {} items ({} bytes), {} data blocks ({} bytes stored, {} uncompressed)",
                d.version,
                d.num_item_types,
                d.num_items,
                d.item_bytes,
                d.num_data,
                d.compressed_bytes,
                d.decompressed_bytes
            )?;
            writeln!(out, "items:")?;
            for t in &d.item_types {
                writeln!(out, "  {:<6} {:<40} {}", t.type_id, t.name, t.items)?;
            }
        }
        if let Some(a) = self.absent {
            writeln!(out, "map: absent ({a})")?;
        }
        if let Some(m) = &self.map {
            write_map_text(m, out)?;
        }
        if !self.warnings.is_empty() {
            writeln!(out, "warnings: {}", self.warnings.len())?;
            for w in &self.warnings {
                writeln!(
                    out,
                    "  {}.{} at {}, offset {}",
                    w.stage.name(),
                    w.kind,
                    w.section,
                    w.offset
                )?;
            }
        }
        if let Some(e) = &self.error {
            writeln!(out, "error: {}", e.message)?;
        }
        Ok(())
    }
}

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref().map_or_else(|| "-".to_owned(), T::to_string)
}

fn write_map_text(m: &Inspection, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "map: {}", m.version_kind.name())?;
    if let Some(i) = &m.info {
        writeln!(out, "info:")?;
        for (k, v) in [
            ("author", &i.author),
            ("version", &i.map_version),
            ("credits", &i.credits),
            ("license", &i.license),
        ] {
            if let Some(v) = v {
                writeln!(out, "  {k}: {v}")?;
            }
        }
        writeln!(out, "settings: {}", i.settings.len())?;
        for s in &i.settings {
            writeln!(out, "  {s}")?;
        }
    }
    writeln!(out, "groups: {}", m.groups.len())?;
    for g in &m.groups {
        write!(
            out,
            "  group {} {:?}: offset {},{} parallax {},{}",
            g.index, g.name, g.offset[0], g.offset[1], g.parallax[0], g.parallax[1]
        )?;
        if let Some(c) = g.clip.filter(|c| c.enabled) {
            write!(out, " clip {},{} {}x{}", c.x, c.y, c.width, c.height)?;
        }
        writeln!(out, ", {} layers", g.layers.len())?;
        for l in &g.layers {
            write_layer_text(l, out)?;
        }
    }
    if !m.ungrouped_layers.is_empty() {
        writeln!(
            out,
            "layers outside every group: {}",
            m.ungrouped_layers.len()
        )?;
        for l in &m.ungrouped_layers {
            write_layer_text(l, out)?;
        }
    }
    writeln!(out, "images: {}", m.images.len())?;
    for im in &m.images {
        writeln!(
            out,
            "  image {} {:?}: {} {}x{} {}{}",
            im.index,
            im.name.as_deref().unwrap_or(""),
            if im.external { "external" } else { "embedded" },
            im.width,
            im.height,
            im.format,
            im.data_bytes
                .map(|b| format!(", {b} bytes"))
                .unwrap_or_default()
        )?;
    }
    writeln!(
        out,
        "envelopes: {} ({} points)",
        m.envelopes.len(),
        m.envelope_points
    )?;
    for e in &m.envelopes {
        let curves: Vec<String> = e
            .curve_types
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        writeln!(
            out,
            "  envelope {} {:?}: {} ({} channels), {} points from {}, {} ms{}{}",
            e.index,
            e.name,
            e.kind,
            e.channels,
            e.points,
            e.start_point,
            opt(&e.duration_ms),
            if e.synchronized { ", synchronized" } else { "" },
            if curves.is_empty() {
                String::new()
            } else {
                format!(", curves: {}", curves.join(", "))
            }
        )?;
    }
    writeln!(out, "sounds: {}", m.sounds.len())?;
    for s in &m.sounds {
        writeln!(
            out,
            "  sound {} {:?}: {}, {} bytes",
            s.index,
            s.name.as_deref().unwrap_or(""),
            if s.external { "external" } else { "embedded" },
            s.bytes
        )?;
    }
    Ok(())
}

fn write_layer_text(l: &LayerInfo, out: &mut dyn Write) -> io::Result<()> {
    write!(out, "    layer {} {:?}: {}", l.index, l.name, l.kind)?;
    if let (Some(w), Some(h)) = (l.width, l.height) {
        write!(out, " {w}x{h}")?;
    }
    if let Some(f) = l.flags {
        write!(out, " flags {f}")?;
    }
    if let Some(c) = l.color {
        write!(out, " color {},{},{},{}", c[0], c[1], c[2], c[3])?;
    }
    if let Some(e) = l.color_envelope {
        write!(
            out,
            " color envelope {e} (offset {} ms)",
            opt(&l.color_envelope_offset)
        )?;
    }
    if let Some(q) = l.quads {
        write!(out, " {q} quads")?;
    }
    if let Some(n) = l.sources {
        write!(out, " {n} sources")?;
    }
    if let Some(s) = l.sound {
        write!(out, " sound {s}")?;
    }
    if let Some(i) = l.image {
        write!(
            out,
            " image {i} {:?}",
            l.image_name.as_deref().unwrap_or("")
        )?;
    }
    if let Some(t) = l.unknown_type {
        write!(out, " (type {t})")?;
    }
    if l.detail {
        write!(out, " detail")?;
    }
    writeln!(out)
}
