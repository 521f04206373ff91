//! Types erased in place must make the program the full pipeline makes.
//! Each case goes through both pipelines (`differential::both`); whenever
//! the fast path takes a module, its output, parsed and printed again
//! without comments and spare parentheses, must equal the full
//! pipeline's. Cases marked `Erased` must take the fast path (so it cannot
//! quietly stop being used); cases marked `Either` are the hazards whose
//! guard is what keeps them equal.

use gg_transpiler::differential::both;
use gg_transpiler::transpile;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Expect {
    /// The fast path takes it.
    Erased,
    /// The full pipeline takes it: erasing could not keep it the same.
    Full,
    /// Either way; only the outputs' equality is checked.
    Either,
}
use Expect::*;

fn check(name: &str, source: &str, expect: Expect) {
    let result = both(source, &format!("{name}.ts"))
        .unwrap_or_else(|e| panic!("{name}: does not compile: {e}\n{source}"));
    match (&result.erased, expect) {
        (Some(_), Full) => panic!("{name}: erased, but only the full pipeline gets it right"),
        (None, Erased) => panic!("{name}: fell back to the full pipeline\n{source}"),
        _ => {}
    }
    if let Some(erased) = &result.erased {
        assert_eq!(
            erased, &result.full,
            "{name}: erasure changed the program\n--- source\n{source}"
        );
    }
}

#[test]
fn annotations_declarations_and_modifiers_erase_to_the_same_program() {
    let cases: &[(&str, &str)] = &[
        (
            "annotations",
            "let x: number = 1\nconst s: string | undefined = undefined\nfunction f<T extends object = {}>(a: T, b?: string, ...rest: number[]): T { return a }\nf({}, s, x)",
        ),
        (
            "types between statements without semicolons",
            "let a = 1\ninterface I { x: number }\n(a)\ntype T = string\n[a].map(String)\ndeclare const g: number\n`${a}`",
        ),
        (
            "class members",
            "abstract class Base<T> extends Object implements I, J<T> {\n  private readonly x?: number\n  protected y!: string\n  public static z: number = 3\n  declare w: number\n  [key: string]: unknown\n  abstract m(): void\n  override n(this: Base<T>, a?: T): T | undefined { return a }\n  constructor(a: number)\n  constructor(public_: any) { }\n  get g(): number { return 1 }\n  set g(v: number) {}\n  #p?: number\n  static #q: string = 'q'\n}",
        ),
        (
            "a modifier first in a member after a field without a semicolon",
            "const K = Symbol()\nclass C {\n  readonly [K]: boolean = true\n  readonly [Symbol.iterator]: number = 1\n  public ['x']: number = 2\n}\nnew C()",
        ),
        (
            "expression tails",
            "declare const x: unknown\nconst a = x as number\nconst b = x satisfies unknown\nconst c = [1, 2] as const\nconst d = (x as any)!.y!\nconst e = x! as string\nfoo(a)\nconst fn = Array<number>\nnew Map<string, number>()\nf<string>(a)",
        ),
        (
            "arrows over several lines",
            "const f = async <\n  T,\n>(x: T): Promise<\n  T\n> => x\nconst g = (\n  a: number,\n  b?: string,\n): {\n  a: number\n} => ({ a })\nfunction h() {\n  return <\n    T,\n  >(x: T) => x\n}\nfunction* k() {\n  yield <\n    T,\n  >(x: T) => x\n}",
        ),
        (
            "this parameters",
            "function a(this: Window, n: number) { return n }\nfunction b(this: Window) {}\nfunction c(this: Window,) {}\nconst o = { m(this: typeof o, x: number) { return x } }",
        ),
        (
            "overloads and ambient declarations",
            "function f(a: string): string\nfunction f(a: number): number\nfunction f(a: any) { return a }\nexport function g(): void\nexport function g() {}\ndeclare function h(): void\ndeclare class D {}\ndeclare enum E { A }\ndeclare module 'm' { export const x: number }\ndeclare global { interface Window { gg: number } }\nexport declare const v: number\nexport default interface Shape { x: number }\nf(1)",
        ),
        (
            "type-only imports and exports",
            "import type { A } from './a'\nimport { type B, c, D } from './b'\nimport E, { F } from './e'\nimport * as NS from './ns'\nimport G from './g'\nimport './side-effect'\nexport type { A }\nexport { type B }\nexport type * from './t'\nexport * as star from './star'\nexport { z } from './z'\nconst local = 1\nexport { local, local as alias }\nlet y: D = c\nnew E()\ntype N = typeof NS\nconsole.log(y)",
        ),
        (
            "imports read in every value position",
            "import { a, b, c, d, e, f, g, h, T } from './x'\nconst o = { a, [b]: c }\nclass K extends d<T> {}\nlet v: T = e`tag`\nf = 1\ng++\nh += 1",
        ),
        (
            "characters of every UTF-8 length inside types",
            "let s: 'h\u{e9}llo' | '\u{2603}' | '\u{1f600}' = 'h\u{e9}llo'\nconst t = s as '\u{1f600}'\n/* caf\u{e9} */ let u: \u{3b1}\u{3b2} = 1 // \u{1f600}\nconsole.log(t, u)",
        ),
        (
            // The full pipeline renames the parameter away from the global;
            // a consistent renaming is the same program.
            "a parameter named like a global the module assigns",
            "declare const tasks: { done: boolean }[]\nconsole.log(tasks.filter((t: { done: boolean }) => !t.done))\nt = 0",
        ),
        (
            "an @ in literals, comments and types only",
            "/** @since 1 */\nimport { a } from './@scope/a'\nexport * from './@b'\nconst m = 'a@b.c' + `@${a}@` + /@x/.source // @note\ntype T = '@t'\nlet u: '@u' = '@u'\nconsole.log(m, u)",
        ),
        (
            "object literals and patterns of every entry kind",
            "const c = 'c', d = {}, e = 1\nconst o = { /* first */ a: 1 as number, // a comment\n 'b': <T>(x: T) => x, [c]: 3, ...d, e, f(this: unknown, y?: number) {}, async g() {}, get h(): number { return 1 }, set h(v: number) {}, *i() {}, 0: 1, ä: 2, j: e!, }\nconst { a, b: k = 1, ...rest }: { a: number, b?: number } = o as any\nlet m, n\n({ m, n = 2 } = o)\nfunction f({ p, q }: { p: number, q: string } = { p: 1, q: '' }) { return p }",
        ),
        (
            "definite assignment and optional parameters",
            "let x!: number\nlet [a, b]: number[] = [1, 2]\nlet { c }: { c?: number } = {}\nconst f = (p?: number, { q }: { q: number } = { q: 1 }) => p\ntry {} catch (e: unknown) {}\nfor (const i of [1] as number[]) {}",
        ),
    ];
    for (name, source) in cases {
        check(name, source, Erased);
    }
}

