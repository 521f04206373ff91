//! Code memories: a memory's `code` half is a module every later program
//! may import by the slug's camelCase key; its `onUse` half is a script gg
//! runs after the turn's program, on every use of the memory.
//!
//! A *use* is: a write that loads (scratchpad `writeMemory`/`updateMemory`
//! with code or onUse), a read that loads (`readMemory` under markdown or
//! keyword-search), and a program importing the memory's key. Each memory's
//! onUse runs at most once per turn, however many times it was used.

use std::rc::Rc;

use gg_module::memories::MemoryRecord;
use gg_module::{GgError, View};
use gg_transpiler::{TranspileError, Transpiled};

use crate::host::Host;

/// Why a half did not compile.
pub enum CompileFailure {
    /// The half is over the cap, or does not parse: the caller's fault.
    Refused(GgError),
    /// The compiler itself failed: gg's defect.
    Internal(String),
}

/// Compiles a memory's code half, for a refusal or an appended diagnostic
/// that may show the model its own source.
pub fn compile_code(slug: &str, code: &str) -> Result<Transpiled, CompileFailure> {
    let key = gg_transpiler::module_key(slug);
    gg_transpiler::transpile_cached(code, &format!("{key}.ts"), "code").map_err(|e| match e {
        TranspileError::Internal(detail) => CompileFailure::Internal(detail),
        TranspileError::TooLong { chars, limit, .. } => too_long(slug, "code", chars, limit),
        TranspileError::Invalid(_) => CompileFailure::Refused(GgError::invalid(format!(
            "the code of \"{slug}\" does not compile:\n{e}"
        ))),
    })
}

/// A stored memory's code compiled, with the key its store gave it; `None`
/// when it has no code or its code no longer compiles.
pub fn compile_record(record: &MemoryRecord) -> Option<(String, Transpiled)> {
    let key = record.import_key()?.to_string();
    let compiled = compile_code(&record.slug, record.code.as_deref()?).ok()?;
    Some((key, compiled))
}

/// Compiles an onUse half. Its diagnostics carry the location and message
/// only: its source is never shown back to the model.
pub fn compile_on_use(slug: &str, on_use: &str) -> Result<Transpiled, CompileFailure> {
    gg_transpiler::transpile_cached(on_use, "onUse.ts", "onUse").map_err(|e| match e {
        TranspileError::Internal(detail) => CompileFailure::Internal(detail),
        TranspileError::TooLong { chars, limit, .. } => too_long(slug, "onUse", chars, limit),
        TranspileError::Invalid(diagnostics) => CompileFailure::Refused(GgError::invalid(format!(
            "the onUse of \"{slug}\" does not compile: {}",
            diagnostics
                .iter()
                .map(|d| format!("{} {}", d.location(), d.message))
                .collect::<Vec<_>>()
                .join("; ")
        ))),
    })
}

fn too_long(slug: &str, half: &str, chars: usize, limit: usize) -> CompileFailure {
    CompileFailure::Refused(GgError::limit(format!(
        "limit exceeded: the {half} of \"{slug}\" is {chars} characters, over the {limit}-character limit by {}. Shorten it, or split the helpers across memories; nothing was stored.",
        chars - limit
    )))
}

/// Records gg's own compiler defect: the operator log gets the detail, the
/// agent ends as internal_error, and the call is refused as an io-error.
pub fn compiler_defect(host: &mut Host, call: &str, detail: String) -> GgError {
    tracing::error!(
        "internal compiler failure in {call}: {}",
        crate::operator_log::untrusted(&detail)
    );
    host.events.emit(gg_module::events::Event::InternalError {
        blame: gg_module::events::Blame::Gg,
        agent: None,
        call: Some(call.to_string()),
        detail: detail.to_string(),
    });
    host.internal_error = Some(format!("gg's TypeScript compiler failed during {call}"));
    GgError::io(format!(
        "{call} could not be completed: gg's TypeScript compiler failed. This is gg's defect, not your argument's; the run ends."
    ))
}

/// Loads a compiled code half under the key its store gave it: binds the
/// key and opens one documentation view per exported function.
pub fn load(host: &mut Host, slug: &str, key: &str, compiled: Transpiled) {
    let declared = compiled.declared().to_vec();
    let loaded =
        host.registry
            .borrow_mut()
            .load(slug, key, compiled.code, Rc::new(compiled.positions));
    for function in declared.iter().filter(|f| f.exported) {
        host.pending_views.push(View::Documentation {
            key: loaded.key.clone(),
            slug: loaded.slug.clone(),
            function: function.name.clone(),
            signature: function.signature.clone(),
            doc: function.doc.clone(),
        });
    }
}

