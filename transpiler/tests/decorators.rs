//! TypeScript 5 standard decorators: lowered as Deno lowers them, with
//! their helpers inlined, and the legacy parameter form refused by name.

use std::path::{Path, PathBuf};
use std::process::Command;

use gg_transpiler::{transpile, SourcePosition, TranspileError, Transpiled};

fn out(ts: &str) -> Transpiled {
    transpile(ts, "d.ts").unwrap_or_else(|e| panic!("transpile failed: {e}"))
}

/// The lowered module imports nothing it did not import itself, requires
/// nothing and keeps no decorator syntax: the isolate can import only "gg"
/// and memory keys, and its engine does not parse decorators.
fn assert_self_contained(ts: &str, js: &str) {
    let imports = |code: &str| -> Vec<String> {
        code.lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with("import ") || l.starts_with("import{"))
            .map(|l| l.split(['"', '\'']).nth(1).unwrap_or(l).to_string())
            .collect()
    };
    let from_source: Vec<String> = imports(ts);
    for import in imports(js) {
        assert!(
            from_source.contains(&import),
            "import {import:?} is not the source's own:\n{js}"
        );
    }
    assert!(!js.contains("require("), "{js}");
    assert!(!js.contains("@swc/helpers"), "{js}");
    assert!(
        !js.lines().any(|l| l.trim_start().starts_with('@')),
        "a decorator was printed:\n{js}"
    );
}

/// Every kind of member decorator the standard form has, a class
/// decorator with `addInitializer`, and a program that logs what each
/// decorator's `context` said. Also run under Deno below.
const EVERY_KIND: &str = r#"import { fmt } from "gg";
const log: string[] = [];

function logged<This, Args extends any[], R>(
  target: (this: This, ...args: Args) => R,
  context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => R>,
) {
  const name = String(context.name);
  log.push(`decorate ${context.kind} ${name} static=${context.static} private=${context.private}`);
  return function (this: This, ...args: Args): R {
    log.push(`call ${name}`);
    return target.call(this, ...args);
  };
}

function register(value: Function, context: ClassDecoratorContext) {
  log.push(`class ${String(context.name)} kind=${context.kind}`);
  context.addInitializer(function (this: any) {
    log.push(`initialized ${this.name}`);
  });
}

function double(_: undefined, context: ClassFieldDecoratorContext) {
  log.push(`field ${String(context.name)} has=${typeof context.access.has}`);
  return (v: number) => v * 2;
}

function tracked<T, V>(
  target: ClassAccessorDecoratorTarget<T, V>,
  context: ClassAccessorDecoratorContext<T, V>,
): ClassAccessorDecoratorResult<T, V> {
  return {
    get(this: T) { const v = target.get.call(this); log.push(`get ${String(context.name)} -> ${v}`); return v; },
    set(this: T, v: V) { log.push(`set ${String(context.name)} <- ${v}`); target.set.call(this, v); },
    init(v: V) { log.push(`init ${String(context.name)} ${v}`); return v; },
  };
}

function seen(target: Function, context: ClassGetterDecoratorContext | ClassSetterDecoratorContext) {
  log.push(`${context.kind} ${String(context.name)}`);
  context.addInitializer(function () { log.push(`instance init via ${context.kind}`); });
  return target as any;
}