#[test]
fn what_erasing_cannot_keep_the_same_goes_through_the_full_pipeline() {
    let cases: &[(&str, &str)] = &[
        ("enum", "enum Color { Red, Green }\nconsole.log(Color.Red)"),
        (
            "namespace",
            "namespace N { export const x = 1 }\nconsole.log(N.x)",
        ),
        (
            "parameter property",
            "class P { constructor(private x: number) {} }",
        ),
        (
            "angle-bracket assertion",
            "declare const x: unknown\nconst y = <number>x",
        ),
        (
            "an import shadowed by a parameter",
            "import { a } from './x'\nfunction f(a: number) { return a }\nf(1)",
        ),
        (
            "a local export of a type",
            "interface T {}\nconst v = 1\nexport { T, v }",
        ),
        (
            "a default export of an import",
            "import { X } from './x'\nexport default X",
        ),
        (
            "import equals",
            "import fs = require('fs')\nfs.readFileSync",
        ),
        (
            "a default binding dropped beside a read one",
            "import D, { e } from './x'\nconsole.log(e)",
        ),
        (
            "an angle-bracket assertion as an arrow's parameter",
            "const f = (<number>x) => x\nconsole.log(f(1))",
        ),
        // swc drops these words before an object's key without an error.
        (
            "a class modifier before an object literal's key",
            "const o = { offset: 4, protected limit: 2 }\nconsole.log(o)",
        ),
        (
            "a modifier before a method and a computed key",
            "const k = 'k'\nconst o = { public a() { return 1 }, b: 2 }\nconst p = { readonly [k]: 2 }\nconsole.log(o, p)",
        ),
        (
            "a modifier after a spread and across a comment and a line break",
            "const x = {}\nconst o = { ...x, public /* c */\n a: 1 }\nconsole.log(o)",
        ),
        (
            "a modifier in an assignment pattern",
            "let a, b\n({ readonly a, protected c: b } = { a: 1, c: 2 })\nconsole.log(a, b)",
        ),
    ];
    for (name, source) in cases {
        check(name, source, Full);
    }
}

