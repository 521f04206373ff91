//! A host killed (`kill -9`) while a program runs: the next process on the
//! same state tells that turn as one story. Its window names the
//! interrupted program and every memory change it committed, the program
//! id is never minted again, and nothing acknowledged is lost.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use gg_module::memories::MemoryStore;

/// A markdown-memories agent whose programs may run for a minute: long
/// enough to be killed mid-way.
const PROFILE: &str = r#"{
  id: "keeper",
  mode: "code",
  programs: { timeMs: 60000 },
  capabilities: [
    { id: "memories", enabled: true, implementation: "markdown",
      params: { scope: "isolated", maxCount: 1000, maxLenPerMemory: 0, maxTotalLen: 0,
        maxLenIndex: 0, maxLenDescription: 0, maxResults: 25 } },
  ],
}"#;

struct Host {
    dir: tempfile::TempDir,
}

impl Host {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("keeper.json5"), PROFILE).unwrap();
        Host { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self, program: &str, name: &str) -> Command {
        let file = self.path(name);
        std::fs::write(&file, program).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gg"));
        cmd.arg("run")
            .arg("--profile")
            .arg(self.path("keeper.json5"))
            .arg("--state")
            .arg(self.path("state"))
            .arg(&file);
        cmd
    }

    /// Runs `program` to its end; the window `gg run` prints.
    fn run(&self, program: &str) -> String {
        let out: Output = self.command(program, "turn.ts").output().unwrap();
        let window = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "gg run failed: {}\n{window}",
            String::from_utf8_lossy(&out.stderr)
        );
        window
    }

    /// Starts a program that writes `count` memories named `{prefix}-{i}`
    /// and then spins; kills the process once the store holds at least
    /// `kill_after` of them.
    fn kill_mid_program(&self, prefix: &str, count: usize, kill_after: usize) {
        let program = format!(
            r#"import {{ memories }} from "gg";
for (let i = 0; i < {count}; i++) {{
  memories.createMemory({{ name: `{prefix}-${{i}}`, description: "note " + i, body: "body " + i }});
}}
while (true) {{}}
"#
        );
        let mut child: Child = self
            .command(&program, "spin.ts")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.revisions_named(prefix).len() < kill_after {
            assert!(
                Instant::now() < deadline,
                "the program never wrote {kill_after} memories"
            );
            assert!(child.try_wait().unwrap().is_none(), "gg run ended early");
            std::thread::sleep(Duration::from_millis(5));
        }
        child.kill().expect("kill -9");
        child.wait().unwrap();
    }

    fn store(&self) -> MemoryStore {
        let path = self.path("state/memories/agent.main.sqlite");
        MemoryStore::open(&path, "agent.main").unwrap()
    }

    /// The revisions whose memory name starts with `prefix`, with the
    /// program that made each.
    fn revisions_named(&self, prefix: &str) -> Vec<(String, Option<String>)> {
        let path = self.path("state/memories/agent.main.sqlite");
        if !path.is_file() {
            return Vec::new();
        }
        self.store()
            .revisions_since(0)
            .unwrap()
            .into_iter()
            .filter(|r| r.slug.starts_with(&format!("{prefix}-")))
            .map(|r| (r.slug, r.program))
            .collect()
    }
}

/// Every program id the window shows, in order.
fn program_ids(window: &str) -> Vec<String> {
    window
        .lines()
        .filter_map(|l| l.strip_prefix("--- program "))
        .map(|l| l.trim_end_matches(" ---").to_string())
        .collect()
}

#[test]
fn a_turn_killed_mid_program_is_reported_whole_and_its_id_stays_spent() {
    let host = Host::new();
    let first = host.run(
        r#"import { memories } from "gg";
memories.createMemory({ name: "kept", description: "acknowledged", body: "before any kill" });
export default "ok";"#,
    );
    assert!(first.contains("p1: ok"), "{first}");

    // Kill at different depths: after the first write, mid-way, after all.
    for (round, kill_after) in [(2, 1), (4, 7), (6, 20)] {
        let prefix = format!("r{round}");
        host.kill_mid_program(&prefix, 20, kill_after);
        let committed = host.revisions_named(&prefix);
        assert!(committed.len() >= kill_after);
        let killed = format!("p{round}");
        for (slug, program) in &committed {
            assert_eq!(
                program.as_deref(),
                Some(killed.as_str()),
                "{slug} names its program"
            );
        }

        if round == 4 {
            // As if the kill had landed between the last commit and its
            // event: the reopened agent reports the revision itself.
            drop_last_revision_event(&host.path("state/events/main.jsonl"));
        }
        let window = host.run("export default 1;");
        assert!(
            window.contains(&format!("--- program {killed} ---")),
            "the interrupted program is in the window:\n{window}"
        );
        assert!(
            window.contains(&format!("{killed}: interrupted")),
            "{window}"
        );
        assert!(window.contains("the host stopped while this program ran"));
        for (slug, _) in &committed {
            let line = format!("committed before the host stopped: created `{slug}` (revision 1).");
            assert!(window.contains(&line), "{line} is missing:\n{window}");
        }
        let next = format!("p{}: ok", round + 1);
        assert!(
            window.contains(&next),
            "the next program is {next}:\n{window}"
        );
    }

    let window = host.run("export default 2;");
    let ids = program_ids(&window);
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "no program id twice: {ids:?}");
    assert_eq!(ids.len(), 8, "{ids:?}");
    // Nothing acknowledged is lost.
    let kept = host
        .store()
        .get("kept")
        .unwrap()
        .expect("the acknowledged memory");
    assert_eq!(kept.body, "before any kill");
    assert_stream_has_every_revision(&host.path("state/events/main.jsonl"), &host.store());
}

/// Every revision in the store has its `memory_revision` event in the
/// agent's stream, once, even those committed just before a kill.
fn assert_stream_has_every_revision(stream: &Path, store: &MemoryStore) {
    let text = std::fs::read_to_string(stream).unwrap();
    let mut seen: Vec<i64> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "memory_revision")
        .filter_map(|e| e["seq"].as_i64())
        .collect();
    seen.sort();
    let in_store: Vec<i64> = store
        .revisions_since(0)
        .unwrap()
        .iter()
        .map(|r| r.seq)
        .collect();
    assert_eq!(seen, in_store);
}

/// Removes the stream's last `memory_revision` line.
fn drop_last_revision_event(stream: &Path) {
    let text = std::fs::read_to_string(stream).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let last = lines
        .iter()
        .rposition(|l| l.contains("\"type\":\"memory_revision\""))
        .expect("a revision event");
    lines.remove(last);
    std::fs::write(stream, lines.join("\n") + "\n").unwrap();
}
