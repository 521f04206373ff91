//! A large state folder, written straight through gg-module's own stores
//! (running hundreds of sessions would take minutes): 200 agents of four
//! profiles, each with its own store of 10 memories (2 000 in all), a
//! window of one turn (a program and its acknowledgement) in
//! `state.sqlite`, a modules file and an event stream.

use std::path::Path;

use gg_module::durable::memory_store::{Change, MemoryStore, Mutation};
use gg_module::durable::{AgentRecord, AgentStore, StoredProgram};
use gg_module::window::{Acknowledgement, ConsoleLine, ItemBody, RunStatus, Window};

/// Agents in the folder.
pub const AGENTS: usize = 200;
/// Memories in each agent's store.
pub const PER_AGENT: usize = 10;
/// The one memory whose text holds [`NEEDLE`]: (agent, slug).
pub const NEEDLE_AT: (&str, &str) = ("a123", "note-123-7");
/// A word only one memory's text holds.
pub const NEEDLE: &str = "zebra-crossing";
/// The agent whose turn threw, with a console line and an error.
pub const THREW: &str = "a007";

/// Agent `i`'s id.
pub fn agent(i: usize) -> String {
    format!("a{i:03}")
}

/// The program agent `id` ran on turn 1.
pub fn program(id: &str) -> String {
    format!(
        "await memories.write(\"note-{}-0\", \"first note\");\n",
        &id[1..]
    )
}

/// Writes the folder into `root`.
pub fn fill(root: &Path) {
    std::fs::create_dir_all(root.join("memories")).unwrap();
    std::fs::create_dir_all(root.join("events")).unwrap();
    let mut agents = AgentStore::open(&root.join("state.sqlite")).unwrap();
    for i in 0..AGENTS {
        let id = agent(i);
        let store_id = format!("agent.{id}");
        let path = root.join("memories").join(format!("{store_id}.sqlite"));
        let mut store = MemoryStore::open(&path, &store_id).unwrap();
        store.join(&id, "isolated", true).unwrap();
        for k in 0..PER_AGENT {
            let slug = format!("note-{}-{k}", &id[1..]);
            let mut body = format!("Note {k} of agent {id}.\nA second line.");
            if (id.as_str(), slug.as_str()) == NEEDLE_AT {
                body.push_str(&format!("\nMind the {NEEDLE}."));
            }
            store
                .mutate(&id, &slug, |_| {
                    Ok(Change::Put {
                        mutation: Mutation::Create,
                        description: format!("note {k} of {id}"),
                        body: body.clone(),
                        code: None,
                        on_use: None,
                    })
                })
                .unwrap();
        }
        let modules = root.join("agents").join(&id).join("modules");
        std::fs::create_dir_all(&modules).unwrap();
        let binding = serde_json::json!({
            "store": store_id, "strategy": "markdown", "scope": "isolated", "writable": true,
            "holders": [{ "agent": id, "scope": "isolated", "writable": true }], "others": [],
        });
        std::fs::write(modules.join("memories"), binding.to_string()).unwrap();
        let event = serde_json::json!({
            "type": "memory_pull", "agent": id, "store": store_id, "seqs": [1],
        });
        std::fs::write(
            root.join("events").join(format!("{id}.jsonl")),
            format!("{event}\n"),
        )
        .unwrap();
        let source = program(&id);
        agents
            .save(
                &record(&id, i % 4, &source).as_save(),
                &[StoredProgram {
                    id: "p1".into(),
                    turn: 1,
                    source,
                    opening: false,
                }],
            )
            .unwrap();
    }
}

/// Agent `id`'s state after one turn: the program and its acknowledgement
/// (a throw with a console line for [`THREW`]).
fn record(id: &str, profile: usize, source: &str) -> AgentRecord {
    let mut window = Window::default();
    window.push(
        1,
        ItemBody::Program {
            id: Some("p1".into()),
            source: source.into(),
        },
    );
    let threw = id == THREW;
    window.push(
        1,
        ItemBody::Acknowledgement(Acknowledgement {
            program_id: Some("p1".into()),
            status: if threw {
                RunStatus::Threw
            } else {
                RunStatus::Ok
            },
            value: (!threw).then(|| "\"written\"".to_string()),
            console: vec![ConsoleLine {
                level: "log".into(),
                text: format!("hello from {id}"),
            }],
            error: threw.then(|| "Error: the note is too long (line 1)".to_string()),
            notes: Vec::new(),
        }),
    );
    AgentRecord {
        id: id.into(),
        profile_id: format!("crowd-{profile}"),
        turn: 1,
        next_program: 2,
        window,
        loaded: Vec::new(),
        in_flight: None,
    }
}
