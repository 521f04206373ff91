//! deno_core's primordials, whose walk over every intrinsic the engine makes
//! natively, are the object the script's own JavaScript loops make: the same
//! keys in the same order, the same attributes, the same plain values, and
//! wrappers that behave the same.

use deno_core::{v8, JsRuntime, RuntimeOptions};

/// deno_core's script, run a second time in the same runtime: without the
/// native function lent to its first run it takes its JavaScript loops.
const PRIMORDIALS_SCRIPT: &str = include_str!("../../deno_core/00_primordials.js");

/// Compares the primordials the runtime was made with (`made`) to those the
/// script's loops make (`looped`); returns the differences, one per line.
const COMPARE: &str = r#"
(() => {
  const made = globalThis.__madePrimordials;
  const looped = globalThis.__bootstrap.primordials;
  const out = [];
  const show = (k) => typeof k === "symbol" ? k.toString() : k;
  const madeKeys = Reflect.ownKeys(made);
  const loopedKeys = Reflect.ownKeys(looped);
  if (madeKeys.length !== loopedKeys.length) {
    out.push(`key count: ${madeKeys.length} made, ${loopedKeys.length} looped`);
  }
  const n = Math.min(madeKeys.length, loopedKeys.length);
  for (let i = 0; i < n; i++) {
    if (madeKeys[i] !== loopedKeys[i]) {
      out.push(`key ${i}: ${show(madeKeys[i])} made, ${show(loopedKeys[i])} looped`);
      break;
    }
  }
  for (const key of loopedKeys) {
    const a = Reflect.getOwnPropertyDescriptor(made, key);
    const b = Reflect.getOwnPropertyDescriptor(looped, key);
    if (a === undefined) { out.push(`${show(key)}: missing`); continue; }
    for (const attr of ["writable", "enumerable", "configurable"]) {
      if (a[attr] !== b[attr]) out.push(`${show(key)}.${attr}: ${a[attr]} made, ${b[attr]} looped`);
    }
    if (typeof a.value !== typeof b.value) {
      out.push(`${show(key)}: ${typeof a.value} made, ${typeof b.value} looped`);
    } else if (typeof b.value === "function") {
      // Classes and helpers defined by the script itself differ per run;
      // what the loops copy or wrap must agree in name and arity.
      if (a.value.name !== b.value.name && !/^Safe|^makeSafe$|^uncurryThis$|^applyBind$/.test(key)) {
        out.push(`${show(key)}.name: ${a.value.name} made, ${b.value.name} looped`);
      }
      if (a.value.length !== b.value.length) {
        out.push(`${show(key)}.length: ${a.value.length} made, ${b.value.length} looped`);
      }
      if (Object.getPrototypeOf(a.value) !== Object.getPrototypeOf(b.value)) {
        out.push(`${show(key)}: another prototype`);
      }
    } else if (typeof b.value !== "object" && !Object.is(a.value, b.value)) {
      out.push(`${show(key)}: ${String(a.value)} made, ${String(b.value)} looped`);
    } else if (typeof b.value === "object" && b.value !== null && a.value !== b.value && !/^Safe/.test(key)) {
      // The iterator entries are `{ prototype }` holders each run makes anew.
      if (a.value.prototype === undefined || a.value.prototype !== b.value.prototype) {
        out.push(`${show(key)}: a different object`);
      }
    }
  }
  // The safe classes (`makeSafe`, whose `copyProps` the engine makes
  // natively too): the same own keys in the same order on each class and
  // its prototype, the same attributes, and the very intrinsic functions
  // and accessors the script's loop copied; what the script defines itself
  // (constructors, iterator wrappers) differs per run, so it must agree in
  // name and arity.
  let safeClasses = 0;
  for (const key of loopedKeys) {
    if (typeof key !== "string" || !key.startsWith("Safe")) continue;
    const madeClass = made[key];
    const loopedClass = looped[key];
    if (typeof loopedClass !== "function" || typeof loopedClass.prototype !== "object") continue;
    safeClasses++;
    for (const [where, a, b] of [
      [key, madeClass, loopedClass],
      [`${key}.prototype`, madeClass.prototype, loopedClass.prototype],
    ]) {
      const aKeys = Reflect.ownKeys(a).map(show).join(",");
      const bKeys = Reflect.ownKeys(b).map(show).join(",");
      if (aKeys !== bKeys) {
        out.push(`${where} keys: ${aKeys} made, ${bKeys} looped`);
        continue;
      }
      for (const k of Reflect.ownKeys(b)) {
        const da = Reflect.getOwnPropertyDescriptor(a, k);
        const db = Reflect.getOwnPropertyDescriptor(b, k);
        for (const attr of ["writable", "enumerable", "configurable"]) {
          if (da[attr] !== db[attr]) out.push(`${where}.${show(k)}.${attr}: ${da[attr]} made, ${db[attr]} looped`);
        }
        for (const part of ["get", "set", "value"]) {
          const x = da[part], y = db[part];
          if (x === y) continue;
          if (typeof x === "function" && typeof y === "function" && k !== "prototype" &&
              x.name === y.name && x.length === y.length &&
              !Object.values(Object.getOwnPropertyDescriptors(Object.getPrototypeOf(b) ?? {})).some((d) => d.value === y)) {
            continue;
          }
          if (k === "prototype" || k === "constructor") continue;
          out.push(`${where}.${show(k)}.${part}: not the value the loop copied`);
        }
      }
    }
  }
  if (safeClasses < 6) out.push(`only ${safeClasses} safe classes compared`);
  // The wrappers behave as the script's: uncurried, bound, applied, accessors.
  const p = made;
  const checks = [
    [p.ArrayPrototypeJoin([1, 2], "-"), "1-2"],
    [p.ArrayPrototypePushApply([], [1, 2, 3]), 3],
    [p.MathMaxApply([1, 5, 3]), 5],
    [p.StringPrototypeToUpperCase("ab"), "AB"],
    [p.ObjectPrototypeHasOwnProperty({ a: 1 }, "a"), true],
    [p.MapPrototypeGetSize(new Map([[1, 2]])), 1],
    [p.TypedArrayPrototypeGetLength(new Uint8Array(4)), 4],
    [p.ArrayPrototypeSymbolIterator([7]).next().value, 7],
    [p.SymbolIterator, Symbol.iterator],
    [typeof p.PromiseResolve(1).then, "function"],
    [p.JSONStringify({ a: 1 }), '{"a":1}'],
    [p.ReflectApply(Math.max, null, [2, 4]), 4],
  ];
  checks.forEach(([got, want], i) => {
    if (!Object.is(got, want)) out.push(`check ${i}: ${String(got)} (want ${String(want)})`);
  });
  if (Object.isFrozen(made) !== true) out.push("not frozen");
  if ("__copyIntrinsicProperties" in globalThis) out.push("the native function is still on the global object");
  return out.join("\n");
})()
"#;

