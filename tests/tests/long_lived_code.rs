//! Code memories in a long-lived agent: each program imports the store's
//! current code, linked afresh, exactly as a fresh process on the same
//! state would.

use gg_module::Profile;
use gg_runtime::{Agent, AgentOptions, Response};
use gg_tests::{ack, memories_profile};

fn scratchpad_profile() -> Profile {
    memories_profile(
        "scratchpad",
        [16, 4096, 16384, 0, 256, 0],
        gg_module::Mode::Code,
    )
}

/// An agent on the state folder `dir` (the same agent each time).
fn open(dir: &std::path::Path) -> Agent {
    Agent::new(AgentOptions::new(scratchpad_profile()).state(dir.to_path_buf())).expect("agent")
}

/// The value a program exported, or its error.
fn value(agent: &mut Agent, source: &str) -> String {
    let out = agent.turn(Response::program(source)).expect("turn");
    let ack = ack(&out);
    ack.value
        .clone()
        .or_else(|| ack.error.clone())
        .unwrap_or_default()
}

const MONEY_V1: &str = r#"export class Money { constructor(public cents: number) {} }
export function fmt(m: Money) { if (!(m instanceof Money)) throw new Error("not a Money"); return "$" + (m.cents / 100).toFixed(2); }"#;
const MONEY_V2: &str = r#"export class Money { constructor(public cents: number) {} }
export function fmt(m: Money) { if (!(m instanceof Money)) throw new Error("not a Money"); return (m.cents / 100).toFixed(2) + " USD"; }"#;
const REPORT: &str = r#"import { Money } from "money";
export function total() { return new Money(1250); }"#;

fn write(name: &str, code: &str, call: &str) -> String {
    format!(
        "import {{ memories }} from \"gg\";\nmemories.{call}({{ name: {name:?}, description: \"d\", body: \"b\", code: {code:?} }});"
    )
}

#[test]
fn a_dependent_links_against_the_current_version_of_what_it_imports() {
    let dir = tempfile::tempdir().unwrap();
    let mut live = open(dir.path());
    value(&mut live, &write("money", MONEY_V1, "writeMemory"));
    value(&mut live, &write("report", REPORT, "writeMemory"));
    let program = r#"import { fmt } from "money"; import { total } from "report"; export default fmt(total());"#;
    assert_eq!(value(&mut live, program), "\"$12.50\"");
    value(&mut live, &write("money", MONEY_V2, "updateMemory"));
    let in_process = value(&mut live, program);
    assert_eq!(
        in_process, "\"12.50 USD\"",
        "report is linked to the new money"
    );
    drop(live);
    let mut fresh = open(dir.path());
    assert_eq!(
        value(&mut fresh, program),
        in_process,
        "as a fresh process sees it"
    );
}

#[test]
fn within_one_program_a_key_is_one_module_and_a_revision_waits_for_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = open(dir.path());
    value(&mut a, &write("ver", "export const v = 1;", "writeMemory"));
    let revised_mid_program = format!(
        "import * as s from \"ver\";\n{}\nconst d = await import(\"ver\");\nexport default [s.v, d.v, s === d];",
        write("ver", "export const v = 2;", "updateMemory").replace("import { memories } from \"gg\";\n", "import { memories } from \"gg\"; ")
    );
    assert_eq!(value(&mut a, &revised_mid_program), "[1,1,true]");
    assert_eq!(
        value(&mut a, "import { v } from \"ver\"; export default v;"),
        "2"
    );
}

#[test]
fn module_state_does_not_outlive_a_program() {
    let dir = tempfile::tempdir().unwrap();
    let mut live = open(dir.path());
    value(
        &mut live,
        &write(
            "counter",
            "let n = 0; export function next() { return ++n; }",
            "writeMemory",
        ),
    );
    let program = "import { next } from \"counter\"; next(); export default next();";
    assert_eq!(value(&mut live, program), "2");
    assert_eq!(value(&mut live, program), "2", "each program starts afresh");
    drop(live);
    assert_eq!(value(&mut open(dir.path()), program), "2");
}

