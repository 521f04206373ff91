//! Programs of the classes that have broken the limits before, generated
//! from the input's bytes rather than mutated as text: huge array-likes
//! into every `Array.prototype` method, long strings into every `String`,
//! Intl and encoding entry point, big typed arrays, DAGs, cycles and sparse
//! arrays into `structuredClone`, large WebAssembly modules and memories,
//! loops inside getters of the exported value, terminal escapes into the
//! console. The oracle is the limits themselves (200 ms, 32 MiB): a turn
//! whose thread spent more CPU time than 2 × its time limit + 1 s (CPU
//! time, so that a loaded machine's waiting is not taken for a native loop
//! the interrupt missed), or that took more than 4 × that by the clock (a
//! wait nothing ended), a peak resident set more than
//! 2 × its heap limit over where the turn began, gg's own error, an escape
//! reaching the operator's log unescaped, or a next turn that does not run
//! is a finding.
#![no_main]

use std::cell::RefCell;
use std::mem::ManuallyDrop;
use std::time::{Duration, Instant};

use gg_module::{Profile, RunStatus};
use gg_runtime::{Agent, AgentOptions, Response};
use libfuzzer_sys::fuzz_target;

/// The turn's time limit (ms).
const TIME_MS: u64 = 200;
/// The heap limit (MiB).
const HEAP_MIB: u64 = 32;

const ARRAY_METHODS: &[&str] = &[
    "at",
    "concat",
    "copyWithin",
    "entries",
    "every",
    "fill",
    "filter",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "flat",
    "flatMap",
    "forEach",
    "includes",
    "indexOf",
    "join",
    "keys",
    "lastIndexOf",
    "map",
    "pop",
    "push",
    "reduce",
    "reduceRight",
    "reverse",
    "shift",
    "slice",
    "some",
    "sort",
    "splice",
    "toLocaleString",
    "toReversed",
    "toSorted",
    "toSpliced",
    "toString",
    "unshift",
    "values",
    "with",
];

const STRING_METHODS: &[&str] = &[
    "at",
    "charAt",
    "codePointAt",
    "concat",
    "endsWith",
    "includes",
    "indexOf",
    "isWellFormed",
    "lastIndexOf",
    "localeCompare",
    "match",
    "matchAll",
    "normalize",
    "padEnd",
    "padStart",
    "repeat",
    "replace",
    "replaceAll",
    "search",
    "slice",
    "split",
    "startsWith",
    "substring",
    "toLocaleLowerCase",
    "toLocaleUpperCase",
    "toLowerCase",
    "toUpperCase",
    "toWellFormed",
    "trim",
    "trimEnd",
    "trimStart",
];

const TYPED_METHODS: &[&str] = &[
    "copyWithin",
    "every",
    "fill",
    "filter",
    "find",
    "forEach",
    "includes",
    "indexOf",
    "join",
    "lastIndexOf",
    "map",
    "reduce",
    "reverse",
    "set",
    "slice",
    "some",
    "sort",
    "subarray",
    "toLocaleString",
    "toReversed",
    "toSorted",
    "toString",
    "with",
];

/// Lengths a program controls, from the engine's extremes down.
const LENGTHS: &[&str] = &[
    "2 ** 53 - 1",
    "2 ** 32 - 1",
    "2 ** 32",
    "2 ** 31 - 1",
    "1e9",
    "1e8",
    "2 ** 30",
];

/// Arguments a method may be handed.
const ARGUMENTS: &[&str] = &[
    "",
    "1",
    "0, 1",
    "(x) => x",
    "(a, b) => 0",
    "0, 2 ** 53 - 1",
    "-1",
    "\"\"",
    "Infinity",
    "undefined, 2 ** 32 - 1",
];

/// Texts many times over: the pieces and how many times.
const PIECES: &[&str] = &[
    "a",
    "\\u00e9",
    "\\ud83d\\ude00",
    "ab ",
    "\\u0301",
    "\\x01",
    "\\u2028",
];
const COUNTS: &[u64] = &[
    1 << 10,
    1 << 16,
    1 << 20,
    1 << 22,
    1 << 24,
    1 << 25,
    1 << 27,
];

