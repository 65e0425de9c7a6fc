//! `teebatch merge`: the summary of one run over the inputs of several
//! summary documents of the same command.

use super::{from_bytes, read_header, Aggregate, DemosAggregate, LoadError, MapsAggregate};
use super::{InputsMerger, JsonText, Summary, MAPS_INDEX};
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
    /// What the merged summary lacks: each set of inputs of which some
    /// shards were merged but not all, with the missing ones.
    pub missing_shards: Vec<super::MissingShards>,
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
/// file's `run`. One file is read at a time and parsed straight into the
/// typed summary (no JSON tree of the document): memory is the merged
/// summary, one file's bytes and what that file's summary holds, and each
/// file's `run` as its compact text.
pub fn merge_files(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    let (command, first) = read_header(&paths[0]).map_err(MergeError::Load)?;
    if command == MAPS_INDEX {
        merge_typed::<MapsAggregate>(paths, &command, first)
    } else {
        merge_typed::<DemosAggregate>(paths, &command, first)
    }
}

fn merge_typed<A: Aggregate>(
    paths: &[PathBuf],
    command: &str,
    first: Vec<u8>,
) -> Result<Merged, MergeError> {
    let mut merged: Option<Summary<A>> = None;
    let mut inputs = InputsMerger::default();
    let mut runs = Vec::new();
    let mut bytes = Some(first);
    for p in paths {
        let b = match bytes.take() {
            Some(b) => b,
            None => {
                let (c, b) = read_header(p).map_err(MergeError::Load)?;
                if c != command {
                    return Err(MergeError::Load(LoadError::Incompatible(format!(
                        "{}: a \"{c}\" summary cannot be merged with \"{command}\" summaries ({})",
                        p.display(),
                        paths[0].display()
                    ))));
                }
                b
            }
        };
        let (mut doc, run) = from_bytes::<A>(p, &b).map_err(MergeError::Load)?;
        drop(b);
        runs.push((p.to_string_lossy().into_owned(), run));
        let refused = |e| {
            MergeError::Load(LoadError::Incompatible(format!(
                "{}: cannot be merged: {e}",
                p.display()
            )))
        };
        // As Summary::merge, with the inputs merged by one InputsMerger
        // (linear in all parts) and the derived fields computed once at
        // the end.
        match &mut merged {
            None => {
                inputs.add_unchecked(doc.inputs.clone());
                merged = Some(doc);
            }
            Some(m) => {
                super::same_options(&m.options, &doc.options).map_err(refused)?;
                inputs
                    .add(std::mem::take(&mut doc.inputs))
                    .map_err(refused)?;
                m.aggregate.merge(doc.aggregate).map_err(refused)?;
            }
        }
    }
    let mut merged = merged.expect("at least one summary");
    if paths.len() > 1 {
        merged.inputs = inputs.finish();
    }
    merged.aggregate.finish();
    merged.run = serde_json::Value::Null;
    let mut text =
        serde_json::to_vec_pretty(&merged).map_err(|e| MergeError::Io(io::Error::other(e)))?;
    // `run` is the last field: its `null` is replaced by
    // `{"merged": [{"file": F, "run": RUN}, ...], "teebatch_version": V}`
    // (keys sorted, as a JSON value writes them), each RUN as read.
    const NULL_RUN: &[u8] = b"\"run\": null\n}";
    if !text.ends_with(NULL_RUN) {
        return Err(MergeError::Io(io::Error::other(
            "merge: the summary does not end with its run",
        )));
    }
    text.truncate(text.len() - b"null\n}".len());
    let mut run = Vec::new();
    let json = |out: &mut Vec<u8>, s: &str| serde_json::to_writer(out, s).map_err(io::Error::other);
    run.extend_from_slice(b"{\"merged\":[");
    for (i, (file, r)) in runs.iter().enumerate() {
        run.extend_from_slice(if i == 0 {
            b"{\"file\":"
        } else {
            b",{\"file\":"
        });
        json(&mut run, file).map_err(MergeError::Io)?;
        run.extend_from_slice(b",\"run\":");
        run.extend_from_slice(r.as_bytes());
        run.push(b'}');
    }
    run.extend_from_slice(b"],\"teebatch_version\":");
    json(&mut run, env!("CARGO_PKG_VERSION")).map_err(MergeError::Io)?;
    run.push(b'}');
    drop(runs);
    JsonText::from_canonical(run).write_pretty(&mut text, 1);
    text.extend_from_slice(b"\n}\n");
    Ok(Merged {
        command: A::COMMAND,
        text,
        files: merged.aggregate.file_counts(),
        digest: merged.aggregate.digest(),
        missing_shards: merged.inputs.missing_shards(),
    })
}