/// Another holder's revision and deletion reach this agent's next
/// program, as its notice says.
#[test]
fn another_holders_revision_and_deletion_reach_the_next_program() {
    use gg_module::run::{Run, StartKind};
    use gg_tests::{memories_block, run_config};
    let dir = tempfile::tempdir().unwrap();
    let config = run_config(
        &[("team", "code", vec![memories_block("markdown", "shared")])],
        &[],
    );
    let run = Run::launch(config, dir.path()).unwrap();
    let start = |id: &str| Agent::start(&run, id, "team", &StartKind::Root, None).unwrap();
    let (mut a, mut b) = (start("a"), start("b"));
    let tool = |v: u32, call: &str| {
        format!(
            "import {{ memories }} from \"gg\"; memories.{call}({{ name: \"tool\", description: \"d\", body: \"b\", code: \"export const v = {v};\" }});"
        )
    };
    value(&mut a, &tool(1, "createMemory"));
    value(
        &mut b,
        "import { memories } from \"gg\"; memories.readMemory(\"tool\");",
    );
    let import = "const { v } = await import(\"tool\"); export default v;";
    assert_eq!(value(&mut b, import), "1");
    // Markdown revises code by re-creating the memory.
    value(
        &mut a,
        "import { memories } from \"gg\"; memories.deleteMemory(\"tool\");",
    );
    value(&mut a, &tool(2, "createMemory"));
    assert_eq!(value(&mut b, import), "2", "the revision reached b");
    value(
        &mut a,
        "import { memories } from \"gg\"; memories.deleteMemory(\"tool\");",
    );
    let gone = value(&mut b, import);
    assert!(gone.contains("Cannot import \"tool\""), "{gone}");
}

/// The documentation views of `key` open in the agent's window.
fn open_docs(agent: &Agent, key: &str) -> Vec<String> {
    agent
        .window()
        .open_views()
        .filter_map(|v| match v {
            gg_module::View::Documentation {
                key: k, function, ..
            } if k == key => Some(function.clone()),
            _ => None,
        })
        .collect()
}

/// A reload supersedes a function's documentation view, `views.close`
/// takes the name its heading shows, and a delete closes what is left.
#[test]
fn documentation_views_follow_the_module() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = open(dir.path());
    let code = "export function f() { return 1; }\nexport function g() { return 2; }";
    value(&mut a, &write("ver", code, "writeMemory"));
    value(&mut a, &write("ver", code, "updateMemory"));
    value(&mut a, "export default 0;");
    assert_eq!(open_docs(&a, "ver"), ["f", "g"], "one view per function");
    value(
        &mut a,
        "import { views } from \"gg\"; views.close(\"ver.f\");",
    );
    value(&mut a, "export default 0;");
    assert_eq!(open_docs(&a, "ver"), ["g"]);
    value(
        &mut a,
        "import { memories } from \"gg\"; memories.deleteMemory(\"ver\");",
    );
    value(&mut a, "export default 0;");
    assert!(open_docs(&a, "ver").is_empty(), "closed with the module");
}

/// A slug that is a reserved word gets a key a program can bind.
#[test]
fn a_reserved_word_slug_gets_a_key_a_program_can_bind() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = open(dir.path());
    value(
        &mut a,
        &write(
            "class",
            "export default function () { return 7; }",
            "writeMemory",
        ),
    );
    assert_eq!(
        value(
            &mut a,
            "import _class from \"_class\"; export default _class();"
        ),
        "7"
    );
    assert!(a.render_window().contains("import _class from \"_class\";"));
}

/// Under scratchpad a memory is in every holder's window from the moment
/// it exists, so its code is importable by each of them, with its
/// documentation; a revision reloads it there too.
#[test]
fn under_scratchpad_another_holders_code_is_importable_at_the_next_program() {
    use gg_module::run::{Run, StartKind};
    use gg_tests::{memories_block, run_config};
    let dir = tempfile::tempdir().unwrap();
    let config = run_config(
        &[("pad", "code", vec![memories_block("scratchpad", "shared")])],
        &[],
    );
    let run = Run::launch(config, dir.path()).unwrap();
    let start = |id: &str| Agent::start(&run, id, "pad", &StartKind::Root, None).unwrap();
    let (mut a, mut b) = (start("a"), start("b"));
    value(
        &mut a,
        &write("helper", "export function h() { return 1; }", "writeMemory"),
    );
    let import = "import { h } from \"helper\"; export default h();";
    assert_eq!(value(&mut b, import), "1");
    assert_eq!(open_docs(&b, "helper"), ["h"], "with its documentation");
    value(
        &mut a,
        &write(
            "helper",
            "export function h() { return 2; }",
            "updateMemory",
        ),
    );
    assert_eq!(value(&mut b, import), "2");
    value(&mut b, "export default 0;");
    assert_eq!(open_docs(&b, "helper"), ["h"], "the reload superseded it");
}

