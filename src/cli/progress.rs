//! The progress bar of a batch on stderr.
//!
//! Shown when stderr is a terminal, or with `--progress` (on a
//! non-terminal, such as a log file, as one plain line about once a
//! second); never with `--quiet`. Never on stdout, where the records go.
//! One line: elapsed time, bar, bytes done and total and the rate (decimal
//! units: MB = 10^6 bytes, as in the summary), the ETA, files done and the
//! path of the last file finished. Position and ETA are in bytes, so a few
//! large files do not throw the estimate; indicatif smooths the rate
//! (double exponential smoothing over about the last 15 s).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const TEMPLATE: &str =
    "{spinner} [{elapsed_precise}] [{bar:24}] {decimal_bytes}/{decimal_total_bytes} \
     {decimal_bytes_per_sec} ETA {eta} {wide_msg}";

/// The progress of one batch.
pub struct Progress {
    bar: ProgressBar,
    files: usize,
    done: usize,
    /// `--quiet`: the run's warning notes are left out.
    quiet: bool,
}

impl Progress {
    /// A bar over `total_bytes` and `files` inputs: on the terminal
    /// (`stderr_is_terminal`), as plain lines (`forced` on a
    /// non-terminal), or hidden (`quiet`, or neither). Where the records
    /// go to stdout and stdout is a terminal too, the bar is hidden unless
    /// `forced`: records printed there would land on the bar's line, and
    /// the records scrolling by show the progress.
    pub fn new(
        quiet: bool,
        forced: bool,
        total_bytes: u64,
        files: usize,
        records_to_stdout: bool,
    ) -> Self {
        let terminal = io::stderr().is_terminal();
        let records_on_terminal = records_to_stdout && io::stdout().is_terminal();
        let target = match Shown::of(quiet, forced, terminal, records_on_terminal) {
            Shown::Hidden => ProgressDrawTarget::hidden(),
            Shown::Terminal => ProgressDrawTarget::stderr_with_hz(10),
            Shown::Lines => ProgressDrawTarget::term_like_with_hz(Box::new(LineTerm::default()), 1),
        };
        let bar = ProgressBar::with_draw_target(Some(total_bytes), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template(TEMPLATE)
                .expect("valid template")
                .progress_chars("=> "),
        );
        let p = Progress {
            bar,
            files,
            done: 0,
            quiet,
        };
        p.bar.set_message(p.message(""));
        // Drawn from here on, with the style and message in place.
        p.bar.set_draw_target(target);
        if forced && !quiet && !terminal {
            // A line about once a second in a log, also while one large
            // file is being processed.
            p.bar.enable_steady_tick(Duration::from_secs(1));
        }
        p
    }

    /// Whether anything is drawn (worth formatting a path for).
    pub fn is_shown(&self) -> bool {
        !self.bar.is_hidden()
    }

    fn message(&self, path: &str) -> String {
        format!("{}/{} files {path}", self.done, self.files)
    }

    /// One more file finished: `bytes` of input, named `path` (called in
    /// input order).
    pub fn file_done(&mut self, bytes: u64, path: impl FnOnce() -> String) {
        self.done += 1;
        if self.is_shown() {
            self.bar.inc(bytes);
            self.bar.set_message(self.message(&path()));
        }
    }

    /// Runs `f` (which writes to stderr) with the bar cleared.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Clears the bar: what is printed next (the summary) comes after the
    /// records, on a clean line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The one observer of the command line's runs: the bar follows the run,
/// and its notes are printed on stderr above the bar as `teebatch:
/// MESSAGE` (its warnings not with `--quiet`).
impl teebatch::batch::run::Observer for Progress {
    fn file_done(&mut self, bytes: u64, path: &dyn Fn() -> String) {
        Progress::file_done(self, bytes, path);
    }

    fn note(&mut self, message: &str, warning: bool) {
        if !(warning && self.quiet) {
            self.suspend(|| super::note!("teebatch: {message}"));
        }
    }
}

/// How the bar is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shown {
    Hidden,
    /// Redrawn in place on the terminal stderr is.
    Terminal,
    /// As plain lines ([`LineTerm`]).
    Lines,
}

impl Shown {
    /// `--quiet` hides the bar; a terminal stderr shows it, unless the
    /// records are printed on that terminal too (`records_on_terminal`);
    /// `--progress` (`forced`) shows it in any case but `--quiet`.
    fn of(quiet: bool, forced: bool, stderr_terminal: bool, records_on_terminal: bool) -> Shown {
        if quiet || !(forced || stderr_terminal && !records_on_terminal) {
            Shown::Hidden
        } else if stderr_terminal {
            Shown::Terminal
        } else {
            Shown::Lines
        }
    }
}

/// A draw target for a stderr that is not a terminal: each redraw becomes
/// one plain line (no cursor movement, no clearing).
/// Lines come at most once a second (the first at once).
#[derive(Debug, Default)]
struct LineTerm {
    /// The redraw being written, and when the last line was printed.
    state: Mutex<(String, Option<Instant>)>,
}

impl TermLike for LineTerm {
    fn width(&self) -> u16 {
        160
    }
    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> io::Result<()> {
        self.write_str(s)?;
        self.flush()
    }
    fn write_str(&self, s: &str) -> io::Result<()> {
        if let Ok(mut st) = self.state.lock() {
            st.0.push_str(s);
        }
        Ok(())
    }
    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> io::Result<()> {
        let Ok(mut st) = self.state.lock() else {
            return Ok(());
        };
        let text = st.0.replace('\r', "");
        st.0.clear();
        let text = text.trim_end();
        let due = st.1.is_none_or(|t| t.elapsed() >= Duration::from_secs(1));
        if !text.is_empty() && due {
            st.1 = Some(Instant::now());
            // A failed write to stderr is not worth ending the batch for.
            let _ = writeln!(io::stderr(), "{text}");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Shown;

    #[test]
    fn when_the_bar_is_shown() {
        // (quiet, forced, stderr terminal, records on a terminal)
        let cases = [
            ((false, false, true, false), Shown::Terminal),
            // Records printed on the terminal: the bar would share its line.
            ((false, false, true, true), Shown::Hidden),
            ((false, true, true, true), Shown::Terminal),
            ((false, false, false, false), Shown::Hidden),
            ((false, false, false, true), Shown::Hidden),
            ((false, true, false, false), Shown::Lines),
            ((false, true, false, true), Shown::Lines),
            ((true, true, true, false), Shown::Hidden),
            ((true, false, true, false), Shown::Hidden),
            ((true, true, false, true), Shown::Hidden),
        ];
        for ((quiet, forced, terminal, records), want) in cases {
            assert_eq!(
                Shown::of(quiet, forced, terminal, records),
                want,
                "quiet {quiet} forced {forced} terminal {terminal} records {records}"
            );
        }
    }
}
