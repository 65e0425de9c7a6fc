//! Where textures come from ([`Textures`]: `--mapres`, [`MAPRES_ENV`] or
//! an installed DDNet, [`ddnet_data_dirs`]) and the cells resampled from
//! them, shared by all workers with a cache.

use super::entities;
use super::raster::{self, Cells, Rgba};
use crate::map::tiles::PhysicsKind;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Environment variable naming the mapres folder (as `--mapres`).
pub const MAPRES_ENV: &str = "TEEBATCH_MAPRES";

/// The `data` folders of an installed DDNet that hold its textures
/// (`mapres/` and `editor/entities/DDNet.png`), in the order they are
/// tried when neither `--mapres` nor [`MAPRES_ENV`] names a folder: the
/// system folders DDNet's own storage looks in on Linux and the BSDs
/// (`/usr/share/ddnet/data`, `/usr/share/games/ddnet/data`,
/// `/usr/local/share/...`, `/usr/pkg/share/...`, `/opt/ddnet/data`), the
/// Flatpak install, Steam's `DDraceNetwork/ddnet/data` (Linux, macOS and
/// Windows), the macOS application bundle and the Windows installer's
/// folder. The user folder (`~/.local/share/ddnet`, `%APPDATA%\DDNet`)
/// holds settings, maps and demos, not the textures: it is not searched.
pub fn ddnet_data_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let steam = |root: PathBuf| root.join("steamapps/common/DDraceNetwork/ddnet/data");
    if cfg!(target_os = "macos") {
        dirs.push("/Applications/DDNet.app/Contents/Resources/data".into());
        if let Some(h) = &home {
            dirs.push(h.join("Applications/DDNet.app/Contents/Resources/data"));
            dirs.push(steam(h.join("Library/Application Support/Steam")));
        }
    } else if cfg!(windows) {
        for var in ["ProgramFiles(x86)", "ProgramFiles"] {
            if let Some(pf) = std::env::var_os(var).map(PathBuf::from) {
                dirs.push(steam(pf.join("Steam")));
                dirs.push(pf.join("DDNet").join("data"));
            }
        }
    } else {
        for prefix in ["/usr", "/usr/local", "/usr/pkg"] {
            dirs.push(format!("{prefix}/share/ddnet/data").into());
            dirs.push(format!("{prefix}/share/games/ddnet/data").into());
        }
        dirs.push("/opt/ddnet/data".into());
        dirs.push(
            "/var/lib/flatpak/app/tw.ddnet.DDNet/current/active/files/share/ddnet/data".into(),
        );
        if let Some(h) = &home {
            dirs.push(h.join(
                ".local/share/flatpak/app/tw.ddnet.DDNet/current/active/files/share/ddnet/data",
            ));
            dirs.push(steam(h.join(".local/share/Steam")));
            dirs.push(steam(h.join(".steam/steam")));
        }
    }
    dirs
}

/// Where the textures of a run came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TexturesFrom {
    /// `--mapres DIR`.
    Flag,
    /// [`MAPRES_ENV`].
    Env,
    /// An installed DDNet's data folder (one of [`ddnet_data_dirs`]).
    Installed,
    /// No folder: the flat palette.
    Nowhere,
}

/// The layer kind (`None`: any) and size of a cell set.
type CellsKey = (Option<PhysicsKind>, u32);

/// The cells of one external tileset at one size, filled once.
type TilesetSlot = Arc<OnceLock<Arc<Cells>>>;

/// Where textures come from, and the cells resampled so far (shared by all
/// workers; each atlas is resampled once per cell size).
pub struct Textures {
    /// The folder found (holding `entities/DDNet.png` and/or `mapres/`).
    pub dir: Option<PathBuf>,
    /// How `dir` was found.
    pub from: TexturesFrom,
    /// The entities atlas; `None`: the flat palette.
    atlas: Option<Rgba>,
    cache: Mutex<HashMap<CellsKey, Arc<Cells>>>,
    /// External images by name (`None`: not found or unreadable).
    external: Mutex<HashMap<String, Option<Arc<Rgba>>>>,
    /// External tilesets' cells by image name and cell size: the lock is
    /// held only to find a key's slot; the slot is filled once and read
    /// without a lock after.
    tilesets: Mutex<HashMap<(String, u32), TilesetSlot>>,
    resamples: AtomicU64,
    tileset_resamples: AtomicU64,
}

impl Textures {
    /// Textures from `dir` (`--mapres`), else [`MAPRES_ENV`], else the
    /// first of [`ddnet_data_dirs`] that holds DDNet's entities atlas or
    /// `mapres/`. The entities atlas is `entities/DDNet.png` or (a DDNet
    /// `data` folder) `editor/entities/DDNet.png`. A named folder that does
    /// not exist or an unreadable atlas is an error; no folder, or one
    /// without an atlas, gives the flat palette.
    pub fn locate(dir: Option<&Path>) -> Result<Textures, String> {
        let env = std::env::var_os(MAPRES_ENV).map(PathBuf::from);
        Textures::locate_in(dir, env.as_deref(), &ddnet_data_dirs())
    }

