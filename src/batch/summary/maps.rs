//! The `maps index` aggregate.
//!
//! Everything is a count per distinct key (versions, tiles, authors, image
//! names, ...) except [`ShaPaths`]: one `(sha256, path)` pair per map read,
//! which duplicates and name collisions need and which is kept compact (32
//! bytes plus the path).

use super::{
    add_outcome, bump, digest_kinds, list_top, merge_counts, merge_kinds, one_line, sum, top,
    Aggregate, ByKind,
};
use crate::batch::maps::MapRecord;
use crate::map::EntityCounts;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::collections::hash_map::{Entry, RandomState};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::BuildHasher;
use std::path::Path;

/// Buckets of [`GameLayerSizes::area_log2_histogram`].
pub(crate) const AREA_BUCKETS: usize = 64;

/// min, max and sum of a value over the maps that have it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MinMaxSum {
    pub min: Option<u64>,
    pub max: Option<u64>,
    pub sum: u64,
}

impl MinMaxSum {
    fn add(&mut self, v: u64) {
        self.min = Some(self.min.map_or(v, |m| m.min(v)));
        self.max = Some(self.max.map_or(v, |m| m.max(v)));
        self.sum = self.sum.saturating_add(v);
    }

    fn merge(&mut self, o: MinMaxSum, field: &str) -> Result<(), String> {
        self.min = match (self.min, o.min) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.max = match (self.max, o.max) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        sum(&mut self.sum, o.sum, || format!("{field}.sum"))
    }
}

/// Game layer sizes (in tiles) over the maps that have a game layer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameLayerSizes {
    pub maps: u64,
    pub width: MinMaxSum,
    pub height: MinMaxSum,
    /// width × height.
    pub area: MinMaxSum,
    /// Entry `k`: maps with 2^k <= width × height < 2^(k+1) (entry 0 also
    /// counts an area of 0). Empty until a map has a game layer.
    pub area_log2_histogram: Vec<u64>,
}

impl GameLayerSizes {
    fn add(&mut self, w: u32, h: u32) {
        let area = u64::from(w) * u64::from(h);
        self.maps = self.maps.saturating_add(1);
        self.width.add(w.into());
        self.height.add(h.into());
        self.area.add(area);
        self.area_log2_histogram.resize(AREA_BUCKETS, 0);
        let bucket = &mut self.area_log2_histogram[area.max(1).ilog2() as usize];
        *bucket = bucket.saturating_add(1);
    }

    fn merge(&mut self, o: GameLayerSizes) -> Result<(), String> {
        super::sums!(self, o, "game_layer.", maps);
        self.width.merge(o.width, "game_layer.width")?;
        self.height.merge(o.height, "game_layer.height")?;
        self.area.merge(o.area, "game_layer.area")?;
        // Entries past the 64 an area can have would be kept from a file
        // as they are: refused, as a count from a file never sizes what is
        // kept.
        if o.area_log2_histogram.len() > AREA_BUCKETS {
            return Err(format!(
                "game_layer.area_log2_histogram: {} entries, more than the {AREA_BUCKETS} a 64-bit area has",
                o.area_log2_histogram.len()
            ));
        }
        let n = self
            .area_log2_histogram
            .len()
            .max(o.area_log2_histogram.len());
        self.area_log2_histogram.resize(n, 0);
        for (i, (a, b)) in self
            .area_log2_histogram
            .iter_mut()
            .zip(o.area_log2_histogram)
            .enumerate()
        {
            sum(a, b, || format!("game_layer.area_log2_histogram[{i}]"))?;
        }
        Ok(())
    }
}

/// One `(sha256, path)` pair per map whose bytes were read. Serialised as
/// `{sha256: [paths]}` with sorted keys and paths.
#[derive(Clone, Debug, Default)]
pub struct ShaPaths(Vec<([u8; 32], Box<str>)>, PathIndex);