@register
export abstract class Ref {
  @double x: number = 21;
  @tracked accessor count: number = 1;
  @tracked static accessor total = 0;
  #secret = 3;
  declare y: string;
  constructor(private readonly label: string) {}
  @logged greet(who: string): string { return `${this.label} greets ${who}`; }
  @logged static make(): string { return "made"; }
  @logged #hidden(): number { return this.#secret; }
  peek(): number { return this.#hidden(); }
  @seen get size(): number { return this.x; }
  @seen set size(v: number) { this.x = v; }
  abstract kind(): string;
}

class Impl extends Ref { kind() { return "impl"; } }

const r = new Impl("r");
log.push(r.greet("you"), Ref.make(), String(r.peek()), String(r.x));
r.count = 5;
log.push(String(r.count));
r.size = 4;
log.push(String(r.size), r.kind(), typeof fmt);
console.log(log.join("\n"));
"#;

#[test]
fn lowers_class_method_accessor_getter_setter_and_field_decorators() {
    let t = out(EVERY_KIND);
    assert_self_contained(EVERY_KIND, &t.code);
    assert!(
        t.code.contains("function _apply_decs_2203_r("),
        "{}",
        t.code
    );
    // The decorated class is still exported under its own name.
    assert!(t.code.contains("as Ref }"), "{}", t.code);
    assert_eq!(t.imports, ["gg"]);
    assert!(!t.code.contains("abstract"), "{}", t.code);
    assert!(!t.code.contains("declare"), "{}", t.code);
}

#[test]
fn a_class_decorator_with_add_initializer_is_lowered_in_place() {
    let ts = r#"const names: string[] = [];
function tag(value: Function, context: ClassDecoratorContext) {
  context.addInitializer(function (this: any) { names.push(this.name); });
}
@tag class A {}
export const B = @tag class Named {};
export default @tag class {}
"#;
    let t = out(ts);
    assert_self_contained(ts, &t.code);
    assert!(t.code.contains("addInitializer"), "{}", t.code);
    assert!(t.code.contains("export { __default as default }") || t.code.contains("as default"));
}

#[test]
fn decorators_on_a_default_export_and_before_export_are_both_accepted() {
    for ts in [
        "const d = (v: any, c: any) => v;\n@d export default class B {}\n",
        "const d = (v: any, c: any) => v;\nexport @d class C {}\n",
        "const d = (v: any, c: any) => v;\n@d\nexport abstract class Ref { abstract f(): void; }\n",
    ] {
        let t = out(ts);
        assert_self_contained(ts, &t.code);
    }
}

#[test]
fn an_undecorated_module_is_not_lowered_and_gets_no_helpers() {
    // `@` in a JSDoc tag, a string and a comment is no decorator.
    let ts = "/** @param x a number */\nexport function f(x: number) { return \"a@b\" + x; } // @todo\nclass K { m() {} }\n";
    let t = out(ts);
    assert!(!t.code.contains("_apply_decs"), "{}", t.code);
    assert!(!t.code.contains("_identity"), "{}", t.code);
    assert!(t.code.contains("class K {"), "{}", t.code);
}

#[test]
fn parameter_decorators_are_refused_as_the_legacy_form() {
    let ts = "function Inject() { return (..._: any[]) => {}; }\nclass A {\n  constructor(@Inject() x: number, @Inject() private y: string) {}\n  m(@Inject() z: number) {}\n}\n";
    let err = transpile(ts, "p.ts").unwrap_err();
    let TranspileError::Invalid(diags) = &err else {
        panic!("expected invalid, got {err:?}")
    };
    let at: Vec<_> = diags.iter().map(|d| (d.line, d.column)).collect();
    assert_eq!(at, [(3, 15), (3, 36), (4, 5)], "{err}");
    for d in diags {
        assert_eq!(
            d.message,
            "gg compiles TypeScript 5 standard decorators (the TC39 form Deno runs); parameter decorators are the legacy experimentalDecorators form, which gg does not support"
        );
    }
    assert_eq!(err.code(), "invalid-argument");
    let text = err.to_string();
    assert!(
        text.contains("p.ts:3:15: gg compiles TypeScript 5"),
        "{text}"
    );
    assert!(text.contains("  |               ^"), "{text}");
}

#[test]
fn a_decorated_private_setter_taking_a_pattern_is_refused_not_a_compiler_crash() {
    // swc's lowering forwards the setter's parameter by name and panicked
    // on a pattern; gg refuses it with a located diagnostic instead.
    for (ts, col) in [
        (
            "const d = (v: any, c: any) => v;\nclass A { @d set #x({ a }: any) {} }\n",
            21,
        ),
        (
            "const d = (v: any, c: any) => v;\nclass A { @d set #x([a]: any) {} }\n",
            21,
        ),
        (
            "const d = (v: any, c: any) => v;\nclass A { @d set #x(a = 1) {} }\n",
            21,
        ),
    ] {
        let err = transpile(ts, "s.ts").unwrap_err();
        assert!(matches!(err, TranspileError::Invalid(_)), "{ts}: {err:?}");
        let d = &err.diagnostics()[0];
        assert_eq!((d.line, d.column), (2, col), "{err}");
        assert!(d.message.contains("private setter"), "{err}");
    }
    // A plain parameter is lowered.
    let ts = "const d = (v: any, c: any) => v;\nclass A { @d set #x(v: number) {} }\n";
    assert_self_contained(ts, &out(ts).code);
}

#[test]
fn runtime_errors_in_decorated_code_map_to_the_typescript_line() {
    let ts = "const d = (v: any, c: any) => v;\n\n@d\nexport class A {\n  @d x = 1;\n  @d accessor y = 2;\n  @d m(): number {\n    throw new Error(\"boom in m\");\n  }\n  static make() {\n    throw new Error(\"boom in make\");\n  }\n}\n";
    let t = out(ts);
    for (needle, ts_line) in [("boom in m", 8), ("boom in make", 11)] {
        let gen_line = t
            .code
            .lines()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle} not in {}", t.code))
            + 1;
        let original = t
            .positions
            .original(SourcePosition {
                line: gen_line,
                column: 9,
            })
            .unwrap();
        assert_eq!(original.line, ts_line, "{needle}:\n{}", t.code);
    }
}

