//! A caught error's `stack` names the TypeScript its author wrote, as an
//! uncaught one's report does: display names (`rowTools.ts`, the program's
//! own), TypeScript lines and columns, no run specifiers.

use gg_module::RunStatus;
use gg_runtime::{Agent, AgentOptions};
use gg_tests::{ack, agent_with, memories_profile, run};

/// Type-only lines above the throw, so the TypeScript line (8) is not the
/// JavaScript one.
const ROW_TOOLS: &str = r#"interface Row {
  id: number;
  name: string;
}
type Rows = Row[];

export function pick(rows: Rows, i: number): Row {
  if (i >= rows.length) throw new Error("no row " + i);
  return rows[i];
}
"#;

/// The same `pick`, with a function added after it.
const ROW_TOOLS_REVISED: &str = r#"interface Row {
  id: number;
  name: string;
}
type Rows = Row[];

export function pick(rows: Rows, i: number): Row {
  if (i >= rows.length) throw new Error("no row " + i);
  return rows[i];
}

export function count(rows: Rows): number {
  return rows.length;
}
"#;

/// Where `pick`'s `new Error` is in the TypeScript.
const PICK_THROW: &str = "rowTools.ts:8:31";

fn profile() -> gg_module::Profile {
    memories_profile(
        "scratchpad",
        [16, 4096, 16384, 0, 256, 0],
        gg_module::Mode::Code,
    )
}

fn agent() -> Agent {
    agent_with(profile())
}

fn write(name: &str, code: &str, call: &str) -> String {
    format!(
        "import {{ memories }} from \"gg\";\nmemories.{call}({{ name: {name:?}, description: \"d\", body: \"b\", code: {code:?} }});"
    )
}

/// Runs `source` and returns the string it exported.
fn exported(agent: &mut Agent, source: &str) -> String {
    let out = run(agent, source);
    let ack = ack(&out);
    assert_eq!(ack.status, RunStatus::Ok, "{ack:?}");
    serde_json::from_str(ack.value.as_deref().expect("a value")).expect("a string")
}

fn saved(agent: &mut Agent, code: &str, call: &str) {
    let out = run(agent, &write("row-tools", code, call));
    assert_eq!(ack(&out).status, RunStatus::Ok, "{:?}", ack(&out));
}

/// A program calling `pick` past the end, on TypeScript line 5 (below two
/// type-only lines), catching what it throws and exporting its stack.
const CATCHES: &str = r#"import { pick } from "rowTools";
interface Shown {
  stack: string;
}
const shown: Shown = { stack: "" };
try { pick([], 3); } catch (e) { shown.stack = String((e as Error).stack); }
export default shown.stack;
"#;

/// The `at …` lines of a stack.
fn frames(stack: &str) -> Vec<&str> {
    stack
        .lines()
        .skip(1)
        .map(|l| l.trim_start().strip_prefix("at ").unwrap_or(l))
        .collect()
}

#[test]
fn a_caught_error_from_a_code_memory_names_its_typescript_line() {
    let mut a = agent();
    saved(&mut a, ROW_TOOLS, "writeMemory");
    let stack = exported(&mut a, CATCHES);
    let frames = frames(&stack);
    assert!(stack.starts_with("Error: no row 3\n"), "{stack}");
    assert_eq!(frames[0], format!("pick ({PICK_THROW})"), "{stack}");
    // The program's own frame: line 6 of its TypeScript, at `pick(`.
    assert!(
        frames[1].ends_with(".ts:6:7"),
        "the caller, in TypeScript: {stack}"
    );
    for leaked in ["gg:", ".js", "@"] {
        assert!(!stack.contains(leaked), "no {leaked:?} in {stack}");
    }
}

#[test]
fn a_caught_error_in_the_program_itself_names_its_typescript_line() {
    let mut a = agent();
    let stack = exported(
        &mut a,
        r#"type Id = number;
interface Order {
  id: Id;
  items: string[];
}

function firstItem(order: Order | undefined): string {
  return order!.items[0];
}

let stack = "";
try { firstItem(undefined); } catch (e) { stack = (e as Error).stack ?? ""; }
export default stack;
"#,
    );
    let frames = frames(&stack);
    assert!(stack.starts_with("TypeError: "), "{stack}");
    let (file, position) = frames[0]
        .strip_prefix("firstItem (")
        .and_then(|f| f.strip_suffix(')'))
        .and_then(|f| f.split_once(':'))
        .expect(&stack);
    assert!(file.ends_with(".ts") && !file.contains('/'), "{stack}");
    assert!(position.starts_with("8:"), "the TypeScript line: {stack}");
    assert_eq!(frames[1], format!("{file}:12:7"), "{stack}");
}

