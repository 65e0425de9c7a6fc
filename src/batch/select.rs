//! Choosing the inputs of a run: PATHs and `--files-from` lists, walked and
//! listed, one shard kept ([`select`]).

use super::run::Selection;
use super::summary::shard::{read_path_list, read_path_list_file, MAX_LISTED_PATHS};
use super::summary::{InputPart, Shard, Walk};
use super::{collect_inputs_opts, Input, WalkOptions};
use std::io;
use std::path::{Path, PathBuf};

/// Which files of a collection a run processes, beyond its PATHs.
#[derive(Clone, Debug, Default)]
pub struct SelectOptions {
    /// Lists of more paths, one per line (`-`: stdin).
    pub files_from: Vec<PathBuf>,
    /// The lists are separated by NUL bytes instead.
    pub null: bool,
    /// Only the files of this shard.
    pub shard: Option<Shard>,
    /// How directory PATHs are walked; its limits are the archive limits
    /// of the listing.
    pub walk: WalkOptions,
}

impl WalkOptions {
    /// What the summary records about the walk (see [`Walk`]).
    pub fn spec(&self) -> Walk {
        Walk {
            globs: self.globs.clone(),
            max_depth: self.max_depth,
            no_follow: !self.follow_links,
            hidden: self.hidden,
        }
    }
}

/// The inputs of a run over `paths` (files and directory trees searched
/// for `*.ext`) and the `--files-from` lists, in shard; `embedded` when
/// there are neither. Says through `note` what a user would otherwise only
/// find in the records or not at all: a PATH of `paths` that cannot be
/// read (`teebatch: PATH: No such file or directory (os error 2)`), and
/// that no `*.ext` file was found.
pub fn select(
    paths: &[PathBuf],
    ext: &str,
    embedded: impl FnOnce() -> Vec<Input>,
    opts: &SelectOptions,
    note: &mut dyn FnMut(&str),
) -> io::Result<Selection> {
    let mut all = paths.to_vec();
    let stdin = Path::new(super::archive::STDIN);
    if paths.iter().any(|p| p == stdin) && opts.files_from.iter().any(|f| f == stdin) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the PATH - (a tar stream on stdin) and --files-from - both read stdin",
        ));
    }
    // The entries of all lists together are capped (MAX_LISTED_PATHS).
    let mut entries_left = MAX_LISTED_PATHS;
    for f in &opts.files_from {
        let listed = if f.as_os_str() == "-" {
            read_path_list(io::stdin().lock(), opts.null, entries_left)
        } else {
            read_path_list_file(f, opts.null, entries_left)
        };
        if let Ok(l) = &listed {
            entries_left = entries_left.saturating_sub(l.len());
        }
        all.extend(
            listed.map_err(|e| {
                io::Error::new(e.kind(), format!("--files-from {}: {e}", f.display()))
            })?,
        );
    }
    let is_embedded = all.is_empty() && opts.files_from.is_empty();
    let walk = &opts.walk;
    let mut inputs = if is_embedded {
        walk.check()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        embedded()
    } else {
        collect_inputs_opts(&all, ext, walk)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?
    };
    let named: std::collections::HashSet<&Path> = paths.iter().map(PathBuf::as_path).collect();
    for i in &inputs {
        if let Input::Unlistable { path, message } = i {
            if named.contains(path.as_path()) {
                note(&format!("teebatch: {}: {message}", path.display()));
            }
        }
    }
    let nothing_found = inputs.is_empty();
    if nothing_found {
        let mut searched: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        searched.extend(
            opts.files_from
                .iter()
                .map(|f| format!("--files-from {}", f.display())),
        );
        note(&format!(
            "teebatch: no *.{ext} files found in {}",
            searched.join(", ")
        ));
    }
    if let Some(s) = &opts.shard {
        inputs.retain(|i| s.contains(i));
        super::archive::mark_selected(&inputs);
    }
    Ok(Selection {
        inputs,
        part: InputPart::new(paths, &opts.files_from, opts.shard).with_walk(walk.spec()),
        embedded: is_embedded,
        nothing_found,
    })
}
