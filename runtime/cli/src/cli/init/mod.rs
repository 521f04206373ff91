//! `gg init [DIR]`: a profile with every line commented, a workspace, an
//! example program and a session that `gg test DIR` passes at once — what
//! `cargo new` or `deno init` give, so a first run needs no reading.

use std::path::{Path, PathBuf};

use crate::screen::say;

#[derive(clap::Args)]
pub struct InitArgs {
    /// The folder to write into (created if missing; default: the current folder).
    dir: Option<PathBuf>,
}

/// What `gg init` writes, relative to its folder.
const FILES: [(&str, &str); 4] = [
    ("profile.json5", include_str!("profile.json5")),
    ("hello.ts", include_str!("hello.ts")),
    ("hello.session.json5", include_str!("hello.session.json5")),
    ("workspace/notes.md", include_str!("notes.md")),
];

pub fn run(args: InitArgs) -> i32 {
    let dir = args.dir.unwrap_or_else(|| PathBuf::from("."));
    // Nothing is overwritten: a folder that already holds one of the files
    // is refused before anything is written.
    let taken: Vec<String> = FILES
        .iter()
        .map(|(name, _)| dir.join(name))
        .filter(|path| path.exists())
        .map(|path| path.display().to_string())
        .collect();
    if !taken.is_empty() {
        return super::usage_error(format!(
            "{} already exist{}; gg init writes only into a folder without them (pick another folder, or move them).",
            taken.join(", "),
            if taken.len() == 1 { "s" } else { "" }
        ));
    }
    for (name, text) in FILES {
        if let Err(e) = write(&dir.join(name), text) {
            return super::usage_error(e);
        }
    }
    let shown = dir.display();
    say!("wrote {shown}/profile.json5, hello.ts, hello.session.json5 and workspace/notes.md");
    say!();
    say!("  cd {shown}");
    say!("  gg run hello.ts --profile profile.json5 --workspace workspace   # one turn; prints what the model would see next");
    say!("  gg test .                                                       # runs hello.session.json5");
    say!("  gg mcp --profile profile.json5 --workspace workspace            # serves the agent to an MCP client");
    0
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
