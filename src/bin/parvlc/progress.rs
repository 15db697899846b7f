//! Progress bars for long jobs.

/// Inputs larger than this show progress.
pub const PROGRESS_THRESHOLD: u64 = 64 << 20;

/// A bar of `len` steps drawn by `template`, or None when the job is too small to need one.
pub fn progress_bar(show: bool, len: u64, template: &str) -> Option<indicatif::ProgressBar> {
    show.then(|| {
        let bar = indicatif::ProgressBar::new(len);
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    })
}

/// Run `job`, showing the stages it reports on a bar of `stages` steps when `show`.
pub fn with_stage_bar<S: std::fmt::Debug, T>(
    show: bool,
    stages: u64,
    job: impl FnOnce(&mut dyn FnMut(S)) -> T,
) -> T {
    let bar = progress_bar(show, stages, "{spinner} [{bar:20}] {msg} ({elapsed})");
    if let Some(b) = &bar {
        b.enable_steady_tick(std::time::Duration::from_millis(100));
    }
    let out = job(&mut |stage: S| {
        if let Some(b) = &bar {
            b.set_message(format!("{stage:?}"));
            b.inc(1);
        }
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    out
}
