//! `gg test`: every session file under the given paths, each in a fresh
//! state folder, several at once; one line per session and per failure, and
//! `N passed, N failed` last.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::screen::{self, tell};
use crate::session;
use anstyle::{AnsiColor, Style};

#[derive(clap::Args)]
pub struct TestArgs {
    /// Session files, or folders to search for `*.session.json5` (default: the current folder).
    paths: Vec<PathBuf>,
    /// Rewrite golden files that differ instead of failing.
    #[arg(long)]
    update: bool,
    /// Sessions run at once (default: the machine's cores).
    #[arg(long)]
    jobs: Option<usize>,
}

const OK: Style = AnsiColor::Green.on_default().bold();
const FAIL: Style = AnsiColor::Red.on_default().bold();

/// Finds session files: the paths that are files, and `*.session.json5`
/// under the paths that are folders, sorted.
pub fn find_sessions(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let roots: Vec<PathBuf> = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths.to_vec()
    };
    for root in roots {
        if root.is_file() {
            found.push(root);
            continue;
        }
        if !root.is_dir() {
            return Err(format!(
                "{} is neither a session file nor a folder.",
                root.display()
            ));
        }
        for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
            let entry = entry.map_err(|e| format!("cannot search {}: {e}", root.display()))?;
            let name = entry.file_name().to_string_lossy();
            if entry.file_type().is_file()
                && name.ends_with(".session.json5")
                && !entry.path().components().any(|c| c.as_os_str() == "target")
            {
                found.push(entry.into_path());
            }
        }
    }
    Ok(found)
}

fn run_one(path: &Path, update: bool) -> Result<Vec<String>, String> {
    let loaded = session::load(path)?;
    let outcome = session::run(
        &loaded,
        &session::Options {
            state: None,
            update,
        },
        &mut session::Quiet,
    )?;
    Ok(outcome.failures)
}

pub fn run(args: TestArgs) -> i32 {
    let sessions = match find_sessions(&args.paths) {
        Ok(s) => s,
        Err(e) => {
            tell!("gg: {e}");
            return 2;
        }
    };
    if sessions.is_empty() {
        tell!("gg: no *.session.json5 files found");
        return 2;
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2)
        })
        .max(1);
    let queue = Arc::new(Mutex::new(sessions.clone().into_iter()));
    let tally = Arc::new(Mutex::new((0usize, 0usize)));
    let out = Arc::new(Mutex::new(screen::stdout()));
    let update = args.update;
    let workers: Vec<_> = (0..jobs.min(sessions.len()))
        .map(|_| {
            let (queue, tally, out) = (queue.clone(), tally.clone(), out.clone());
            std::thread::spawn(move || loop {
                let Some(path) = queue.lock().unwrap_or_else(|p| p.into_inner()).next() else {
                    return;
                };
                let start = Instant::now();
                // A session that crashes gg is a failure with its reason, in
                // its place, never a worker that dies uncounted and prints
                // after the summary.
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_one(&path, update)
                }))
                .unwrap_or_else(|panic| {
                    let reason = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "no message".to_string());
                    Err(format!(
                        "gg crashed running this session (gg's defect): {reason}"
                    ))
                });
                let ms = start.elapsed().as_millis();
                let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
                let mut tally = tally.lock().unwrap_or_else(|p| p.into_inner());
                match result {
                    Ok(failures) if failures.is_empty() => {
                        tally.0 += 1;
                        let _ = out.styled(OK, "ok");
                        let _ = writeln!(out, "   {} ({ms} ms)", path.display());
                    }
                    Ok(failures) => {
                        tally.1 += 1;
                        let _ = out.styled(FAIL, "FAIL");
                        let _ = writeln!(out, " {} ({ms} ms)", path.display());
                        for f in failures {
                            let _ = writeln!(out, "     {}", f.replace('\n', "\n     "));
                        }
                    }
                    Err(e) => {
                        tally.1 += 1;
                        let _ = out.styled(FAIL, "FAIL");
                        let _ = writeln!(
                            out,
                            " {}\n     {}",
                            path.display(),
                            e.replace('\n', "\n     ")
                        );
                    }
                }
                let _ = out.flush();
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    let (passed, failed) = *tally.lock().unwrap_or_else(|p| p.into_inner());
    // Every detail above went through `out`; the summary goes through it
    // too, flushed, so it is the last line whatever else was buffered.
    let mut out = out.lock().unwrap_or_else(|p| p.into_inner());
    let _ = writeln!(out, "{passed} passed, {failed} failed");
    let _ = out.flush();
    if failed > 0 {
        1
    } else {
        0
    }
}