#[test]
fn declared_functions_are_listed_around_decorated_classes() {
    let ts = r#"/** Marks a method. */
export function mark(v: Function, c: ClassMethodDecoratorContext) {}
@register
export class Svc {
  @mark run(x: number): number { return x; }
}
function register(v: Function, c: ClassDecoratorContext) {}
/** Runs the service. */
export const start = (n: number): number => new Svc().run(n);
"#;
    let t = out(ts);
    let d: Vec<_> = t
        .declared()
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.exported))
        .collect();
    assert_eq!(
        d,
        [
            ("mark", 2, true),
            ("register", 7, false),
            ("start", 9, true)
        ]
    );
    assert_eq!(
        t.declared()[0].signature,
        "mark(v: Function, c: ClassMethodDecoratorContext)"
    );
    assert_eq!(t.declared()[2].doc.as_deref(), Some("Runs the service."));
}

#[test]
fn hostile_decorated_inputs_are_diagnostics_or_output_never_crashes() {
    let cap = gg_transpiler::MAX_SOURCE_CHARS;
    let many_fields = format!(
        "const d = (v: any, c: any) => v;\nclass A {{\n{}}}\n",
        "@d x = 1;\n"
            .chars()
            .cycle()
            .take((cap - 60) / 10 * 10)
            .collect::<String>()
    );
    let many_on_one = format!(
        "const d = (v: any, c: any) => v;\n{}class A {{}}\n",
        "@d ".repeat((cap - 60) / 3)
    );
    let nested_depth = (cap - 60) / 40;
    let nested = format!(
        "const d = (v: any, c: any) => v;\nexport default {}0{};\n",
        "@d class { @d m() { return ".repeat(nested_depth),
        " } }".repeat(nested_depth)
    );
    for src in [
        "@",
        "@d",
        "@d class",
        "class A { @ }",
        "class A { @d }",
        "class A { constructor(@) {} }",
        "@d function f() {}",
        "const o = { @d m() {} };",
        "class A { @d static { } }",
        &many_fields,
        &many_on_one,
        &nested,
    ] {
        assert!(src.chars().count() <= cap, "{}", src.len());
        match transpile(src, "h.ts") {
            Ok(t) => assert_self_contained(src, &t.code),
            Err(TranspileError::Invalid(_)) => {}
            Err(e) => panic!("{:.60}: {e:?}", src),
        }
    }
}

/// Deno's binary, as the compat suite installs it, if it is there.
fn deno() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/compat/deno/node_modules/@deno/linux-x64-glibc/deno");
    path.is_file().then_some(path)
}