/// Bytes read one at a time, as small choices.
struct Choices<'a>(&'a [u8]);

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn pick<'t, T>(&mut self, from: &'t [T]) -> &'t T {
        &from[self.byte() as usize % from.len()]
    }
    fn below(&mut self, n: u64) -> u64 {
        let wide = u16::from_le_bytes([self.byte(), self.byte()]) as u64;
        wide % n.max(1)
    }
}

/// A WebAssembly module with `functions` functions of `locals` locals each
/// and a memory of `pages` pages (max `max_pages`), as a JavaScript array
/// literal of its bytes.
fn wasm_module(functions: u64, locals: u64, pages: u64, max_pages: u64) -> String {
    fn leb(mut n: u64, out: &mut Vec<u8>) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }
    fn section(id: u8, body: Vec<u8>, out: &mut Vec<u8>) {
        out.push(id);
        leb(body.len() as u64, out);
        out.extend(body);
    }
    let mut m = vec![0, b'a', b's', b'm', 1, 0, 0, 0];
    // type: () -> ()
    section(1, vec![1, 0x60, 0, 0], &mut m);
    let mut funcs = Vec::new();
    leb(functions, &mut funcs);
    for _ in 0..functions {
        funcs.push(0);
    }
    section(3, funcs, &mut m);
    let mut memory = vec![1, 1];
    leb(pages, &mut memory);
    leb(max_pages.max(pages), &mut memory);
    section(5, memory, &mut m);
    let mut code = Vec::new();
    leb(functions, &mut code);
    for _ in 0..functions {
        let mut body = Vec::new();
        body.push(1);
        leb(locals, &mut body);
        body.push(0x7f); // i32
                         // Touch the last local, then a block per few locals.
        body.push(0x20);
        leb(locals.saturating_sub(1), &mut body);
        body.push(0x1a); // drop
        body.push(0x0b);
        leb(body.len() as u64, &mut code);
        code.extend(body);
    }
    section(10, code, &mut m);
    let bytes: Vec<String> = m.iter().map(u8::to_string).collect();
    format!("new Uint8Array([{}])", bytes.join(","))
}