/// Reading a module before the memory it imports says, at the read, which
/// memory to read first.
#[test]
fn reading_a_module_before_what_it_imports_names_the_memory_to_read_first() {
    let mut a = gg_tests::code_memories_agent("markdown", [0, 0, 0, 4096, 256, 0]);
    let create = |name: &str, code: &str| {
        format!("import {{ memories }} from \"gg\"; memories.createMemory({{ name: {name:?}, description: \"d\", body: \"b\", code: {code:?} }});")
    };
    value(&mut a, &create("money", "export const unit = \"USD\";"));
    value(
        &mut a,
        &create(
            "report",
            "import { unit } from \"money\";\nexport function label() { return unit; }",
        ),
    );
    let read = value(
        &mut a,
        "import { memories } from \"gg\"; export default memories.readMemory(\"report\").body;",
    );
    assert!(
        read.contains("imports \\\"money\\\", which is not loaded: read `money` first"),
        "{read}"
    );
    value(
        &mut a,
        "import { memories } from \"gg\"; memories.readMemory(\"money\");",
    );
    assert_eq!(
        value(
            &mut a,
            "import { label } from \"report\"; export default label();"
        ),
        "\"USD\""
    );
}

/// Every run links its modules afresh, and an isolate never frees a
/// module: the agent moves to a fresh isolate now and then, so the
/// modules it holds stay bounded however many runs it serves.
#[test]
fn the_modules_a_long_lived_agent_holds_stay_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = open(dir.path());
    value(
        &mut a,
        &write(
            "big",
            "export function pick(n: number) { return n * 2; }",
            "writeMemory",
        ),
    );
    let program = "import { pick } from \"big\"; export default pick(2);";
    let held_after = |a: &mut Agent, runs: usize| {
        for _ in 0..runs {
            assert_eq!(value(a, program), "4");
        }
        gg_runtime::probes::live_module_handles()
    };
    let early = held_after(&mut a, 100);
    let late = held_after(&mut a, 400);
    assert!(
        late <= early + 150,
        "module handles grew from {early} to {late} over 400 more runs"
    );
}

/// A key belongs to its slug for the life of the store: a delete does not
/// free it for another memory, the slug gets it back when it returns,
/// another holder and a fresh process import by the same keys, and every
/// documentation view names the slug its key belongs to.
#[test]
fn keys_are_the_stores_and_stay_with_their_slug() {
    use gg_module::run::{Run, StartKind};
    use gg_tests::{memories_block, run_config};
    let dir = tempfile::tempdir().unwrap();
    let config = run_config(
        &[("pad", "code", vec![memories_block("scratchpad", "shared")])],
        &[],
    );
    let which = |n: u32| format!("export function which() {{ return {n}; }}");
    let both = "import { which as a } from \"csvTools\"; import { which as b } from \"csvTools2\"; export default [a(), b()];";
    {
        let run = Run::launch(config.clone(), dir.path()).unwrap();
        let start = |id: &str| Agent::start(&run, id, "pad", &StartKind::Root, None).unwrap();
        let (mut a, mut b) = (start("a"), start("b"));
        value(&mut a, &write("csv-tools", &which(1), "writeMemory"));
        value(&mut a, &write("csv_tools", &which(2), "writeMemory"));
        assert_eq!(value(&mut a, both), "[1,2]");
        assert_eq!(
            value(&mut b, both),
            "[1,2]",
            "another holder, the same keys"
        );
        // A subagent started now has every memory in its pinned block, so
        // their code is importable there, documentation included.
        let spawned = StartKind::Subagent {
            spawner: "a".into(),
        };
        let mut s = Agent::start(&run, "s", "pad", &spawned, None).unwrap();
        assert_eq!(value(&mut s, both), "[1,2]", "a subagent imports them");
        assert_eq!(open_docs(&s, "csvTools2"), ["which"]);
        let window = a.render_window();
        assert!(
            window.contains(
                "import { which } from \"csvTools2\"; // the code of memory \"csv_tools\""
            ),
            "{window}"
        );
        value(
            &mut a,
            "import { memories } from \"gg\"; memories.deleteMemory(\"csv-tools\");",
        );
        value(&mut a, &write("csv.tools", &which(3), "writeMemory"));
        let third = "import { which } from \"csvTools3\"; export default which();";
        assert_eq!(
            value(&mut a, third),
            "3",
            "a new slug never takes a freed key"
        );
        let taken = value(
            &mut a,
            "import { which } from \"csvTools\"; export default which();",
        );
        assert!(taken.contains("Cannot import \"csvTools\""), "{taken}");
        value(&mut b, &write("csv-tools", &which(4), "writeMemory"));
        assert_eq!(value(&mut a, both), "[4,2]", "the slug got its key back");
    }
    // A fresh process on the same state imports by the same keys.
    let run = Run::launch(config, dir.path()).unwrap();
    let mut c = Agent::start(&run, "c", "pad", &StartKind::Root, None).unwrap();
    value(&mut c, "export default 0;");
    assert_eq!(value(&mut c, both), "[4,2]");
    assert_eq!(
        value(
            &mut c,
            "import { which } from \"csvTools3\"; export default which();"
        ),
        "3"
    );
}
