//! The driver of a batch: [`run_ordered`] hands the inputs to workers and
//! their results to a sink in input order.

use super::Input;
use rayon::iter::{ParallelBridge, ParallelIterator};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// Runs `process` over `inputs` on `jobs` threads (capped by
/// [`crate::limits::Limits::cap_jobs`]) and feeds the results to
/// `sink` in input order. Returns every worker state (merge their statistics).
///
/// `process(state, index, input)` is called once per input. `sink` may stop
/// the batch early by returning `ControlFlow::Break` (e.g. stdout closed).
/// With one job (after the cap) everything runs on the calling thread, one
/// input after the other (see `run_in_order`).
pub fn run_ordered<S, R, I, P, K>(
    inputs: &[Input],
    jobs: usize,
    init: I,
    process: P,
    mut sink: K,
) -> Vec<S>
where
    S: Send,
    R: Send,
    I: Fn() -> S + Sync + Send,
    P: Fn(&mut S, usize, &Input) -> R + Sync + Send,
    K: FnMut(usize, R) -> ControlFlow<()>,
{
    let jobs = crate::limits::Limits::cap_jobs(Some(jobs.max(1)), inputs.len());
    if jobs == 1 {
        return run_in_order(inputs, init, process, sink);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("teebatch-worker-{i}"))
        .build()
        .expect("thread pool");
    let cancel = AtomicBool::new(false);
    let (tx, rx) = mpsc::sync_channel::<(usize, R)>(jobs * 4);
    let (cancel, process, init, pool) = (&cancel, &process, &init, &pool);
    std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            pool.install(|| {
                inputs
                    .iter()
                    .enumerate()
                    .par_bridge()
                    .fold(
                        || (init(), tx.clone()),
                        move |(mut state, tx), (i, input)| {
                            if !cancel.load(Ordering::Relaxed) {
                                let r = process(&mut state, i, input);
                                if tx.send((i, r)).is_err() {
                                    cancel.store(true, Ordering::Relaxed);
                                }
                            }
                            (state, tx)
                        },
                    )
                    .map(|(state, _tx)| state)
                    .collect::<Vec<S>>()
            })
            // `tx` is dropped here, which ends the receiving loop below.
        });
        let mut pending: BTreeMap<usize, R> = BTreeMap::new();
        let mut next = 0;
        let mut stopped = false;
        for (i, r) in rx.iter() {
            if stopped {
                continue;
            }
            pending.insert(i, r);
            while let Some(r) = pending.remove(&next) {
                if sink(next, r).is_break() {
                    stopped = true;
                    cancel.store(true, Ordering::Relaxed);
                    break;
                }
                next += 1;
            }
        }
        worker.join().expect("worker thread panicked")
    })
}

/// [`run_ordered`] with one worker: the calling thread processes the inputs
/// in order and hands each result to `sink` as soon as it is made. No thread,
/// pool or channel is created (with `--jobs 1` they would only add thread
/// start-up, a second malloc arena and a hand-over per input). `process`
/// runs on the calling thread, outside any rayon pool.
fn run_in_order<S, R, I, P, K>(inputs: &[Input], init: I, process: P, mut sink: K) -> Vec<S>
where
    I: Fn() -> S,
    P: Fn(&mut S, usize, &Input) -> R,
    K: FnMut(usize, R) -> ControlFlow<()>,
{
    let mut state = init();
    for (i, input) in inputs.iter().enumerate() {
        let r = process(&mut state, i, input);
        if sink(i, r).is_break() {
            break;
        }
    }
    vec![state]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::atomic::AtomicUsize;

    fn inputs(n: usize) -> Vec<Input> {
        (0..n)
            .map(|i| Input::Unlistable {
                path: PathBuf::from(format!("in{i:02}")),
                message: String::new(),
            })
            .collect()
    }

    /// Every input reaches the sink once, in order, for any number of jobs;
    /// a sink that breaks stops the batch (later inputs are not passed on).
    #[test]
    fn results_reach_the_sink_in_input_order() {
        let inputs = inputs(23);
        for jobs in [1, 2, 5] {
            let seen_by_process = AtomicUsize::new(0);
            let mut sunk = Vec::new();
            let states = run_ordered(
                &inputs,
                jobs,
                || 0usize,
                |count, i, input| {
                    *count += 1;
                    seen_by_process.fetch_add(1, Ordering::Relaxed);
                    (i, input.display_path())
                },
                |i, r| {
                    assert_eq!(i, r.0);
                    sunk.push(r.1);
                    ControlFlow::Continue(())
                },
            );
            let expected: Vec<String> = (0..23).map(|i| format!("in{i:02}")).collect();
            assert_eq!(sunk, expected, "jobs {jobs}");
            assert_eq!(states.iter().sum::<usize>(), 23, "jobs {jobs}");
            assert_eq!(seen_by_process.load(Ordering::Relaxed), 23);

            let mut sunk = Vec::new();
            run_ordered(
                &inputs,
                jobs,
                || (),
                |_, i, _| i,
                |i, r| {
                    assert_eq!(i, r);
                    sunk.push(r);
                    if i == 6 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            );
            assert_eq!(sunk, (0..=6).collect::<Vec<_>>(), "jobs {jobs}");
        }
    }

    /// With one job the inputs are processed on the calling thread, by one
    /// worker state: no thread is started.
    #[test]
    fn one_job_runs_on_the_calling_thread() {
        let inputs = inputs(4);
        let caller = std::thread::current().id();
        let inits = AtomicUsize::new(0);
        let states = run_ordered(
            &inputs,
            1,
            || {
                inits.fetch_add(1, Ordering::Relaxed);
                Vec::new()
            },
            |threads: &mut Vec<std::thread::ThreadId>, _, _| {
                threads.push(std::thread::current().id());
            },
            |_, ()| ControlFlow::Continue(()),
        );
        assert_eq!(inits.load(Ordering::Relaxed), 1);
        assert_eq!(states, vec![vec![caller; 4]]);
    }
}
