//! A new function's `length` and `name` are added without the general
//! property-definition path (the object is new and nothing else can reach
//! it); these pin that every kind of function still gets them as the
//! language defines them: in that order, configurable, neither writable nor
//! enumerable, and redefinable, deletable and freezable afterwards.

use deno_core::{JsRuntime, RuntimeOptions};

fn run(source: &'static str) -> String {
    let mut runtime = JsRuntime::new(RuntimeOptions::default());
    let value = runtime
        .execute_script("function_properties.js", source)
        .expect("the script runs");
    deno_core::scope!(scope, runtime);
    let local = deno_core::v8::Local::new(scope, value);
    local.to_rust_string_lossy(scope)
}

#[test]
fn every_kind_of_function_gets_length_and_name_as_defined() {
    let report = run(r#"
        const describe = (f) => {
          const keys = Reflect.ownKeys(f).filter((k) => k === "length" || k === "name");
          const parts = keys.map((k) => {
            const d = Object.getOwnPropertyDescriptor(f, k);
            const flags = (d.writable ? "w" : "-") + (d.enumerable ? "e" : "-") + (d.configurable ? "c" : "-");
            return `${String(k)}=${JSON.stringify(d.value)}/${flags}`;
          });
          return parts.join(" ");
        };
        let revoke;
        ({ revoke } = Proxy.revocable({}, {}));
        let resolve;
        new Promise((r) => { resolve = r; });
        class Point { constructor(x, y) {} move(dx) {} static of(a, b, c) {} }
        const cases = {
          declared: function sum(a, b, c = 1, ...rest) {},
          arrow: (a) => a,
          async: async function load(a, b) {},
          generator: function* walk(a) {},
          asyncGenerator: async function* stream() {},
          class: Point,
          method: Point.prototype.move,
          staticMethod: Point.of,
          native: Array.prototype.map,
          nativeData: revoke,
          resolving: resolve,
          bound: function pair(a, b, c) {}.bind(null, 1),
          boundTwice: function pair(a, b, c) {}.bind(null, 1).bind(null, 2),
          boundNative: Math.max.bind(Math),
        };
        const lines = Object.entries(cases).map(([k, f]) => `${k}: ${describe(f)}`);

        // What a program may do with them afterwards.
        const f = function original(a) {};
        Object.defineProperty(f, "name", { value: "renamed" });
        delete f.length;
        lines.push(`after: name=${f.name} length=${f.length} own=${Object.hasOwn(f, "length")}`);
        const g = function frozen(a, b) {};
        Object.freeze(g);
        lines.push(`frozen: ${describe(g)}`);

        // bind reads the target's own length and name, whatever they are.
        const h = function h(a, b, c, d) {};
        Object.defineProperty(h, "length", { get() { return 2.7; } });
        Object.defineProperty(h, "name", { value: 42 });
        lines.push(`boundOdd: ${describe(h.bind(null))}`);
        const i = function i() {};
        Object.defineProperty(i, "length", { value: -Infinity });
        lines.push(`boundNegative: ${describe(i.bind(null))}`);
        const throwing = function t() {};
        Object.defineProperty(throwing, "length", { get() { throw new Error("no length"); } });
        try { throwing.bind(null); lines.push("throwing: bound"); }
        catch (e) { lines.push(`throwing: ${e.message}`); }
        lines.join("\n")
    "#);
    let expected = [
        r#"declared: length=2/--c name="sum"/--c"#,
        r#"arrow: length=1/--c name="arrow"/--c"#,
        r#"async: length=2/--c name="load"/--c"#,
        r#"generator: length=1/--c name="walk"/--c"#,
        r#"asyncGenerator: length=0/--c name="stream"/--c"#,
        r#"class: length=2/--c name="Point"/--c"#,
        r#"method: length=1/--c name="move"/--c"#,
        r#"staticMethod: length=3/--c name="of"/--c"#,
        r#"native: length=1/--c name="map"/--c"#,
        r#"nativeData: length=0/--c name=""/--c"#,
        r#"resolving: length=1/--c name=""/--c"#,
        r#"bound: length=2/--c name="bound pair"/--c"#,
        r#"boundTwice: length=1/--c name="bound bound pair"/--c"#,
        r#"boundNative: length=2/--c name="bound max"/--c"#,
        "after: name=renamed length=0 own=false",
        r#"frozen: length=2/--- name="frozen"/---"#,
        r#"boundOdd: length=2/--c name="bound "/--c"#,
        r#"boundNegative: length=0/--c name="bound i"/--c"#,
        "throwing: no length",
    ]
    .join("\n");
    assert_eq!(report, expected);
}

#[test]
fn a_bound_function_is_named_after_its_own_target_however_binds_follow_each_other() {
    // Binds of one name share the name they make; each must still be named
    // after its own target's name, whatever that is and whatever came before.
    let report = run(r#"
        function call() {}
        function other() {}
        const wide = { "h\u00e9llo\u4e16": function () {} }["h\u00e9llo\u4e16"];
        const odd = function () {};
        Object.defineProperty(odd, "name", { value: 42 });
        const renamed = function () {};
        const names = [];
        for (const target of [call, call, other, call, wide, wide, odd, call, renamed]) {
          if (target === renamed) Object.defineProperty(renamed, "name", { value: "call" });
          names.push(target.bind(null).name);
        }
        names.push(call.bind(null).bind(null).name, Function.prototype.call.bind(call).name);
        JSON.stringify(names)
    "#);
    assert_eq!(
        report,
        r#"["bound call","bound call","bound other","bound call","bound héllo世","bound héllo世","bound ","bound call","bound call","bound bound call","bound call"]"#
    );
}