#[cfg(test)]
thread_local! {
    /// Paths hashed on this thread to find the maps two merged parts share
    /// (the work of merging, counted by the scaling test).
    pub(super) static PATHS_HASHED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Where each path of a [`ShaPaths`] first occurs, by a 64-bit hash of the
/// path (randomly keyed, so collisions cannot be crafted; one is resolved
/// by a scan): what lets a merge find a path both parts cover with one
/// lookup per path of the part merged in, where scanning every path merged
/// so far for each part made merging n summaries quadratic. About 16 to 32
/// bytes per path; built by the first merge, dropped when the pairs are
/// sorted.
#[derive(Clone, Debug, Default)]
struct PathIndex {
    first: HashMap<u64, usize>,
    /// Pairs indexed so far (pairs are only appended until sorted).
    indexed: usize,
    keys: RandomState,
}

impl PathIndex {
    fn hash(&self, path: &str) -> u64 {
        #[cfg(test)]
        PATHS_HASHED.with(|c| c.set(c.get() + 1));
        self.keys.hash_one(path)
    }

    /// Indexes the pairs appended since the last call.
    fn catch_up(&mut self, pairs: &[([u8; 32], Box<str>)]) {
        for (i, p) in pairs.iter().enumerate().skip(self.indexed) {
            let h = self.hash(&p.1);
            if let Entry::Vacant(v) = self.first.entry(h) {
                v.insert(i);
            }
        }
        self.indexed = pairs.len();
    }

    /// The first position of `path` in `pairs` (indexed up to date).
    fn find(&self, pairs: &[([u8; 32], Box<str>)], path: &str) -> Option<usize> {
        let i = *self.first.get(&self.hash(path))?;
        if *pairs[i].1 == *path {
            return Some(i);
        }
        // Another path with the same hash came first.
        pairs.iter().position(|p| *p.1 == *path)
    }
}

impl ShaPaths {
    fn push(&mut self, sha_hex: &str, path: &str) {
        let mut sha = [0u8; 32];
        if hex::decode_to_slice(sha_hex, &mut sha).is_ok() {
            self.0.push((sha, path.into()));
        }
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The pairs sorted by sha256, then path.
    fn sorted(&self) -> Vec<&([u8; 32], Box<str>)> {
        let mut v: Vec<_> = self.0.iter().collect();
        v.sort_unstable();
        v
    }

    /// sha256 -> paths, sorted.
    pub fn grouped(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (sha, path) in self.sorted() {
            out.entry(hex::encode(sha))
                .or_default()
                .push(path.to_string());
        }
        out
    }
}

impl Serialize for ShaPaths {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let sorted = self.sorted();
        let mut m = s.serialize_map(None)?;
        let mut i = 0;
        while i < sorted.len() {
            let sha = sorted[i].0;
            let j = i + sorted[i..].iter().take_while(|p| p.0 == sha).count();
            let paths: Vec<&str> = sorted[i..j].iter().map(|p| &*p.1).collect();
            m.serialize_entry(&hex::encode(sha), &paths)?;
            i = j;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for ShaPaths {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ShaPaths;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of sha256 (64 hex digits) to paths")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<ShaPaths, A::Error> {
                let mut out = Vec::new();
                while let Some((k, paths)) = m.next_entry::<String, Vec<String>>()? {
                    let mut sha = [0u8; 32];
                    hex::decode_to_slice(&k, &mut sha)
                        .map_err(|_| serde::de::Error::custom(format!("{k:?} is not a sha256")))?;
                    out.extend(paths.into_iter().map(|p| (sha, p.into_boxed_str())));
                }
                Ok(ShaPaths(out, PathIndex::default()))
            }
        }
        d.deserialize_map(V)
    }
}

/// What a map's content hash says about one file: its `data_sha256` and
/// its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataSha {
    pub data_sha256: Sha,
    pub size: u64,
}

/// A SHA-256, written as 64 hex digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Sha(pub [u8; 32]);

impl Serialize for Sha {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(self.0))
    }
}

