//! What `ponkeeper bench poll` shows on stderr while it runs (its figures go to stdout):
//! an indicatif bar with the step under way and the time so far on a terminal, and one
//! plain line per step otherwise (a log file, CI), so a long run never sits silent.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// The bench's progress: steps done out of the steps planned, and the current one.
pub struct Progress {
    bar: ProgressBar,
    terminal: bool,
}

impl Progress {
    /// A bar of `steps` steps on stderr.
    pub fn new(steps: usize) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = ProgressBar::with_draw_target(
            Some(steps as u64),
            if terminal {
                ProgressDrawTarget::stderr()
            } else {
                ProgressDrawTarget::hidden()
            },
        );
        if let Ok(style) =
            ProgressStyle::with_template("[{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
        {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(500));
        Progress { bar, terminal }
    }

    /// Starts a step: the bar's message, or a line of its own when stderr is no terminal.
    pub fn step(&self, message: impl Into<String>) {
        let message = message.into();
        if !self.terminal {
            eprintln!(
                "bench poll [{:>4}s] {message}",
                self.bar.elapsed().as_secs()
            );
        }
        self.bar.set_message(message);
    }

    /// One planned step is done.
    pub fn inc(&self) {
        self.bar.inc(1);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
        if !self.terminal {
            eprintln!("bench poll [{:>4}s] done", self.bar.elapsed().as_secs());
        }
    }
}