/// Changes everything a wrapper made by hand (`uncurryThis(method)`, that is
/// `call.bind(method)`) would read: `bind` and `call` themselves, their
/// names, lengths and prototypes. Wrappers made after it must not see it.
const TAMPER: &str = r#"
const { bind, call, apply } = Function.prototype;
Object.defineProperty(call, "name", { get() { throw new Error("call.name read"); } });
Object.defineProperty(call, "length", { get() { throw new Error("call.length read"); } });
Object.setPrototypeOf(call, null);
Object.defineProperty(bind, "name", { value: "hijacked" });
Object.defineProperty(apply, "length", { value: 9 });
Function.prototype.bind = function () { throw new Error("bind called"); };
Function.prototype.call = function () { throw new Error("call called"); };
Function.prototype.apply = function () { throw new Error("apply called"); };
"#;

/// The runtime's primordials and the script's loops', compared; `between`
/// runs after the loops, before the comparison reads every property.
fn differences_from_the_loops(between: &'static str) -> String {
    let mut runtime = JsRuntime::new(RuntimeOptions::default());
    runtime
        .execute_script(
            "test:keep.js",
            "globalThis.__madePrimordials = globalThis.__bootstrap.primordials; \
             if (Reflect.ownKeys(globalThis.__madePrimordials).length < 700) throw new Error('too few');",
        )
        .expect("the runtime's primordials are reachable here");
    runtime
        .execute_script("test:00_primordials.js", PRIMORDIALS_SCRIPT)
        .expect("the script runs again on its own loops");
    runtime
        .execute_script("test:between.js", between)
        .expect("ran");
    let differences = runtime
        .execute_script("test:compare.js", COMPARE)
        .expect("compared");
    deno_core::scope!(scope, runtime);
    deno_core::v8::Local::new(scope, differences).to_rust_string_lossy(scope)
}

#[test]
fn the_natively_made_primordials_are_the_ones_the_script_makes() {
    let differences = differences_from_the_loops("");
    assert_eq!(
        differences, "",
        "made natively vs by the loops:\n{differences}"
    );
}

#[test]
fn wrappers_made_when_first_read_are_the_ones_the_script_made_whatever_changed_since() {
    let before = v8::quickjs_lazy_uncurried();
    let differences = differences_from_the_loops(TAMPER);
    let after = v8::quickjs_lazy_uncurried();
    assert!(
        after.left_unmade - before.left_unmade >= 300,
        "the runtime left its wrappers to be made when first read: {before:?} → {after:?}"
    );
    assert!(
        after.made_later - before.made_later >= 300,
        "the comparison read them after the changes: {before:?} → {after:?}"
    );
    assert_eq!(
        differences, "",
        "made natively, read after the changes, vs by the loops before them:\n{differences}"
    );
}