/// Runs `file` under Deno and returns its stdout, or its stderr as the
/// failure.
fn deno_run(deno: &Path, file: &Path) -> Result<String, String> {
    let output = Command::new(deno)
        .args(["run", "--quiet", "--no-config", "--no-lock"])
        .arg(file)
        .env("NO_COLOR", "1")
        .env("DENO_NO_UPDATE_CHECK", "1")
        .output()
        .map_err(|e| e.to_string())?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

#[test]
fn decorated_output_prints_what_deno_prints_running_the_typescript() {
    let Some(deno) = deno() else {
        eprintln!("skipped: no Deno binary under target/compat (the compat suite installs it)");
        return;
    };
    // "gg" is the isolate's own module; Deno gets a stand-in.
    let cases = [
        EVERY_KIND.replace(r#"import { fmt } from "gg";"#, "const fmt = {};"),
        r#"const log: string[] = [];
const d = (v: any, c: any) => { log.push(`${c.kind} ${String(c.name)} ${c.static} ${c.private}`); return v; };
abstract class A { @d abstract m(): void; @d declare x: number; @d n(a: number): void; @d n(a: any) {} }
class B extends A { m() {} }
new B();
const C = @d class { @d m() {} };
const D = @d class Named {};
class X { @d static accessor #p = 1; @d static #f = 2; static read() { return X.#p + X.#f; } }
console.log(log.join(","), C.name, D.name, X.read());
"#
        .to_string(),
        r#"const seen: string[] = [];
function meta(v: any, c: any) { c.metadata.k = (c.metadata.k ?? 0) + 1; seen.push(`${c.kind}:${typeof c.access.get}`); }
class M { @meta x = 1; @meta get g() { return 1; } @meta static s() {} }
console.log(seen.join(","), JSON.stringify((M as any)[Symbol.metadata]));
function bound(m: any, c: ClassMethodDecoratorContext) {
  c.addInitializer(function (this: any) { this[c.name] = m.bind(this); });
}
class Btn { label = "ok"; @bound click() { return this.label; } }
const { click } = new Btn();
console.log(click());
function legacy(target: any, key: string, desc?: any) { return desc; }
class L { @legacy m() { return 1; } }
try { console.log(new L().m()); } catch (e) { console.log("threw", (e as Error).constructor.name); }
"#
        .to_string(),
    ];
    let dir = std::env::temp_dir().join(format!("gg-decorators-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, ts) in cases.iter().enumerate() {
        let js = out(ts).code;
        let ts_file = dir.join(format!("case{i}.ts"));
        let js_file = dir.join(format!("case{i}.mjs"));
        std::fs::write(&ts_file, ts).unwrap();
        std::fs::write(&js_file, &js).unwrap();
        let expected = deno_run(&deno, &ts_file);
        let got = deno_run(&deno, &js_file);
        assert!(
            expected.is_ok(),
            "case {i}: Deno ran the TypeScript: {expected:?}"
        );
        assert_eq!(got, expected, "case {i}:\n{js}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_decorator_taking_a_property_descriptor_is_refused_as_the_legacy_form() {
    let ts = r#"function Log(target: any, key: string, descriptor: PropertyDescriptor) { return descriptor; }
function Memo() {
  return function (target: object, key: string | symbol, d: TypedPropertyDescriptor<any>) {};
}
const Bind = () => (t: any, k: string, d: PropertyDescriptor) => d;
function standard(value: Function, context: ClassMethodDecoratorContext) {}
class S {
  @Log a() {}
  @Memo() b() {}
  @Bind() c() {}
  @standard d() {}
}
"#;
    let err = transpile(ts, "l.ts").unwrap_err();
    let diags = err.diagnostics();
    let at: Vec<_> = diags.iter().map(|d| (d.line, d.column)).collect();
    assert_eq!(at, [(8, 3), (9, 3), (10, 3)], "{err}");
    assert!(
        diags[0]
            .message
            .contains("legacy experimentalDecorators form"),
        "{err}"
    );
    // A standard decorator with a third, unrelated parameter is lowered.
    let ts = "function d(v: Function, c: ClassMethodDecoratorContext, extra?: number) {}\nclass S { @d m() {} }\n";
    assert_self_contained(ts, &out(ts).code);
}