impl<'de> Deserialize<'de> for Sha {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let k = std::borrow::Cow::<'de, str>::deserialize(d)?;
        let mut sha = [0u8; 32];
        hex::decode_to_slice(&*k, &mut sha)
            .map_err(|_| serde::de::Error::custom(format!("{k:?} is not a sha256")))?;
        Ok(Sha(sha))
    }
}

/// The content hash of every file whose `data_sha256` was computed
/// (`maps index --verify`), by the file's sha256 (equal bytes have equal
/// content, so one entry per distinct file): what grouping the maps by
/// content needs, across merged parts, with the paths of
/// [`ShaPaths`]. 72 bytes per distinct file, plus the map's overhead.
/// Serialised as `{sha256: {data_sha256, size}}` with sorted keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DataShas(HashMap<Sha, DataSha>);

impl DataShas {
    fn insert(&mut self, sha_hex: &str, data_hex: &str, size: u64) {
        let (mut sha, mut data) = ([0u8; 32], [0u8; 32]);
        if hex::decode_to_slice(sha_hex, &mut sha).is_ok()
            && hex::decode_to_slice(data_hex, &mut data).is_ok()
        {
            self.0.insert(
                Sha(sha),
                DataSha {
                    data_sha256: Sha(data),
                    size,
                },
            );
        }
    }

