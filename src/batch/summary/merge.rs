//! `teebatch merge`: the summary of one run over the inputs of several
//! summary documents of the same command.

use super::{from_value, read_header, Aggregate, DemosAggregate, LoadError, MapsAggregate};
use super::{Summary, MAPS_INDEX};
use std::io;
use std::path::PathBuf;

/// A merged summary, ready to be written.
#[derive(Debug)]
pub struct Merged {
    /// `maps index` or `demos index`.
    pub command: &'static str,
    /// The document: pretty JSON and a newline.
    pub text: Vec<u8>,
    /// Files, ok, failed of the merged aggregate.
    pub files: (u64, u64, u64),
    /// The merged aggregate's digest lines.
    pub digest: Vec<String>,
}

/// Why summaries could not be merged.
#[derive(Debug)]
pub enum MergeError {
    /// A file that is no summary ([`LoadError::BadFile`]) or summaries
    /// that cannot be merged ([`LoadError::Incompatible`]).
    Load(LoadError),
    Io(io::Error),
}

/// Merges the summary documents at `paths` (all of the same command) into
/// the summary of one run over all their inputs; its `run` lists each
/// file's `run`.
pub fn merge_files(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    let mut docs = Vec::with_capacity(paths.len());
    for p in paths {
        docs.push(read_header(p).map_err(MergeError::Load)?);
    }
    let command = docs[0].0.clone();
    for (p, (c, _)) in paths.iter().zip(&docs) {
        if *c != command {
            return Err(MergeError::Load(LoadError::Incompatible(format!(
                "{}: a \"{c}\" summary cannot be merged with \"{command}\" summaries ({})",
                p.display(),
                paths[0].display()
            ))));
        }
    }
    let values = docs.into_iter().map(|(_, v)| v).collect();
    if command == MAPS_INDEX {
        merge_typed::<MapsAggregate>(paths, values)
    } else {
        merge_typed::<DemosAggregate>(paths, values)
    }
}

fn merge_typed<A: Aggregate>(
    paths: &[PathBuf],
    values: Vec<serde_json::Value>,
) -> Result<Merged, MergeError> {
    let mut merged: Option<Summary<A>> = None;
    let mut runs = Vec::new();
    for (p, v) in paths.iter().zip(values) {
        let doc: Summary<A> = from_value(p, v).map_err(MergeError::Load)?;
        runs.push(serde_json::json!({ "file": p.to_string_lossy(), "run": doc.run }));
        match &mut merged {
            None => merged = Some(doc),
            Some(m) => m.merge(doc).map_err(|e| {
                MergeError::Load(LoadError::Incompatible(format!(
                    "{}: cannot be merged: {e}",
                    p.display()
                )))
            })?,
        }
    }
    let mut merged = merged.expect("at least one summary");
    merged.aggregate.finish();
    merged.run = serde_json::json!({
        "teebatch_version": env!("CARGO_PKG_VERSION"),
        "merged": runs,
    });
    let mut text =
        serde_json::to_vec_pretty(&merged).map_err(|e| MergeError::Io(io::Error::other(e)))?;
    text.push(b'\n');
    Ok(Merged {
        command: A::COMMAND,
        text,
        files: merged.aggregate.file_counts(),
        digest: merged.aggregate.digest(),
    })
}
