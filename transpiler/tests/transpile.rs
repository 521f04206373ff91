//! The transpiler's entry point: output, located diagnostics, the size
//! guard, declared functions and module keys.

use gg_transpiler::{transpile, SourcePosition, TranspileError, MAX_SOURCE_CHARS};

fn js(ts: &str) -> String {
    transpile(ts, "t.ts")
        .unwrap_or_else(|e| panic!("transpile failed: {e}"))
        .code
}

#[test]
fn strips_types_interfaces_and_satisfies() {
    let out = js(r#"
interface Row { a: string; b?: number }
type Pair = [string, number];
const row = { a: "x" } satisfies Row;
function f<T>(x: T, y: Pair): T { return x as T; }
let n!: number;
export default f(row, ["a", 1] as Pair);
"#);
    assert!(!out.contains("interface"), "{out}");
    assert!(!out.contains("satisfies"), "{out}");
    assert!(!out.contains(": T"), "{out}");
    assert!(out.contains("export default f(row"), "{out}");
}

#[test]
fn lowers_enums_and_namespaces() {
    let out = js("enum Color { Red, Green = 5 }\nnamespace NS { export const x = 1; }\nexport default [Color.Green, NS.x];");
    assert!(!out.contains("enum Color"), "{out}");
    assert!(out.contains("Color"), "{out}");
    assert!(!out.contains("namespace"), "{out}");
}

#[test]
fn syntax_errors_are_located_with_line_col_and_caret() {
    let err = transpile("const a = 1;\nconst b = ;\n", "bad.ts").unwrap_err();
    assert_eq!(err.code(), "invalid-argument");
    let diags = err.diagnostics();
    assert!(!diags.is_empty());
    assert_eq!((diags[0].line, diags[0].column), (2, 11), "{err}");
    let text = err.to_string();
    assert!(text.contains("bad.ts:2:11:"), "{text}");
    assert!(text.contains("2 | const b = ;"), "{text}");
    assert!(text.contains("  |           ^"), "{text}");
}

#[test]
fn an_enum_member_cut_off_by_the_end_is_a_syntax_error_not_a_compiler_crash() {
    // Found by the transpile fuzz target: swc_ecma_parser's debug assertion
    // fired here, so debug builds reported gg's own compiler failure.
    for src in ["enum r{o r", "enum E { a b", "const enum E { x y"] {
        let err = transpile(src, "e.ts").unwrap_err();
        assert!(
            matches!(err, TranspileError::Invalid(_)),
            "{src:?}: {err:?}"
        );
        assert_eq!(err.code(), "invalid-argument", "{src:?}");
        assert!(err.to_string().contains("e.ts:1:"), "{err}");
    }
}

#[test]
fn an_invalid_escape_in_a_template_after_a_unary_operator_is_a_located_syntax_error() {
    // The operand fails on the escape, the parser recovers, and a line break
    // ends the statement before the same template token: swc_ecma_parser
    // read that token's value a second time and panicked (found by the
    // transpile fuzz target; gg's patched parser consumes the token first).
    let cases = [
        ("+\n`\\2`", "e.ts:2:2:"),
        ("!\n`\\x`\n`y`", "e.ts:2:2:"),
        ("typeof\n`\\2${1}x\\3`", "e.ts:2:2:"),
        ("+\n`a${1}\\2`", "e.ts:2:7:"),
        ("void `\\2`", "e.ts:1:7:"),
    ];
    for (src, at) in cases {
        let err = transpile(src, "e.ts").unwrap_err();
        assert!(
            matches!(err, TranspileError::Invalid(_)),
            "{src:?}: {err:?}"
        );
        assert!(err.to_string().contains(at), "{src:?}: {err}");
    }
    // Tagged, the same escapes are valid (a template with no cooked text).
    assert!(transpile("String.raw\n`\\2`", "e.ts").is_ok());
    assert!(js("const x = +\n`1`;").contains("const x = +"));
}

#[test]
fn a_lone_carriage_return_ends_a_line_in_diagnostics_too() {
    // Found by the transpile fuzz target: swc counts `\r` as a line break,
    // the quoted source line did not, so it showed the wrong (empty) line.
    for src in [
        "const a = 1;\rconst b = ;\n",
        "const a = 1;\r\nconst b = ;\n",
        "const a = 1;\nconst b = ;\r",
    ] {
        let err = transpile(src, "cr.ts").unwrap_err();
        let d = &err.diagnostics()[0];
        assert_eq!((d.line, d.column), (2, 11), "{src:?}: {err}");
        assert_eq!(d.source_line, "const b = ;", "{src:?}");
    }
}

#[test]
fn over_the_cap_is_refused_before_parsing() {
    // Not even valid TypeScript: the guard answers before the parser runs.
    let source = "@".repeat(MAX_SOURCE_CHARS + 1);
    let err = transpile(&source, "big.ts").unwrap_err();
    assert_eq!(err.code(), "limit-exceeded");
    assert!(matches!(
        err,
        TranspileError::TooLong {
            chars: 32769,
            limit: 32768,
            ..
        }
    ));
    assert!(
        err.to_string()
            .contains("over the 32768-character limit by 1"),
        "{err}"
    );
}

#[test]
fn a_program_that_makes_the_parser_guess_without_end_is_refused_where_it_stopped() {
    // Each `<` could open type arguments, and each `{[` an index signature
    // or a computed key: the parser tries one reading, rolls back and tries
    // the other, so its work multiplies with every level. Unbounded, the
    // fuzzer's 436-byte case ran five minutes; the shortest here would not
    // end this year.
    let cases = [
        "a<{[".repeat(40),
        "i<({[".repeat(40),
        format!("const x = 1;\nexport default {};\n", "i<i<{[".repeat(40)),
        "i<{[i<i<({[i<i<{[i<([[\"".to_string(),
    ];
    for source in cases {
        let Err(TranspileError::Invalid(diagnostics)) = transpile(&source, "knot.ts") else {
            panic!("not refused: {source}");
        };
        let first = &diagnostics[0];
        assert!(
            first.message.contains("too intricate to parse")
                && first.message.contains("Put comparisons in parentheses"),
            "{first:?}"
        );
        // The line is quoted, around the column where a line is long.
        let line = source.lines().nth(first.line - 1).unwrap_or_default();
        let quoted: String = line
            .chars()
            .skip(first.source_line_start)
            .take(first.source_line.chars().count())
            .collect();
        assert_eq!(quoted, first.source_line, "{first:?}");
    }
}

#[test]
fn an_unterminated_template_after_type_arguments_is_a_syntax_error_not_a_compiler_crash() {
    // The parser guessed a tagged template `f<T>\`…\``, moved the tag out
    // of the expression before reading the template, and when the template
    // failed went on with an expression that had lost its tag (and its
    // position, which checked builds refuse with a panic).
    for source in [
        "a<b<>`${",
        "x < f<T>`${",
        "declare const f: any\nf<string>`a${1",
    ] {
        let Err(TranspileError::Invalid(diagnostics)) = transpile(source, "tpl.ts") else {
            panic!("{source:?}: not a syntax error");
        };
        assert!(!diagnostics.is_empty(), "{source:?}");
    }
    let fine = transpile("declare const f: any\nf<string>`x${1}y`\n", "tpl.ts").unwrap();
    assert!(fine.code.contains("`x${1}y`"), "{}", fine.code);
}

#[test]
fn an_error_in_the_token_read_ahead_after_type_arguments_is_reported() {
    // After `f<string>` the parser reads the next token to decide between a
    // call and an instantiation expression, while errors are muted for the
    // guess. The token is kept; its error must be too, as it is without the
    // type arguments (a merge-conflict marker was skipped like a comment).
    let cases = [
        (
            "f<string>\n>>>>>>> theirs\nconsole.log(1)\n",
            "Merge conflict marker",
            2,
        ),
        ("f<string>\n>>>>>>> theirs\n", "Merge conflict marker", 2),
        ("let v = 1 <\n<<<<<<< ours\n2\n", "Merge conflict marker", 2),
        ("declare const f: any\nf<string>\n010\n", "octal", 3),
        ("f\n>>>>>>> theirs\n", "Merge conflict marker", 2),
    ];
    for (source, says, line) in cases {
        let Err(TranspileError::Invalid(diagnostics)) = transpile(source, "merge.ts") else {
            panic!("accepted: {source:?}");
        };
        assert!(
            diagnostics
                .iter()
                .any(|d| d.message.contains(says) && d.line == line),
            "{source:?}: {diagnostics:?}"
        );
    }
    // What a guess reads and then un-reads is not reported twice or at all.
    let fine = "declare const f: any, a: number, b: number\nconst c = f<string>(1) + (a < b ? 1 : 2)\nconst g = f<string>\n;(a)\n";
    transpile(fine, "fine.ts").unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn generic_heavy_typescript_at_the_cap_is_well_within_the_parser_budget() {
    // Nested type arguments, index signatures, mapped types, arrows with
    // type parameters and comparisons: every speculation the parser makes
    // on real code, as much of it as the size cap admits.
    let unit = "f<{ a: { [k: string]: Array<[number, { [K in 'x']: T }]> } }>(g<T>((a: { b: number }) => <U,>(c: U) => (x < y) && y > (x < (y)), h<string>(z)));\n";
    let mut source = String::from(
        "declare const f: any, g: any, h: any, x: number, y: number, z: unknown;\ntype T = number;\n",
    );
    while source.len() + unit.len() <= MAX_SOURCE_CHARS {
        source.push_str(unit);
    }
    let out = transpile(&source, "generics.ts").unwrap_or_else(|e| panic!("{e}"));
    assert!(out.code.matches("(g").count() > 100, "{}", &out.code[..200]);
}

#[test]
fn a_compiler_crash_is_an_internal_failure_not_bad_input() {
    gg_transpiler::fault_injection::force_internal_failure();
    let err = transpile("export const a = 1;", "x.ts").unwrap_err();
    assert!(matches!(err, TranspileError::Internal(_)), "{err:?}");
    assert_eq!(err.code(), "io-error");
    // The hook fires once; the next transpile is normal.
    assert!(transpile("export const a = 1;", "x.ts").is_ok());
}

#[test]
fn positions_map_back_to_the_typescript() {
    let ts = "interface A {\n  x: number;\n}\ntype B = string;\n\nconst boom: number = 1;\nthrow new Error('x' + boom);\n";
    let out = transpile(ts, "p.ts").unwrap();
    let gen_line = out.code.lines().position(|l| l.contains("throw")).unwrap() + 1;
    let original = out
        .positions
        .original(SourcePosition {
            line: gen_line,
            column: 1,
        })
        .unwrap();
    assert_eq!(original.line, 7);
}

#[test]
fn lists_declared_functions_with_signatures_and_docs() {
    let out = transpile(
        r#"
/** Parses CSV whose third column is quoted inconsistently. */
export function parseCsv(text: string, sep: string = ","): string[][] { return []; }
function helper(x: number) { return x; }
export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
export async function load<T>(key: string): Promise<T> { return null as T; }
function renamed() {}
export { renamed as alias };
"#,
        "m.ts",
    )
    .unwrap();
    let d = out.declared();
    let names: Vec<_> = d.iter().map(|f| (f.name.as_str(), f.exported)).collect();
    assert_eq!(
        names,
        [
            ("parseCsv", true),
            ("helper", false),
            ("mean", true),
            ("load", true),
            ("alias", true)
        ]
    );
    assert_eq!(
        d[0].signature,
        "parseCsv(text: string, sep: string = \",\"): string[][]"
    );
    assert_eq!(
        d[0].doc.as_deref(),
        Some("Parses CSV whose third column is quoted inconsistently.")
    );
    assert_eq!(d[0].line, 3);
    assert_eq!(d[2].signature, "mean(xs: number[]): number");
    assert_eq!(d[3].signature, "async load<T>(key: string): Promise<T>");
    assert_eq!(d[4].signature, "alias()");
}

#[test]
fn an_overloaded_function_is_one_entry_of_its_overload_signatures() {
    let out = transpile(
        r#"
/** Doubles a number or repeats a string. */
export function twice(x: number): number;
export function twice(x: string): string;
export function twice(x: any): any { return typeof x === "number" ? x * 2 : x + x; }
export function plain(): void {}
"#,
        "m.ts",
    )
    .unwrap();
    let d = out.declared();
    assert_eq!(d.len(), 2, "{d:?}");
    assert_eq!(d[0].name, "twice");
    assert_eq!(
        d[0].signature,
        "twice(x: number): number\ntwice(x: string): string"
    );
    assert_eq!(
        d[0].doc.as_deref(),
        Some("Doubles a number or repeats a string.")
    );
    assert_eq!(d[1].signature, "plain(): void");
}

#[test]
fn hostile_inputs_never_panic() {
    for src in [
        "",
        "(((((((((",
        "`${",
        "/*",
        "<T>(x)=>x",
        "enum {",
        "\u{0}",
        "class { #x; }",
        &"[".repeat(5000),
    ] {
        let _ = transpile(src, "h.ts");
    }
}

#[test]
fn the_deepest_nesting_the_guard_admits_does_not_overflow() {
    let n = MAX_SOURCE_CHARS / 2 - 8;
    let sources = [
        format!("export default {}1{};", "[".repeat(n), "]".repeat(n)),
        format!("export default {}1{};", "(".repeat(n), ")".repeat(n)),
        format!("export default 1{};", "+1".repeat(n)),
        format!("export default {}", "!".repeat(MAX_SOURCE_CHARS - 20) + "1"),
        "[".repeat(MAX_SOURCE_CHARS),
        "{".repeat(MAX_SOURCE_CHARS),
    ];
    for src in &sources {
        let _ = transpile(src, "deep.ts");
    }
}

#[test]
fn a_property_with_a_default_outside_a_pattern_is_a_located_syntax_error() {
    // Found by the transpile fuzz target: swc's parser reports `{ a = 0 }`
    // only inside parentheses, so gg passed it on for the engine to refuse
    // at load, and the erased and fully compiled forms printed differently.
    let cases = [
        (
            "throw { valur = 0,\n  Hiwait = (vr!,or), code: 4 };\n",
            "e.ts:1:9:",
            "valur",
        ),
        ("const x = {a = 0};", "e.ts:1:12:", "a"),
        ("f({ a = 0 });", "e.ts:1:5:", "a"),
        ("let y = [{b: {c = 2}}];", "e.ts:1:15:", "c"),
        ("function g({ a = { b = 1 } }) {}", "e.ts:1:20:", "b"),
        (
            "export default () => { return { a = 1 }; };",
            "e.ts:1:33:",
            "a",
        ),
    ];
    for (src, at, key) in cases {
        let err = transpile(src, "e.ts").unwrap_err();
        assert!(
            matches!(err, TranspileError::Invalid(_)),
            "{src:?}: {err:?}"
        );
        let text = err.to_string();
        assert!(text.contains(at), "{src:?}: {text}");
        assert!(
            text.contains("destructuring pattern") && text.contains(&format!("`{key}: …`")),
            "{src:?}: {text}"
        );
    }
    // Every place the grammar makes such an object a pattern still compiles.
    for src in [
        "let a, c; ({ a = 0 } = {});",
        "let a; for ({ a = 1 } of [{}]) ;",
        "let a, c; [{ a = 1 }, { b: { c = 2 } }] = [{}, { b: {} }];",
        "const f = ({ a = 1 }, [{ b = 2 }] = [{}]) => a + b;",
        "const g = async ({ a = 1 }) => a;",
        "for (const { a = 1 } of [{}]) ;",
        "let { a = 1, ...rest } = {} as { a?: number };",
        "class C { m({ a = 1 }: { a?: number }) { return a; } }",
    ] {
        transpile(src, "ok.ts").unwrap_or_else(|e| panic!("{src:?}: {e}"));
    }
}

/// A program of many problems costs a bounded report: nested labels of one
/// name are one problem each (not one per enclosing namesake), at most
/// twenty are located, each quoting at most a window of its line.
#[test]
fn a_program_of_many_problems_is_reported_in_bounded_words() {
    for source in [
        format!("{};", "a:".repeat(16_000)),
        format!("export default {}", "-".repeat(32_000)),
    ] {
        let Err(TranspileError::Invalid(diagnostics)) = transpile(&source, "many.ts") else {
            panic!("{} bytes were accepted", source.len());
        };
        assert!(diagnostics.len() <= 20, "{}", diagnostics.len());
        let words: usize = diagnostics.iter().map(|d| d.to_string().len()).sum();
        assert!(words < 20 * 1024, "{words} bytes of diagnostics");
    }
    // Fifty nested labels of one name: 49 duplicates, not 1 225.
    let Err(TranspileError::Invalid(diagnostics)) =
        transpile(&format!("{};", "a:".repeat(50)), "labels.ts")
    else {
        panic!("accepted");
    };
    let last = &diagnostics.last().expect("diagnostics").message;
    let more: usize = last
        .split("(and ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert_eq!(diagnostics.len() + more, 49, "{last}");
}