/// The program the bytes choose.
fn program(data: &[u8]) -> String {
    let mut c = Choices(data);
    let class = c.byte() % 10;
    let body = match class {
        0 => format!(
            "const r = Array.prototype.{}.call({{ length: {} }}, {});",
            c.pick(ARRAY_METHODS),
            c.pick(LENGTHS),
            c.pick(ARGUMENTS)
        ),
        1 => format!(
            "const r = new Array({}).{}({});",
            c.pick(&["2 ** 32 - 1", "2 ** 31", "1e8", "2 ** 24"]),
            c.pick(ARRAY_METHODS),
            c.pick(ARGUMENTS)
        ),
        2 => format!(
            "const s = \"{}\".repeat({}); const r = s.{}({});",
            c.pick(PIECES),
            c.pick(COUNTS),
            c.pick(STRING_METHODS),
            c.pick(&["", "s", "\"a\"", "/a*b/g", "\"NFD\"", "2 ** 28", "\"de\""])
        ),
        3 => format!(
            "const t = new {}({}); const r = t.{}({});",
            c.pick(&["Uint8Array", "Float64Array", "BigInt64Array", "Uint16Array"]),
            c.pick(&["2 ** 20", "2 ** 24", "2 ** 26", "2 ** 28"]),
            c.pick(TYPED_METHODS),
            c.pick(&["", "1", "(x) => x", "0, 2 ** 28", "t"])
        ),
        4 => {
            let depth = 20 + c.below(50);
            match c.byte() % 4 {
                0 => format!("let x: any = [1]; for (let i = 0; i < {depth}; i++) x = [x, x]; const r = structuredClone(x);"),
                1 => format!("const x: any = []; x.length = {}; x[7] = 1; const r = structuredClone(x);", c.pick(LENGTHS)),
                2 => format!("let x: any = {{}}; for (let i = 0; i < {depth}; i++) x = {{ a: x, b: x, c: new Map([[x, x]]) }}; const r = structuredClone(x);"),
                _ => format!("const x: any = {{}}; x.self = x; x.list = Array({}); const r = structuredClone(x);", c.pick(&["1e6", "2 ** 30", "2 ** 32 - 1"])),
            }
        }
        5 => {
            let functions = 1 + c.below(2000);
            let locals = c.below(60_000);
            let pages = c.below(1 << 15);
            let max_pages = pages + c.below(1 << 16);
            let grow = c.below(1 << 16);
            format!(
                "const m = new WebAssembly.Module({}); const i = new WebAssembly.Instance(m); const r = (i.exports as any).memory?.grow?.({grow}) ?? new WebAssembly.Memory({{ initial: {pages}, maximum: {max_pages} }}).grow({grow});",
                wasm_module(functions, locals, pages.min(1 << 10), max_pages.min(1 << 16))
            )
        }
        6 => format!(
            "const s = \"{}\".repeat({}); const r = {};",
            c.pick(PIECES),
            c.pick(COUNTS),
            c.pick(&[
                "[...new Intl.Segmenter(\"en\", { granularity: \"word\" }).segment(s)].length",
                "s.localeCompare(s + \"b\")",
                "new Intl.Collator(\"de\").compare(s, s)",
                "s.toLocaleUpperCase(\"tr\")",
                "s.normalize(\"NFKD\").length",
                "new TextDecoder().decode(new TextEncoder().encode(s)).length",
                "btoa(unescape(encodeURIComponent(s))).length",
                "JSON.stringify(s).length",
                "new Intl.ListFormat(\"en\").format(Array(1 << 20).fill(s.slice(0, 8)))",
                "new Intl.NumberFormat(\"en\").format(s.length)",
                "encodeURIComponent(s).length",
                "escape(s).length",
            ])
        ),
        7 => format!(
            "const r = {{ get value() {{ return Array.prototype.{}.call({{ length: {} }}, 1); }} }};",
            c.pick(ARRAY_METHODS),
            c.pick(LENGTHS)
        ),
        8 => format!(
            "const r = {};",
            c.pick(&[
                "(10n ** 1000000n).toString().length",
                "BigInt(\"1\".repeat(1 << 20)) * BigInt(\"9\".repeat(1 << 20))",
                "JSON.parse(\"[\".repeat(1 << 20) + \"]\".repeat(1 << 20))",
                "/(a|aa)*$/.test(\"a\".repeat(1 << 16) + \"b\")",
                "Reflect.apply(Math.max, null, { length: 2 ** 32 - 1 })",
                "String.fromCharCode.apply(null, { length: 2 ** 24 } as any).length",
                "Object.keys(new Proxy({}, { ownKeys: () => Array.from({ length: 1e7 }, (_, i) => String(i)) })).length",
                "Array.from({ length: 2 ** 32 - 1 }).length",
                "[...Array(2 ** 26).keys()].length",
                "new Array(2 ** 32 - 1).join(\"ab\").length",
            ])
        ),
        _ => format!(
            "console.log(\"{}\"); const r = \"{}\";",
            c.pick(&[
                "\\u001b[2J\\u001b[H",
                "\\u001b]0;owned\\u0007",
                "\\u001b]52;c;b3duZWQ=\\u0007",
                "\\u001b]8;;http://x\\u001b\\\\link\\u001b]8;;\\u001b\\\\",
                "\\u009b31m",
                "\\r\\u202eevil",
            ]),
            c.pick(&["\\u001b[31m", "\\u0007", "\\u009b2J"])
        ),
    };
    format!("{body}\nexport default r;\n")
}

