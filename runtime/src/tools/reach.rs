//! What a stdio server is pointed at. A server's tools reach what its
//! arguments name (a filesystem server's root, a database file), so a
//! profile whose server is given a folder that holds gg's state folder, or
//! a path inside it, would hand that server every agent's memories and
//! event streams: it is refused at launch, naming the server, the argument
//! and the fix. Folders are compared by device and inode, so a link or a
//! different spelling of the same folder is the same folder. An argument
//! that names nothing that exists (a flag, a word, `${GG_SERVER_STATE}`) is
//! not a place and is left alone.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use gg_module::tools::{ToolsConfig, Transport};

/// Device and inode: what two names of one folder share.
fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Every problem of `config`'s stdio servers with the state folder
/// `state`: one sentence per argument that holds it or lies inside it.
pub(crate) fn servers_reaching_state(config: &ToolsConfig, state: &Path) -> Vec<String> {
    let Ok(state) = state.canonicalize() else {
        return Vec::new();
    };
    let Some(state_id) = identity(&state) else {
        return Vec::new();
    };
    // The state folder and every folder above it: an argument naming one
    // of them holds it.
    let holding: HashSet<(u64, u64)> = state.ancestors().filter_map(identity).collect();
    let mut problems = Vec::new();
    for server in &config.servers {
        let Transport::Stdio { args, cwd, .. } = &server.transport else {
            continue;
        };
        let Some(base) = cwd.clone().or_else(|| std::env::current_dir().ok()) else {
            continue;
        };
        for (index, arg) in args.iter().enumerate() {
            for candidate in places(arg) {
                let path = if Path::new(candidate).is_absolute() {
                    PathBuf::from(candidate)
                } else {
                    base.join(candidate)
                };
                let Some(id) = identity(&path) else {
                    continue;
                };
                let relation =
                    if holding.contains(&id) {
                        if id == state_id {
                            "is"
                        } else {
                            "holds"
                        }
                    } else if path.canonicalize().ok().is_some_and(|p| {
                        p.ancestors().skip(1).any(|a| identity(a) == Some(state_id))
                    }) {
                        "is inside"
                    } else {
                        continue;
                    };
                problems.push(format!(
                    "tools: the server {:?} is given {arg:?} (args[{index}]), which {relation} the state folder {}: its tools could read every agent's memories and event streams. Give the server a folder that does not hold the state folder, or keep the state elsewhere (--state DIR).",
                    server.name,
                    state.display()
                ));
                break;
            }
        }
    }
    problems
}

/// The places an argument may name: itself, and the value of an
/// `--option=value` argument.
fn places(arg: &str) -> Vec<&str> {
    if arg.is_empty() || arg.contains("${") {
        return Vec::new();
    }
    let mut places = vec![arg];
    if arg.starts_with('-') {
        if let Some((_, value)) = arg.split_once('=') {
            if !value.is_empty() {
                places.push(value);
            }
        }
    }
    places
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(args: &[&str], cwd: &Path) -> ToolsConfig {
        let profile = gg_module::Profile::from_json5(
            &serde_json::json!({
                "id": "p",
                "capabilities": [{ "id": "tools", "params": { "servers": [
                    { "name": "files", "command": "node", "args": args, "cwd": cwd, "allow": ["*"] }
                ] } }]
            })
            .to_string(),
            "test",
        )
        .unwrap();
        ToolsConfig::from_capability(profile.capability("tools"))
            .unwrap()
            .unwrap()
    }

    /// A folder of the system's temporary one, removed at the end.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new() -> Self {
            let dir = std::env::temp_dir().join(format!(
                "gg-reach-test-{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }

        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_server_given_a_folder_holding_the_state_folder_or_inside_it_is_named() {
        let dir = Scratch::new();
        let project = dir.path().join("project");
        let state = project.join(".gg-state");
        std::fs::create_dir_all(state.join("events")).unwrap();
        std::fs::create_dir_all(project.join("data")).unwrap();
        std::os::unix::fs::symlink(&project, dir.path().join("alias")).unwrap();
        let problems = |args: &[&str]| servers_reaching_state(&config(args, &project), &state);
        for args in [
            &["server.js", "."][..],
            &["server.js", "--root=.."],
            &["server.js", "../alias"],
            &["server.js", ".gg-state"],
            &["server.js", ".gg-state/events"],
        ] {
            let found = problems(args);
            assert_eq!(found.len(), 1, "{args:?}: {found:?}");
            assert!(
                found[0].starts_with("tools: the server \"files\" is given")
                    && found[0].contains("(args[1])")
                    && found[0].contains("--state DIR"),
                "{found:?}"
            );
        }
        assert!(problems(&["server.js", "."])[0].contains("which holds the state folder"));
        assert!(problems(&["server.js", ".gg-state"])[0].contains("which is the state folder"));
        assert!(problems(&["server.js", ".gg-state/events"])[0].contains("which is inside"));
        // A folder beside it, words, flags and the server's own folder are
        // not the state folder.
        for args in [
            &["server.js", "data"][..],
            &["-y", "--port", "0", "stdio"],
            &["${GG_SERVER_STATE}/memory.jsonl"],
        ] {
            assert!(problems(args).is_empty(), "{args:?}");
        }
    }
}
