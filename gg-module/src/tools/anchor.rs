//! Where a stdio server starts: a profile or session file says `cwd`
//! relative to itself, so a file that names `node ./server.js` means the
//! same server wherever `gg` runs from.

use std::path::Path;

use crate::profile::Profile;

use super::CAPABILITY_ID;

/// Anchors the `tools` block of `profile`, read from a file in `base`:
/// each stdio server's relative `cwd` is taken from `base`, and a server
/// that gives none starts in `base`. Absolute folders and URL servers are
/// left as written; a block that is not well-formed is left for the
/// validation to report.
pub fn anchor_to(profile: &mut Profile, base: &Path) {
    // A file named without a folder (`gg test x.session.json5`) has the
    // empty path as its parent: that is the current folder.
    let base = if base.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base
    };
    for capability in &mut profile.capabilities {
        if capability.id != CAPABILITY_ID {
            continue;
        }
        let Some(serde_json::Value::Array(servers)) = capability.params.get_mut("servers") else {
            continue;
        };
        for server in servers.iter_mut() {
            let Some(server) = server.as_object_mut() else {
                continue;
            };
            if !server.contains_key("command") {
                continue;
            }
            let anchored = match server.get("cwd") {
                None => base.to_path_buf(),
                Some(serde_json::Value::String(cwd)) if !cwd.is_empty() => base.join(cwd),
                Some(_) => continue,
            };
            server.insert(
                "cwd".into(),
                serde_json::Value::String(anchored.display().to_string()),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_missing_folders_are_taken_from_the_file() {
        let mut profile = Profile::from_json5(
            r#"{ id: "p", capabilities: [{ id: "tools", params: { servers: [
                 { name: "a", command: "node", args: ["s.js"], allow: ["*"] },
                 { name: "b", command: "node", cwd: "servers/b", allow: ["*"] },
                 { name: "c", command: "node", cwd: "/abs", allow: ["*"] },
                 { name: "d", url: "http://127.0.0.1:1/mcp", allow: ["*"] } ] } }] }"#,
            "p",
        )
        .unwrap();
        anchor_to(&mut profile, Path::new("/work/suite"));
        let config = crate::tools::ToolsConfig::from_capability(profile.capability("tools"))
            .unwrap()
            .unwrap();
        let cwd = |i: usize| match &config.servers[i].transport {
            crate::tools::Transport::Stdio { cwd, .. } => cwd.clone(),
            crate::tools::Transport::Http { .. } => None,
        };
        assert_eq!(cwd(0), Some("/work/suite".into()));
        assert_eq!(cwd(1), Some("/work/suite/servers/b".into()));
        assert_eq!(cwd(2), Some("/abs".into()));
        assert_eq!(cwd(3), None);

        // A bare file name's folder is the current one, never "".
        let mut bare = Profile::from_json5(
            r#"{ id: "p", capabilities: [{ id: "tools", params: { servers: [
                 { name: "a", command: "node", allow: ["*"] } ] } }] }"#,
            "p",
        )
        .unwrap();
        anchor_to(&mut bare, Path::new(""));
        let config = crate::tools::ToolsConfig::from_capability(bare.capability("tools"))
            .expect("a folder the block accepts")
            .unwrap();
        assert!(matches!(
            &config.servers[0].transport,
            crate::tools::Transport::Stdio { cwd: Some(cwd), .. } if cwd.as_os_str() == "."
        ));
    }
}