    /// Adds the entries of `other`; a file (sha256) that both have with a
    /// different content hash or size is refused (the same bytes cannot
    /// give two).
    fn merge(&mut self, other: DataShas) -> Result<(), String> {
        for (k, v) in other.0 {
            match self.0.entry(k) {
                Entry::Occupied(o) if *o.get() != v => {
                    return Err(format!(
                        "data_sha256_by_sha256[{:?}]: the parts give different content hashes or sizes for the same file",
                        hex::encode(k.0)
                    ))
                }
                Entry::Occupied(_) => {}
                Entry::Vacant(e) => {
                    e.insert(v);
                }
            }
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for DataShas {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut v: Vec<(&Sha, &DataSha)> = self.0.iter().collect();
        v.sort_unstable_by_key(|e| e.0);
        let mut m = s.serialize_map(Some(v.len()))?;
        for (k, d) in v {
            m.serialize_entry(k, d)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for DataShas {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DataShas;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of sha256 to {data_sha256, size}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<DataShas, A::Error> {
                let mut out = HashMap::new();
                while let Some((k, v)) = m.next_entry::<Sha, DataSha>()? {
                    out.insert(k, v);
                }
                Ok(DataShas(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// Maps whose content (`data_sha256`) is the same, however their files
/// were stored: one group of [`MapsAggregate::content_duplicates`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentGroup {
    /// Their sizes summed (per path).
    pub bytes: u64,
    /// The smallest [`super::MAX_EXAMPLES`] paths (byte order).
    pub examples: super::Examples,
    /// Paths with this content.
    pub files: u64,
    /// What keeping only the smallest file would save: `bytes` less the
    /// smallest file's size.
    pub saveable_bytes: u64,
    /// Distinct files (sha256) among them: 1 when every path holds the
    /// same bytes (then the group is also one of `duplicates`).
    pub sha256s: u64,
}

/// The `maps index` aggregate (see the README for each field).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MapsAggregate {
    pub files: u64,
    pub ok: u64,
    pub failed: u64,
    /// File sizes.
    pub bytes: u64,
    /// Data sections as stored (compressed).
    pub compressed_bytes: u64,
    /// Data blocks uncompressed, per the size tables.
    pub decompressed_bytes: u64,
    /// Files per datafile version (`4`, `4crude`, `3`).
    pub datafile_versions: BTreeMap<String, u64>,
    /// Maps per map version kind (`ddnet06`, `teeworlds07`, `absent`).
    pub map_version_kinds: BTreeMap<String, u64>,
    /// Maps containing each DDNet special tile.
    pub special_tiles: BTreeMap<String, u64>,
    /// Entity tiles summed over maps: `game` and `front` layers.
    pub entities: BTreeMap<String, BTreeMap<String, u64>>,
    /// Layers summed over maps, per kind.
    pub layers: BTreeMap<String, u64>,
    /// Maps per UUID item type (DDNet's name, else the UUID).
    pub uuid_types: BTreeMap<String, u64>,
    /// Maps per external image name (mapres).
    pub external_images: BTreeMap<String, u64>,
    /// Maps per author (info item).
    pub authors: BTreeMap<String, u64>,
    pub game_layer: GameLayerSizes,
    /// Files per error kind (`stage.kind`).
    pub errors: ByKind,
    /// Warnings per kind (occurrences), with example paths.
    pub warnings: ByKind,
    /// Every sha256 under two or more paths (derived from `paths_by_sha256`).
    #[serde(default, skip_deserializing)]
    pub duplicates: BTreeMap<String, Vec<String>>,
    /// Every map name (file stem) with two or more different sha256: its
    /// sha256s and their paths (derived from `paths_by_sha256`).
    #[serde(default, skip_deserializing)]
    pub name_collisions: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// Every data_sha256 (the content hash of `--verify`) under two or
    /// more paths: the maps with the same content however they were
    /// stored (derived from `paths_by_sha256` and `data_sha256_by_sha256`;
    /// empty when no content hash was computed).
    #[serde(default, skip_deserializing)]
    pub content_duplicates: BTreeMap<String, ContentGroup>,
    /// Every map read: sha256 -> paths. What merging needs to find
    /// duplicates and collisions across parts.
    pub paths_by_sha256: ShaPaths,
    /// Every file whose content hash was computed: sha256 ->
    /// {data_sha256, size}. What merging needs to find content duplicates
    /// across parts.
    #[serde(default)]
    pub data_sha256_by_sha256: DataShas,
}

fn entity_pairs(e: &EntityCounts) -> [(&'static str, u64); 11] {
    [
        ("spawn", e.spawn),
        ("spawn_red", e.spawn_red),
        ("spawn_blue", e.spawn_blue),
        ("flag_red", e.flag_red),
        ("flag_blue", e.flag_blue),
        ("armor", e.armor),
        ("health", e.health),
        ("shotgun", e.shotgun),
        ("grenade", e.grenade),
        ("ninja", e.ninja),
        ("laser", e.laser),
    ]
}

/// The name a map is known by: its path's file stem.
fn stem(path: &str) -> &str {
    Path::new(path)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(path)
}

impl MapsAggregate {
    /// The content groups: each path of `paths_by_sha256` whose file has
    /// a content hash, grouped by it, groups of two or more paths kept.
    /// One lookup per path (linear in the paths), one group per distinct
    /// content.
    fn content_groups(&self) -> BTreeMap<String, ContentGroup> {
        if self.data_sha256_by_sha256.is_empty() {
            return BTreeMap::new();
        }
        #[derive(Default)]
        struct Acc {
            group: ContentGroup,
            smallest: Option<u64>,
            last_sha: Option<Sha>,
        }
        let mut groups: HashMap<Sha, Acc> = HashMap::new();
        // Sorted by sha256 (then path): one file's paths come together.
        for (sha, path) in self.paths_by_sha256.sorted() {
            let Some(d) = self.data_sha256_by_sha256.0.get(&Sha(*sha)) else {
                continue;
            };
            let acc = groups.entry(d.data_sha256).or_default();
            let g = &mut acc.group;
            acc.smallest = Some(acc.smallest.map_or(d.size, |m| m.min(d.size)));
            g.files = g.files.saturating_add(1);
            g.bytes = g.bytes.saturating_add(d.size);
            if acc.last_sha != Some(Sha(*sha)) {
                acc.last_sha = Some(Sha(*sha));
                g.sha256s = g.sha256s.saturating_add(1);
            }
            g.examples.insert(path);
        }
        groups
            .into_iter()
            .filter(|(_, a)| a.group.files >= 2)
            .map(|(k, mut a)| {
                a.group.saveable_bytes = a.group.bytes.saturating_sub(a.smallest.unwrap_or(0));
                (hex::encode(k.0), a.group)
            })
            .collect()
    }
}

impl Aggregate for MapsAggregate {
    const COMMAND: &'static str = super::MAPS_INDEX;
    type Record = MapRecord;

    fn add(&mut self, r: &MapRecord) {
        self.files = self.files.saturating_add(1);
        self.bytes = self.bytes.saturating_add(r.size);
        let failed = add_outcome(
            &mut self.errors,
            &mut self.warnings,
            &r.path,
            r.error.as_ref(),
            &r.warnings,
        );
        if failed {
            self.failed = self.failed.saturating_add(1);
        } else {
            self.ok = self.ok.saturating_add(1);
        }
        let b = &r.body;
        if let Some(sha) = &b.sha256 {
            self.paths_by_sha256.push(sha, &r.path);
            if let Some(data) = &b.data_sha256 {
                self.data_sha256_by_sha256.insert(sha, data, r.size);
            }
        }
        self.compressed_bytes = self
            .compressed_bytes
            .saturating_add(b.compressed_bytes.unwrap_or(0));
        self.decompressed_bytes = self
            .decompressed_bytes
            .saturating_add(b.decompressed_bytes.unwrap_or(0));
        if let Some(v) = b.datafile_version {
            bump(&mut self.datafile_versions, v, 1);
        }
        let Some(m) = &b.map else { return };
        bump(&mut self.map_version_kinds, m.version_kind, 1);
        if let Some(a) = m.info.as_ref().and_then(|i| i.author.as_deref()) {
            if !a.is_empty() {
                bump(&mut self.authors, a, 1);
            }
        }
        let uuids: BTreeSet<&str> = m
            .uuid_types
            .iter()
            .map(|u| u.name.unwrap_or(&u.uuid))
            .collect();
        for u in uuids {
            bump(&mut self.uuid_types, u, 1);
        }
        let images: BTreeSet<&str> = b.external_images.iter().map(String::as_str).collect();
        for i in images {
            bump(&mut self.external_images, i, 1);
        }
        if let Some(c) = &m.counts {
            for (k, n) in [
                ("tiles", c.layers_tiles),
                ("game", c.layers_game),
                ("front", c.layers_front),
                ("tele", c.layers_tele),
                ("speedup", c.layers_speedup),
                ("switch", c.layers_switch),
                ("tune", c.layers_tune),
                ("quads", c.layers_quads),
                ("sounds", c.layers_sounds),
                ("unknown", c.layers_unknown),
            ] {
                bump(&mut self.layers, k, n as u64);
            }
        }
        if let Some(s) = &m.stats {
            for t in &s.special_tiles {
                bump(&mut self.special_tiles, t, 1);
            }
            for (layer, e) in [("game", &s.game_entities), ("front", &s.front_entities)] {
                let into = self.entities.entry(layer.to_owned()).or_default();
                for (k, n) in entity_pairs(e) {
                    bump(into, k, n);
                }
            }
            if let (Some(w), Some(h)) = (s.game_width, s.game_height) {
                self.game_layer.add(w, h);
            }
        }
    }

    fn merge(&mut self, o: MapsAggregate) -> Result<(), String> {
        // A map both parts cover: the first of the larger part's paths
        // that the smaller part has (as scanning the larger part found).
        let ShaPaths(ours, index) = &mut self.paths_by_sha256;
        index.catch_up(ours);
        let theirs = &o.paths_by_sha256.0;
        let shared = if ours.len() <= theirs.len() {
            theirs
                .iter()
                .map(|p| &*p.1)
                .find(|p| index.find(ours, p).is_some())
        } else {
            theirs
                .iter()
                .filter_map(|p| index.find(ours, &p.1))
                .min()
                .map(|i| &*ours[i].1)
        };
        if let Some(p) = shared {
            return Err(format!("both cover the map {p}"));
        }
        super::sums!(
            self,
            o,
            "",
            files,
            ok,
            failed,
            bytes,
            compressed_bytes,
            decompressed_bytes
        );
        merge_counts(
            &mut self.datafile_versions,
            o.datafile_versions,
            "datafile_versions",
        )?;
        merge_counts(
            &mut self.map_version_kinds,
            o.map_version_kinds,
            "map_version_kinds",
        )?;
        merge_counts(&mut self.special_tiles, o.special_tiles, "special_tiles")?;
        for (k, v) in o.entities {
            let field = format!("entities[{k:?}]");
            merge_counts(self.entities.entry(k).or_default(), v, &field)?;
        }
        merge_counts(&mut self.layers, o.layers, "layers")?;
        merge_counts(&mut self.uuid_types, o.uuid_types, "uuid_types")?;
        merge_counts(
            &mut self.external_images,
            o.external_images,
            "external_images",
        )?;
        merge_counts(&mut self.authors, o.authors, "authors")?;
        self.game_layer.merge(o.game_layer)?;
        merge_kinds(&mut self.errors, o.errors, "errors")?;
        merge_kinds(&mut self.warnings, o.warnings, "warnings")?;
        self.data_sha256_by_sha256.merge(o.data_sha256_by_sha256)?;
        self.paths_by_sha256.0.extend(o.paths_by_sha256.0);
        Ok(())
    }

    fn finish(&mut self) {
        self.paths_by_sha256.0.sort_unstable();
        self.paths_by_sha256.0.dedup();
        self.paths_by_sha256.1 = PathIndex::default();
        let grouped = self.paths_by_sha256.grouped();
        let mut by_name: BTreeMap<&str, BTreeMap<&str, Vec<String>>> = BTreeMap::new();
        for (sha, paths) in &grouped {
            for p in paths {
                by_name
                    .entry(stem(p))
                    .or_default()
                    .entry(sha)
                    .or_default()
                    .push(p.clone());
            }
        }
        self.name_collisions = by_name
            .into_iter()
            .filter(|(_, shas)| shas.len() >= 2)
            .map(|(n, shas)| {
                let shas = shas.into_iter().map(|(s, p)| (s.to_owned(), p)).collect();
                (n.to_owned(), shas)
            })
            .collect();
        self.duplicates = grouped.into_iter().filter(|(_, p)| p.len() >= 2).collect();
        self.content_duplicates = self.content_groups();
    }

    fn file_counts(&self) -> (u64, u64, u64) {
        (self.files, self.ok, self.failed)
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn digest(&self) -> Vec<String> {
        let mut out = Vec::new();
        let distinct = self.paths_by_sha256.grouped().len();
        let dup_paths: usize = self.duplicates.values().map(Vec::len).sum();
        out.push(format!(
            "{} distinct sha256; duplicates: {} sha256 under {} paths; name collisions: {} names",
            distinct,
            self.duplicates.len(),
            dup_paths,
            self.name_collisions.len()
        ));
        if self.data_sha256_by_sha256.is_empty() {
            out.push("content duplicates: not computed (maps index --verify)".to_owned());
        } else {
            let paths: u64 = self.content_duplicates.values().map(|g| g.files).sum();
            let saveable: u64 = self
                .content_duplicates
                .values()
                .map(|g| g.saveable_bytes)
                .sum();
            out.push(format!(
                "content duplicates: {} data_sha256 under {} paths ({} bytes could be saved)",
                self.content_duplicates.len(),
                paths,
                saveable
            ));
        }
        if !self.authors.is_empty() {
            out.push(format!(
                "top authors: {}",
                list_top(&top(&self.authors, 5, |n| *n), "")
            ));
        }
        if !self.special_tiles.is_empty() {
            out.push(format!(
                "top special tiles: {}",
                list_top(&top(&self.special_tiles, 5, |n| *n), "")
            ));
        }
        if let Some((dup, paths)) = self.duplicates.iter().next() {
            out.push(format!(
                "e.g. duplicate {dup}: {}",
                one_line(&paths.join(" "))
            ));
        }
        if let Some((data, g)) = self.content_duplicates.iter().next() {
            let paths: Vec<&str> = g.examples.iter().collect();
            out.push(format!(
                "e.g. content duplicate {data}: {}",
                one_line(&paths.join(" "))
            ));
        }
        digest_kinds(&mut out, "error", &self.errors);
        digest_kinds(&mut out, "warning", &self.warnings);
        out
    }
}

#[cfg(test)]
mod scaling_tests {
    use super::*;

    /// A part covering `paths` (one map each).
    fn part<S: Into<String>>(paths: impl IntoIterator<Item = S>) -> MapsAggregate {
        let mut a = MapsAggregate::default();
        for (i, p) in paths.into_iter().enumerate() {
            a.files += 1;
            a.paths_by_sha256.push(&format!("{i:064x}"), &p.into());
        }
        a
    }

    /// Paths hashed to merge `n` parts of two maps one by one, as `merge`
    /// does, and then a part that covers a map again.
    fn merge_work(n: usize) -> u64 {
        let before = PATHS_HASHED.with(|c| c.get());
        let mut m = MapsAggregate::default();
        for i in 0..n {
            m.merge(part([format!("maps/{i}/a.map"), format!("maps/{i}/b.map")]))
                .unwrap();
        }
        assert_eq!(m.files, 2 * n as u64);
        let again = format!("maps/{}/b.map", n / 2);
        let err = m.merge(part([again.clone()])).unwrap_err();
        assert_eq!(err, format!("both cover the map {again}"));
        PATHS_HASHED.with(|c| c.get()) - before
    }

    /// Merging 2n parts costs at most 2.2 times the lookups of n: finding
    /// the maps two parts share scanned every path merged so far for each
    /// part (4 times).
    #[test]
    fn merging_maps_is_linear_in_the_paths() {
        let (small, large) = (merge_work(2000), merge_work(4000));
        assert!(
            large * 10 <= small * 22,
            "{small} paths hashed for 2000 parts, {large} for 4000"
        );
    }

    /// The map named is the first of the larger part's (or, at equal
    /// sizes, the part merged in) that the other covers, as before the
    /// index.
    #[test]
    fn a_map_both_parts_cover_is_named_in_the_larger_parts_order() {
        let large = || part(["z.map", "c.map", "b.map", "a.map"]);
        let small = || part(["a.map", "c.map"]);
        let err = |mut m: MapsAggregate, o: MapsAggregate| m.merge(o).unwrap_err();
        assert_eq!(err(large(), small()), "both cover the map c.map");
        assert_eq!(err(small(), large()), "both cover the map c.map");
        assert_eq!(
            err(part(["a.map", "c.map"]), part(["c.map", "a.map"])),
            "both cover the map c.map"
        );
        // Parts merged before count, through the index built then.
        let mut m = part(["x.map"]);
        m.merge(part(["y.map"])).unwrap();
        m.merge(part(["w.map", "v.map"])).unwrap();
        assert_eq!(err(m, part(["v.map", "y.map"])), "both cover the map y.map");
    }

    /// A path whose hash another path had first is found by a scan.
    #[test]
    fn a_hash_collision_is_resolved() {
        let mut m = part(["a.map", "b.map", "b.map"]);
        let ShaPaths(pairs, index) = &mut m.paths_by_sha256;
        index.catch_up(pairs);
        assert_eq!(index.find(pairs, "b.map"), Some(1));
        let h = index.keys.hash_one("b.map");
        index.first.insert(h, 0);
        assert_eq!(index.find(pairs, "b.map"), Some(1));
        assert_eq!(index.find(pairs, "c.map"), None);
    }
}