/// This process's peak resident set (VmHWM), in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// The CPU time this thread has spent, user and system (Linux; 10 ms
/// ticks, which is fine grain for a bound of seconds).
fn thread_cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // Fields after the command name, which is in parentheses and may hold
    // spaces: state is the first, utime the 12th, stime the 13th.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|t| t.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// Resets the peak resident set to the current one (Linux 4.0+).
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

thread_local! {
    // Never dropped: at process exit the engine's own thread-locals may
    // already be gone when this one is destroyed.
    static AGENT: RefCell<Option<ManuallyDrop<Agent>>> = const { RefCell::new(None) };
    /// Turns the agent has run since its window was last compacted.
    static TURNS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// The agent's window is compacted every this many turns, as a host would
/// compact a model's context: its thread (each turn's program and
/// acknowledgement, values up to 64 Ki characters) would otherwise grow the
/// process by hundreds of MB over a long run.
const TURNS_PER_WINDOW: u32 = 500;

fn agent() -> Agent {
    let mut profile = Profile::default();
    profile.programs.time_ms = TIME_MS;
    profile.programs.heap_mib = HEAP_MIB;
    Agent::new(AgentOptions::new(profile)).expect("an agent")
}

fuzz_target!(|data: &[u8]| {
    let source = program(data);
    AGENT.with(|slot| {
        let mut slot = slot.borrow_mut();
        let agent: &mut Agent = slot.get_or_insert_with(|| ManuallyDrop::new(agent()));
        if TURNS.with(|n| n.replace(n.get() + 1)) >= TURNS_PER_WINDOW {
            TURNS.with(|n| n.set(0));
            agent
                .compact("the fuzz target's window, compacted")
                .expect("compaction");
        }
        reset_peak_rss();
        let before = peak_rss();
        let started = Instant::now();
        let cpu_before = thread_cpu_time();
        let outcome = agent.turn(Response::program(source.clone()));
        let elapsed = started.elapsed();
        let cpu = thread_cpu_time().saturating_sub(cpu_before);
        let grew = peak_rss().saturating_sub(before);
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => panic!("the turn failed inside gg: {e}\n{source}"),
        };
        let margin = Duration::from_millis(
            std::env::var("GG_FUZZ_MARGIN_MS")
                .ok()
                .and_then(|ms| ms.parse().ok())
                .unwrap_or(2 * TIME_MS + 1000),
        );
        assert!(
            cpu < margin,
            "the turn ran {cpu:?} of CPU time against a {TIME_MS} ms limit:\n{source}"
        );
        assert!(
            elapsed < 4 * margin,
            "the turn took {elapsed:?} by the clock against a {TIME_MS} ms limit:\n{source}"
        );
        assert!(
            grew <= 2 * HEAP_MIB * 1024 * 1024,
            "the turn grew the process by {} MiB against a {HEAP_MIB} MiB heap:\n{source}",
            grew >> 20
        );
        if let Some(ack) = &outcome.acknowledgement {
            let logged = gg_runtime::untrusted(&ack.render()).to_string();
            assert!(
                !logged
                    .chars()
                    .any(|c| c == '\u{1b}' || c == '\u{7}' || ('\u{80}'..='\u{9f}').contains(&c)),
                "a control character reaches the log unescaped: {logged:?}"
            );
        }
        // The next turn runs. Its time limit is the wall clock's, so on a
        // loaded machine a trivial program can meet it (a limit on the
        // program's CPU time is another issue's): a broken agent fails
        // every try, a slow machine rarely two in a row.
        let mut tries = Vec::new();
        for _ in 0..3 {
            let next = agent
                .turn(Response::program(
                    "export default [1, 2].length;".to_string(),
                ))
                .expect("the next turn");
            let ack = next.acknowledgement.expect("an acknowledgement");
            if (ack.status, ack.value.as_deref()) == (RunStatus::Ok, Some("2")) {
                return;
            }
            tries.push(format!("{:?} {:?}", ack.status, ack.error));
        }
        panic!("the next turn did not run after:\n{source}\n{tries:?}");
    });
});