/// After a scratchpad write or update from a program: load the code (or
/// unload it when cleared) and queue the onUse. The halves were compiled
/// before the write was stored.
pub fn after_write(host: &mut Host, slug: &str, code: Option<Transpiled>, has_on_use: bool) {
    // The key is the store's: given with the write, kept through deletes.
    let key = host
        .memories
        .as_ref()
        .and_then(|m| m.record(slug).ok().flatten())
        .and_then(|record| record.import_key().map(str::to_string));
    match code.zip(key) {
        Some((compiled, key)) => load(host, slug, &key, compiled),
        None => host.unload_code(slug),
    }
    if has_on_use {
        host.queue_on_use(slug);
    }
}

/// After a read under markdown or keyword-search: the code loads (or its
/// diagnostic is appended to the body) and the onUse is queued. Returns the
/// body the model sees.
pub fn after_read(host: &mut Host, record: &MemoryRecord, call: &str) -> Result<String, GgError> {
    let mut body = record.body.clone();
    if let (Some(code), Some(key)) = (&record.code, record.import_key()) {
        match compile_code(&record.slug, code) {
            Ok(compiled) => {
                for missing in unloaded_imports(host, &record.slug, &compiled) {
                    body.push_str(&format!("\n\n[gg] {missing}"));
                }
                load(host, &record.slug, key, compiled)
            }
            Err(CompileFailure::Refused(e)) => {
                body.push_str(&format!(
                    "\n\n[gg] This memory's code did not load: {}",
                    e.message
                ));
            }
            Err(CompileFailure::Internal(detail)) => {
                return Err(compiler_defect(host, call, detail))
            }
        }
    }
    if let Some(on_use) = &record.on_use {
        match compile_on_use(&record.slug, on_use) {
            Ok(_) => host.queue_on_use(&record.slug),
            Err(CompileFailure::Refused(e)) => host.pending_notices.push(format!(
                "The onUse hook of `{}` did not run: {}",
                record.slug, e.message
            )),
            Err(CompileFailure::Internal(detail)) => {
                return Err(compiler_defect(host, call, detail))
            }
        }
    }
    Ok(body)
}

/// What a module's imports name that this agent cannot import yet, said
/// when the module loads rather than when a program's import fails: the
/// memory to read first, or that no memory provides the key.
fn unloaded_imports(host: &Host, slug: &str, compiled: &Transpiled) -> Vec<String> {
    let registry = host.registry.borrow();
    let keys: Vec<&str> = compiled
        .imports
        .iter()
        .map(|s| s.strip_prefix("gg/").unwrap_or(s))
        .filter(|key| *key != "gg" && registry.slug_of_key(key).is_none())
        .collect();
    if keys.is_empty() {
        return Vec::new();
    }
    let held = host
        .memories
        .as_ref()
        .and_then(|m| m.store.list().ok())
        .unwrap_or_default();
    keys.into_iter()
        .filter_map(|key| {
            let provider = held
                .iter()
                .find(|r| r.import_key() == Some(key));
            Some(match provider {
                // Its own key: it is loading now.
                Some(r) if r.slug == slug => return None,
                Some(r) => format!(
                    "This memory's code imports \"{key}\", which is not loaded: read `{}` first (memories.readMemory(\"{}\")), then import this one.",
                    r.slug, r.slug
                ),
                None => format!(
                    "This memory's code imports \"{key}\", which no memory provides: a program importing it will fail until a memory with that key's code is written and read."
                ),
            })
        })
        .collect()
}

/// The onUse source as the module gg runs: `memories`, `views` and
/// `GgError` are in scope unless the hook imports `gg` itself.
pub fn on_use_module(compiled: &Transpiled) -> String {
    let imports_gg = compiled.code.contains("from \"gg\"") || compiled.code.contains("from 'gg'");
    if imports_gg {
        compiled.code.clone()
    } else {
        // On the first line, so the hook's own lines keep their numbers.
        format!(
            "import * as __gg from \"gg\"; const {{ memories, views, GgError }} = __gg; {}",
            compiled.code
        )
    }
}
