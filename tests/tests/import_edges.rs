//! A module links only to what the host's resolver approved for it.
//!
//! The engine finds a module's imports twice: a text scan when the module is
//! compiled (what the host's loader is asked about) and QuickJS's parser when
//! it is linked (what is actually bound). Any spelling the scan reads
//! differently from the parser — a comment holding a quoted string, an
//! unusual separator, an empty specifier — must end in the loader's refusal,
//! never in a module the loader was not asked about: the engine's op table,
//! the host's glue, an internal module loaded on demand.

use gg_module::RunStatus;
use gg_tests::{ack, error_text, run, scratchpad_agent};

/// Modules a program must never reach: the op table, the host's own module,
/// the web layer's internals (one of them loaded only on demand), and a
/// specifier no module has.
const FORBIDDEN: [&str; 5] = [
    "ext:core/ops",
    "ext:gg_host/gg.js",
    "ext:deno_web/01_dom_exception.js",
    "ext:deno_web/locks.js",
    "",
];

/// Ways of writing a static import or re-export of `{T}` that a text scan
/// can read as some other specifier, or as no import at all.
const SPELLINGS: [&str; 9] = [
    "import * as o from \"{T}\";\nexport default typeof o;",
    "import * as o from /*\"gg\"*/ \"{T}\";\nexport default typeof o;",
    "import * as o from // \"gg\"\n  '{T}';\nexport default typeof o;",
    "import/**/* as o from \"{T}\";\nexport default typeof o;",
    "import\n* as o from \"{T}\";\nexport default typeof o;",
    "import\t{ default as o } from \"{T}\";\nexport default typeof o;",
    "import * as o from \"{T}\" /* from \"gg\" */;\nexport default typeof o;",
    "export * from /*\"gg\"*/ \"{T}\";\nexport default 1;",
    "export { default as o } from /*'gg'*/ \"{T}\";\nexport default 1;",
];

#[test]
fn every_spelling_of_an_import_of_an_internal_module_is_refused_by_the_loader() {
    let mut agent = scratchpad_agent();
    for target in FORBIDDEN {
        for spelling in SPELLINGS {
            let source = spelling.replace("{T}", target);
            let out = run(&mut agent, &source);
            let ack = ack(&out);
            assert_eq!(ack.status, RunStatus::Threw, "{source}\n{ack:?}");
            let error = error_text(&out);
            assert!(
                error.contains(&format!("Cannot import \"{target}\"")),
                "the loader's refusal, naming the import: {source}\n{error}"
            );
        }
    }
    // The agent serves the next ordinary program as a fresh one would.
    let out = run(&mut agent, "export default 1 + 2;");
    assert_eq!(ack(&out).value.as_deref(), Some("3"), "{:?}", ack(&out));
}

#[test]
fn unusual_spellings_of_an_allowed_import_still_link() {
    let mut agent = scratchpad_agent();
    for spelling in [
        "import\n{ views } from \"gg\";",
        "import/* the host */{ views } from \"gg\";",
        "import { views } from /* \"not-this\" */ \"gg\";",
        "import { views } from // 'nor-this'\n  'gg';",
        "import\t{ views }\tfrom\t\"gg\";",
    ] {
        let source = format!("{spelling}\nviews.openText(\"t\", \"x\");\nexport default 2;");
        let out = run(&mut agent, &source);
        assert_eq!(
            ack(&out).value.as_deref(),
            Some("2"),
            "{source}\n{:?}",
            ack(&out)
        );
    }
}

#[test]
fn a_code_memory_importing_an_internal_module_is_refused_on_every_use() {
    let mut agent = scratchpad_agent();
    let saved = run(
        &mut agent,
        r#"import { memories } from "gg";
memories.writeMemory({ name: "sneaky", description: "d", body: "b", code: 'import * as o from /*"gg"*/ "ext:core/ops";\nexport const n = Object.keys(o).length;' });"#,
    );
    // Refused when it is written or when it is used; either way, never linked.
    if ack(&saved).status == RunStatus::Ok {
        for _ in 0..3 {
            let out = run(
                &mut agent,
                "import { n } from \"sneaky\";\nexport default n;",
            );
            assert_eq!(ack(&out).status, RunStatus::Threw, "{:?}", ack(&out));
            assert!(
                error_text(&out).contains("Cannot import \"ext:core/ops\""),
                "{}",
                error_text(&out)
            );
        }
    } else {
        assert!(
            error_text(&saved).contains("ext:core/ops"),
            "{}",
            error_text(&saved)
        );
    }
    let out = run(&mut agent, "export default 1 + 2;");
    assert_eq!(ack(&out).value.as_deref(), Some("3"), "{:?}", ack(&out));
}