    /// [`Textures::locate`] with `env` as the value of [`MAPRES_ENV`] and
    /// `installed` as the folders of an installed DDNet.
    pub fn locate_in(
        dir: Option<&Path>,
        env: Option<&Path>,
        installed: &[PathBuf],
    ) -> Result<Textures, String> {
        let (named, from) = match (dir, env) {
            (Some(d), _) => (Some(d.to_path_buf()), TexturesFrom::Flag),
            (None, e) => (e.map(Path::to_path_buf), TexturesFrom::Env),
        };
        let (dir, from) = match named {
            Some(d) if d.is_dir() => (Some(d), from),
            Some(d) => return Err(format!("{}: mapres folder not found", d.display())),
            None => match installed.iter().find(|d| {
                d.join("editor/entities/DDNet.png").is_file() || d.join("mapres").is_dir()
            }) {
                Some(d) => (Some(d.clone()), TexturesFrom::Installed),
                None => (None, TexturesFrom::Nowhere),
            },
        };
        let mut atlas = None;
        if let Some(d) = &dir {
            for rel in ["entities/DDNet.png", "editor/entities/DDNet.png"] {
                let p = d.join(rel);
                if p.is_file() {
                    let bytes = std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))?;
                    atlas = Some(
                        raster::decode_png(&bytes).map_err(|e| format!("{}: {e}", p.display()))?,
                    );
                    break;
                }
            }
        }
        let mut t = Textures::new(dir, atlas);
        t.from = from;
        Ok(t)
    }

    /// The flat palette only.
    pub fn palette() -> Textures {
        Textures::new(None, None)
    }

    fn new(dir: Option<PathBuf>, atlas: Option<Rgba>) -> Textures {
        Textures {
            dir,
            from: TexturesFrom::Nowhere,
            atlas,
            cache: Mutex::new(HashMap::new()),
            external: Mutex::new(HashMap::new()),
            tilesets: Mutex::new(HashMap::new()),
            resamples: AtomicU64::new(0),
            tileset_resamples: AtomicU64::new(0),
        }
    }

    /// External image `name` (`mapres/<name>.png` in the folder), loaded
    /// once per run; `None` when missing, unreadable, or a name that is not
    /// a plain file name.
    pub fn external(&self, name: &str) -> Option<Arc<Rgba>> {
        let dir = self.dir.as_ref()?;
        let plain =
            !name.is_empty() && !name.contains(['/', '\\', '\0']) && name != "." && name != "..";
        if !plain {
            return None;
        }
        let mut cache = self.external.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry(name.to_owned())
            .or_insert_with(|| {
                let bytes = std::fs::read(dir.join("mapres").join(format!("{name}.png"))).ok()?;
                raster::decode_png(&bytes).ok().map(Arc::new)
            })
            .clone()
    }

    /// The cells of external image `name` (`img`, from
    /// [`Textures::external`]) at `n × n` pixels, resampled once per run
    /// and size whatever the number of maps and workers: memory is bounded
    /// by the distinct external images × cell sizes used.
    pub fn tileset_cells(&self, name: &str, img: &Rgba, n: u32) -> Arc<Cells> {
        let slot = {
            let mut map = self.tilesets.lock().unwrap_or_else(|e| e.into_inner());
            map.entry((name.to_owned(), n)).or_default().clone()
        };
        slot.get_or_init(|| {
            self.tileset_resamples.fetch_add(1, Ordering::Relaxed);
            Arc::new(Cells::resample(img, n))
        })
        .clone()
    }

    /// How many times an external tileset was resampled so far.
    pub fn tileset_resamples(&self) -> u64 {
        self.tileset_resamples.load(Ordering::Relaxed)
    }

    /// What a person should know about where the textures came from (the
    /// command line prints these on stderr unless `--quiet`): a folder
    /// found in an installed DDNet, no entities texture at all.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let (TexturesFrom::Installed, Some(d)) = (&self.from, &self.dir) {
            notes.push(format!(
                "textures from DDNet's data folder {} (--mapres DIR or ${MAPRES_ENV} to choose another)",
                d.display(),
            ));
        }
        if !self.has_atlas() {
            notes.push(format!(
                "no entities texture found (--mapres DIR, ${MAPRES_ENV}, or an installed DDNet's data folder): drawing with the flat palette (its legend is drawn in each picture)",
            ));
        }
        notes
    }

    /// Whether the entities atlas was found (else the flat palette is used).
    pub fn has_atlas(&self) -> bool {
        self.atlas.is_some()
    }

    /// How many cell sets were made (resampled or filled) so far.
    pub fn resamples(&self) -> u64 {
        self.resamples.load(Ordering::Relaxed)
    }

    /// The entities cells of layer `kind` at `n × n` pixels: the atlas's
    /// cells, where the atlas has an empty cell for a tile the layer uses
    /// (DDNet's atlas has no tele, speedup, switch and tune cells) the
    /// palette colour, and a speedup drawn with an arrow pointing right
    /// (turned by the tile's angle when drawn).
    pub(crate) fn entity_cells(&self, kind: PhysicsKind, n: u32) -> Arc<Cells> {
        let kind = match kind {
            PhysicsKind::Tiles | PhysicsKind::Front => PhysicsKind::Game,
            k => k,
        };
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .entry((Some(kind), n))
            .or_insert_with(|| {
                self.resamples.fetch_add(1, Ordering::Relaxed);
                let palette = entities::palette(kind);
                let mut cells = match &self.atlas {
                    Some(a) => {
                        let mut c = Cells::resample(a, n);
                        for (id, colour) in palette.iter().enumerate() {
                            let known = colour[..3] != entities::OTHER && colour[3] != 0;
                            if known && c.cell(id as u8).chunks_exact(4).all(|p| p[3] == 0) {
                                c.fill(id as u8, *colour);
                            }
                        }
                        c
                    }
                    None => Cells::flat(&palette, n),
                };
                if kind == PhysicsKind::Speedup {
                    cells.arrow(crate::map::names::TILE_BOOST, entities::ARROW);
                }
                Arc::new(cells)
            })
            .clone()
    }
}