#[test]
fn an_uncaught_error_reads_as_the_caught_stack_does() {
    let mut a = agent();
    saved(&mut a, ROW_TOOLS, "writeMemory");
    let caught = exported(&mut a, CATCHES);
    // The same call, at the same line and column, not caught.
    let uncaught = CATCHES.replace(
        "try { pick([], 3); } catch (e) { shown.stack = String((e as Error).stack); }",
        "      pick([], 3);",
    );
    let out = run(&mut a, &uncaught);
    assert_eq!(ack(&out).status, RunStatus::Threw);
    assert_eq!(out.error_location.as_deref(), Some(PICK_THROW));
    let error = ack(&out).error.clone().unwrap();
    assert!(error.starts_with("Error: no row 3\n"), "{error}");
    let uncaught = frames(&error);
    let caught = frames(&caught);
    assert_eq!(uncaught[0], format!("pick {PICK_THROW}"), "{error}");
    assert_eq!(caught[0], format!("pick ({PICK_THROW})"));
    // Each program is its own file (`p2.ts`, `p3.ts`); the line and column
    // of the call are the same in both.
    assert_eq!(uncaught.len(), 2, "{error}");
    assert!(uncaught[1].ends_with(".ts:6:7"), "{error}");
    assert!(caught[1].ends_with(".ts:6:7"), "{caught:?}");
}

#[test]
fn a_revision_and_later_runs_show_the_same_stack() {
    let mut a = agent();
    saved(&mut a, ROW_TOOLS, "writeMemory");
    // Each program is its own file (`p2.ts`, `p3.ts`): compared without it.
    let stack = |a: &mut Agent| {
        let stack = exported(a, CATCHES);
        let program = frames(&stack)[1].rsplit_once(".ts:").unwrap().0.to_string();
        stack.replace(&program, "program")
    };
    let first = stack(&mut a);
    assert_eq!(
        first,
        format!("Error: no row 3\n    at pick ({PICK_THROW})\n    at program.ts:6:7")
    );
    assert_eq!(
        stack(&mut a),
        first,
        "another run, another specifier, one stack"
    );
    saved(&mut a, ROW_TOOLS_REVISED, "updateMemory");
    assert_eq!(stack(&mut a), first, "pick did not move");
}

#[test]
fn a_stack_frame_api_reads_typescript_positions() {
    let mut a = agent();
    saved(&mut a, ROW_TOOLS, "writeMemory");
    let sites = exported(
        &mut a,
        r#"import { pick } from "rowTools";
const original = (Error as any).prepareStackTrace;
(Error as any).prepareStackTrace = (_e: Error, sites: any[]) =>
  sites.map((s) => `${s.getFileName()}:${s.getLineNumber()}:${s.getColumnNumber()}`).join(" ");
let sites = "";
try { pick([], 3); } catch (e) { sites = String((e as Error).stack); }
(Error as any).prepareStackTrace = original;
export default sites;
"#,
    );
    assert!(sites.starts_with(&format!("{PICK_THROW} ")), "{sites}");
    assert!(sites.ends_with(".ts:6:7"), "{sites}");
    assert!(!sites.contains("gg:"), "{sites}");
}

#[test]
fn isolates_from_the_pool_map_the_agents_they_are_bound_to() {
    let mut profile = profile();
    // As `agent_with` has it, so the warm isolates fit.
    profile.programs.time_ms = profile.programs.time_ms.min(1_000);
    profile.programs.heap_mib = profile.programs.heap_mib.min(128);
    let pooled = || {
        let made = Agent::prewarm(&profile, 1).expect("prewarm");
        assert_eq!(
            made, 1,
            "the pool was empty: the last agent took its isolate"
        );
        Agent::new(AgentOptions::new(profile.clone())).expect("agent")
    };
    // Two agents in turn, each bound to a warm isolate when it first runs;
    // the pool is left empty (a warm isolate must not outlive the thread).
    for _ in 0..2 {
        let mut a = pooled();
        saved(&mut a, ROW_TOOLS, "writeMemory");
        let stack = exported(&mut a, CATCHES);
        assert!(stack.contains(&format!("pick ({PICK_THROW})")), "{stack}");
    }
}

#[test]
fn every_name_a_stack_frame_gives_is_the_display_name() {
    let mut a = agent();
    saved(&mut a, ROW_TOOLS, "writeMemory");
    let sites = exported(
        &mut a,
        r#"import { pick } from "rowTools";
(Error as any).prepareStackTrace = (_e: Error, sites: any[]) =>
  sites.map((s) => [s.getFileName(), s.getScriptNameOrSourceURL(), String(s)].join(" | ")).join("\n");
let sites = "";
try { pick([], 3); } catch (e) { sites = String((e as Error).stack); }
(Error as any).prepareStackTrace = undefined;
export default sites;
"#,
    );
    let lines: Vec<&str> = sites.lines().collect();
    assert_eq!(
        lines[0],
        format!("rowTools.ts | rowTools.ts | pick ({PICK_THROW})"),
        "{sites}"
    );
    // The program's own frame: its name (`p2.ts`) three times over.
    let program = lines[1].split(" | ").next().unwrap();
    assert!(
        program.ends_with(".ts") && !program.contains(':'),
        "{sites}"
    );
    assert_eq!(
        lines[1],
        format!("{program} | {program} | {program}:5:7"),
        "{sites}"
    );
    assert!(!sites.contains("gg:"), "{sites}");
}
