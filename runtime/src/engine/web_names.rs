//! Whether a run's code may reach the web globals (`js/web.js`), read from
//! its text before it runs: the host loads deno_web's scripts only for a
//! run that may (about 0.4 MB of every isolate's heap otherwise).
//!
//! The answer only has to be safe one way. Code that names no web global
//! and no way to reach the global object by a computed name gets no web
//! layer; if it reaches a web global anyway (a name built at run time
//! through some other path), the global's placeholder refuses with an
//! error that says to name it. So a missed name costs a program a clear
//! error, never the sandbox: the web layer is never loaded while a program
//! runs.

/// The globals loaded with deno_web's scripts (theirs, and gg's `crypto`),
/// as `js/web.js` lists them.
const WEB_GLOBALS: [&str; 23] = [
    "console",
    "URL",
    "URLSearchParams",
    "DOMException",
    "Event",
    "EventTarget",
    "CustomEvent",
    "ErrorEvent",
    "reportError",
    "structuredClone",
    "AbortController",
    "AbortSignal",
    "atob",
    "btoa",
    "TextEncoder",
    "TextDecoder",
    "performance",
    "Performance",
    "setTimeout",
    "setInterval",
    "clearTimeout",
    "clearInterval",
    "crypto",
];

/// Names through which code reaches a global it does not name: the global
/// object itself, code made from a string (`eval`, the `Function`
/// constructor and its kin, reached as any function's `constructor`), and
/// `import(…)` (below), which may load a module whose text this scan never
/// saw.
const REACHES_ANY_GLOBAL: [&str; 4] = ["globalThis", "eval", "Function", "constructor"];

/// Names of what the engine's own code runs through a web global: the
/// timeout of `Atomics.waitAsync` (`setTimeout`), `import.meta.resolve`
/// (`URL`; `import` followed by `.`, below), and Temporal's
/// `Duration.prototype.toLocaleString` (a `console.warn`).
const ENGINE_USES_WEB: [&str; 2] = ["waitAsync", "toLocaleString"];

/// Whether `code` names a web global, or a way to reach one without
/// naming it. Strings and comments count as code: a name in a string may be
/// evaluated.
pub(super) fn may_reach_web(code: &str) -> bool {
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if !starts_identifier(byte) {
            at += 1;
            continue;
        }
        let start = at;
        let mut escaped = false;
        while at < bytes.len() && (continues_identifier(bytes[at]) || bytes[at] == b'\\') {
            escaped |= bytes[at] == b'\\';
            at += 1;
        }
        // A `\u` escape can spell any name (`\u0063onsole` is `console`).
        if escaped {
            return true;
        }
        let name = &code[start..at];
        if WEB_GLOBALS.contains(&name)
            || REACHES_ANY_GLOBAL.contains(&name)
            || ENGINE_USES_WEB.contains(&name)
        {
            return true;
        }
        if name == "import" && code[at..].trim_start().starts_with(['(', '.']) {
            return true;
        }
    }
    false
}

fn starts_identifier(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_' || byte == b'$' || byte == b'\\' || byte >= 0x80
}

fn continues_identifier(byte: u8) -> bool {
    starts_identifier(byte) || byte.is_ascii_digit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_the_one_the_web_layer_defines() {
        let web_js = include_str!("js/web.js");
        let start = web_js
            .find("const WEB_GLOBALS = [")
            .expect("web.js lists its globals");
        let list = &web_js[start..];
        let list = &list[list.find('[').unwrap() + 1..list.find(']').unwrap()];
        let names: Vec<&str> = list
            .split(',')
            .map(|n| n.trim().trim_matches('"'))
            .filter(|n| !n.is_empty())
            .collect();
        assert_eq!(names, WEB_GLOBALS);
    }

    #[test]
    fn code_that_names_a_web_global_or_a_way_to_one_may_reach_the_web_layer() {
        for code in [
            "console.log(1)",
            "const u = new URL('a:b');",
            "x = 1;\nsetTimeout(f, 0)",
            "globalThis['con' + 'sole']",
            "(0, eval)('1')",
            "new Function('return 1')",
            "[].map.constructor('return this')",
            "await import ('gg:x')",
            "const s = \"console\";",
            "// performance",
            "\\u0063onsole.log(1)",
            "a.crypto",
            "const r = import.meta.resolve('./x');",
            "Atomics.waitAsync(view, 0, 0, 10)",
            "Temporal.Duration.from({ hours: 1 }).toLocaleString()",
        ] {
            assert!(may_reach_web(code), "{code}");
        }
    }

    #[test]
    fn code_that_names_neither_does_not() {
        for code in [
            "import { views } from \"gg\";\nviews.openText(\"a\", \"first\");\nexport default 3;",
            "const consoles = 1; const myURL = 2; const cryptography = 3;",
            "import x from 'gg:memory/y'; export const imported = x;",
            "class A { construct() {} }",
            "const functions = [];",
            "",
        ] {
            assert!(!may_reach_web(code), "{code}");
        }
    }
}
