//! The memory-call argument decoder on any input: the first byte picks the
//! call family and the origin (a program's camelCase object or a native
//! tool call's snake_case one), the rest is parsed as JSON (or, when it is
//! not JSON, passed as a string, as a program may). Whatever decodes then
//! goes where a real call would take it next: the slug check, the size
//! count, and for keywords a search with excerpts over memories made of the
//! same input. Refusals are fine; a panic is a bug.
#![no_main]

use std::sync::atomic::AtomicBool;

use gg_module::memories::search::{
    excerpt, fold_all, search, Keywords, SearchRefusal, MAX_KEYWORDS,
};
use gg_module::memories::service::check_slug;
use gg_module::memories::{args, Call, Memories, MemoryRecord, Origin};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn record(slug: &str, description: &str, body: &str) -> MemoryRecord {
    MemoryRecord {
        slug: slug.into(),
        description: description.into(),
        body: body.into(),
        code: None,
        on_use: None,
        chars: Memories::chars_of(body),
        lines: body.lines().count() as u64,
        key: None,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let value: Value =
        serde_json::from_slice(rest).unwrap_or_else(|_| Value::String(text.clone().into_owned()));
    let origin = if selector & 1 == 0 {
        Origin::Code
    } else {
        Origin::Native
    };
    let call = Call::ALL[usize::from(selector >> 1) % Call::ALL.len()];
    let spelled = match origin {
        Origin::Code => call.module_name(),
        Origin::Native => call.tool_name(),
    };
    let _ = Call::from_module_name(&text);
    let _ = Call::from_tool_name(&text);
    match call {
        Call::Write | Call::Update | Call::Create => {
            if let Ok(input) = args::memory_input(spelled, value, origin) {
                let _ = check_slug(&input.name);
                let _ = Memories::chars_of(&input.body);
                let name = Keywords::of(std::slice::from_ref(&input.name))
                    .expect("one keyword is never too many");
                let hits = search(
                    &[record(
                        &input.name,
                        input.description.as_deref().unwrap_or(""),
                        &input.body,
                    )],
                    &fold_all(&[record(
                        &input.name,
                        input.description.as_deref().unwrap_or(""),
                        &input.body,
                    )]),
                    &name,
                    0,
                    &AtomicBool::new(false),
                );
                assert!(hits.is_ok(), "an unstopped search is never refused");
            }
        }
        Call::Edit => {
            if let Ok((name, old, new)) = args::edit(spelled, value, origin) {
                let _ = check_slug(&name);
                let _ = (old.len(), new.len());
            }
        }
        Call::Read | Call::Delete => {
            if let Ok(name) = args::name(spelled, value, origin) {
                let _ = check_slug(&name);
            }
        }
        Call::Search => {
            if let Ok(keywords) = args::keywords(spelled, value, origin) {
                // Memories whose text is the keywords themselves, cased and
                // shifted, so matches land on multi-byte boundaries.
                let joined = keywords.join(" ");
                let memories = vec![
                    record("a", &joined, &joined.to_uppercase()),
                    record("b", "", &format!("é{joined}ß{}", joined.to_lowercase())),
                    record("c", &text, &text),
                ];
                let folded = fold_all(&memories);
                match Keywords::of(&keywords) {
                    Ok(distinct) => {
                        let hits =
                            search(&memories, &folded, &distinct, 2, &AtomicBool::new(false))
                                .expect("an unstopped search is never refused");
                        for hit in hits {
                            assert!(hit.distinct <= keywords.len() as u64);
                        }
                        // A stopped one always is.
                        let stopped =
                            search(&memories, &folded, &distinct, 2, &AtomicBool::new(true));
                        assert_eq!(stopped, Err(SearchRefusal::Stopped));
                    }
                    Err(SearchRefusal::TooManyKeywords { distinct }) => {
                        assert!(distinct > MAX_KEYWORDS && distinct <= keywords.len());
                    }
                    Err(SearchRefusal::Stopped) => unreachable!("nothing to stop yet"),
                }
                let body = &memories[2].body;
                let _ = excerpt(body, None);
            }
        }
    }
});