#[test]
fn a_removal_that_would_join_two_lines_is_guarded() {
    let cases: &[(&str, &str)] = &[
        ("as, then a call", "declare const x: any\nconst y = x as any\n(globalThis as any).z = 1"),
        ("as, then an array", "declare const x: any\nconst y = x as any\n[1, 2].forEach(String)"),
        ("satisfies, then a template", "const y = 'a' satisfies string\n`b`"),
        (
            "as, a comment, then a call",
            "declare const x: any\nconst y = x as any /* note */\n(y)",
        ),
        (
            "as, a comment holding a Unicode line break, then a call",
            "declare const x: any\nconst y = x as any /*\u{2028}*/ (y)",
        ),
        ("non-null, then a call", "declare const x: any\nconst y = x!\n(y)"),
        (
            "an instantiation expression, then an array",
            "declare function f<T>(): T\nconst g = f<string>\n[1].map(String)",
        ),
        // swc drops a decorator on anything but a class without an error.
        ("a decorator on an expression statement", "declare const e: any\n@e\nnot!"),
        ("a decorator on a variable", "declare const e: any\n@e\nconst v = 1"),
        (
            "a decorator in a block",
            "declare const e: any\nfunction f() {\n  @e\n  const v = 1\n  return v\n}",
        ),
        (
            "a decorator between statements in a case",
            "declare const e: any, k: number\nswitch (k) {\n  case 1:\n    f()\n    @e\n    g()\n}",
        ),
        (
            "a decorator inside an expression",
            "declare const a: number, j: any\nlet x = a\r\n<@j(t) j.k",
        ),
        (
            "fields named like JavaScript modifiers",
            "class A {\n  get: number\n  m() { return 1 }\n  static: string\n  n() {}\n  set: boolean\n  o() {}\n}",
        ),
        (
            "an arrow's return type alone on its line",
            "const f = (a: number)\n  : number => a",
        ),
        (
            "a return type ending in a multi-byte character",
            "const f = (a: number): '\u{e9}' => '\u{e9}'\nconst g = (a: number): {\n  x: '\u{e9}'} => ({ x: '\u{e9}' })",
        ),
    ];
    for (name, source) in cases {
        check(name, source, Either);
    }
}

#[test]
fn an_erased_module_keeps_every_position_and_says_so() {
    let source = "const a: number = 1\ninterface I { x: number }\nexport function f(p?: string): I {\n  throw new Error(p as string)\n}\n";
    let t = transpile(source, "keep.ts").unwrap();
    assert!(t.positions.is_identity());
    assert_eq!(t.code.len(), source.len());
    for (js, ts) in t.code.lines().zip(source.lines()) {
        assert_eq!(js.len(), ts.len());
    }
    let at = t.code.find("throw").unwrap();
    assert_eq!(&source[at..at + 5], "throw");
    // The documentation of declared functions does not depend on the path.
    assert_eq!(t.declared()[0].signature, "f(p?: string): I");
    assert_eq!(t.declared()[0].line, 3);

    let lowered = transpile("enum E { A }\nexport const a = E.A", "lower.ts").unwrap();
    assert!(!lowered.positions.is_identity());
}

#[test]
fn a_byte_order_mark_is_dropped_before_anything_is_counted() {
    let source =
        "\u{feff}export function f(a: number): number { return a }\nlet x: string = \"y\";\n";
    let t = transpile(source, "bom.ts").unwrap();
    assert_eq!(
        t.code,
        "export function f(a        )         { return a }\nlet x         = \"y\";\n"
    );
    assert_eq!(t.declared()[0].signature, "f(a: number): number");
    check("byte-order mark", source, Erased);
    let error = transpile("\u{feff}let x: number = ;", "bom.ts").unwrap_err();
    assert!(error.to_string().contains("bom.ts:1:17"), "{error}");
    // Two marks: a diagnostic is located in the text that was parsed.
    let error = transpile("\u{feff}\u{feff}?\u{fffd} A", "boms.ts").unwrap_err();
    assert!(error.to_string().contains("boms.ts:1:"), "{error}");
    let t = transpile("\u{feff}\u{feff}let y: number = 2;", "boms.ts").unwrap();
    assert_eq!(t.code, "let y         = 2;");
}

/// Type arguments between a call, a tagged template or a non-null
/// assertion and a member access (`f()<T>.x`): swc's parser left them out
/// of the tree, so the full pipeline dropped them while erasure, which
/// blanks only what the tree covers, kept `<T>` as text and made a
/// comparison (found by the transpile fuzz target). gg's patched parser
/// keeps them as an instantiation expression.
#[test]
fn type_arguments_before_a_member_access_after_any_callee_are_erased() {
    for (name, source) in [
        ("call", "declare function f(): { r: number };\nexport default f()<string>.r;\n"),
        ("call_optional", "declare function f(): { r: number } | undefined;\nexport default f()<string>?.r;\n"),
        ("call_optional_index", "declare function f(): number[] | undefined;\nexport default f()<string>?.[0];\n"),
        ("tagged", "declare function t(s: TemplateStringsArray): { r: number };\nexport default t`x`<string>.r;\n"),
        ("tagged_typed", "declare function t<T>(s: TemplateStringsArray): { r: number };\nexport default t<number>\n`\\u0041`<string>.r;\n"),
        ("non_null", "declare const a: { r: number } | null;\nexport default a!<string>.r;\n"),
        ("chained", "declare function f(): { r: { s: number } };\nexport default f()<string>.r<number>?.s;\n"),
    ] {
        check(name, source, Erased);
    }
    // `<` before `[` is a comparison, as TypeScript reads it.
    let out = transpile(
        "declare const f: () => number, h: number;\nexport default f()<h>[0];\n",
        "cmp.ts",
    )
    .expect("compiles");
    assert!(out.code.contains("f()<h>[0]"), "{}", out.code);
}
