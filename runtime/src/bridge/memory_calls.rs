//! The memory calls as both execution modes reach them: a program's
//! `memories.createMemory({...})` and a native `create_memory` tool call
//! both land here, on the same [`gg_module::memories::Memories`].

use gg_module::memories::{args, telemetry, Call, Origin};
use gg_module::{GgError, GgResult};
use serde_json::{json, Value};

use crate::bridge::code_memories::{self, CompileFailure};
use crate::host::Host;

/// Runs one memory call for `host`, emitting telemetry for a mutation.
pub fn call(host: &mut Host, call: Call, origin: Origin, arg: Value) -> GgResult<Value> {
    let spell = match origin {
        Origin::Code => |c: Call| c.module_name(),
        Origin::Native => |c: Call| c.tool_name(),
    };
    let name = spell(call);
    let Some(memories) = host.memories.as_mut() else {
        return Err(GgError::unavailable(format!(
            "{name} is unavailable: this agent has no memories capability enabled, so it has no memory calls."
        )));
    };
    memories.require(call, spell)?;
    let revision = match call {
        Call::Write | Call::Update => {
            let input = args::memory_input(name, arg, origin)?;
            // A scratchpad write loads: both halves compile before anything
            // is stored, so a module that could never load is refused.
            let code = match (&input.code, origin) {
                (Some(code), Origin::Code) => {
                    match code_memories::compile_code(&input.name, code) {
                        Ok(compiled) => Some(compiled),
                        Err(CompileFailure::Refused(e)) => return Err(e),
                        Err(CompileFailure::Internal(detail)) => {
                            return Err(code_memories::compiler_defect(host, name, detail))
                        }
                    }
                }
                _ => None,
            };
            if let (Some(on_use), Origin::Code) = (&input.on_use, origin) {
                match code_memories::compile_on_use(&input.name, on_use) {
                    Ok(_) => {}
                    Err(CompileFailure::Refused(e)) => return Err(e),
                    Err(CompileFailure::Internal(detail)) => {
                        return Err(code_memories::compiler_defect(host, name, detail))
                    }
                }
            }
            let memories = host.memories.as_mut().expect("checked above");
            let has_on_use = input.on_use.is_some();
            let slug = input.name.clone();
            let revision = if call == Call::Write {
                memories.create(call, input, origin)?
            } else {
                memories.update(input, origin)?
            };
            if origin == Origin::Code {
                code_memories::after_write(host, &slug, code, has_on_use);
            }
            revision
        }
        Call::Create => {
            let input = args::memory_input(name, arg, origin)?;
            memories.create(call, input, origin)?
        }
        Call::Edit => {
            let (slug, old, new) = args::edit(name, arg, origin)?;
            memories.edit(&slug, &old, &new, name)?
        }
        Call::Delete => {
            let slug = args::name(name, arg, origin)?;
            let revision = memories.delete(&slug, name)?;
            host.unload_code(&slug);
            revision
        }
        Call::Read => {
            let slug = args::name(name, arg, origin)?;
            let mut memory = memories.read(&slug, name)?;
            if origin == Origin::Code {
                // A read loads the memory's code and is a use of it.
                let record = memories.record(&slug)?.expect("just read");
                memory.body = code_memories::after_read(host, &record, name)?;
            }
            return Ok(match origin {
                Origin::Code => serde_json::to_value(memory).expect("a memory serializes"),
                Origin::Native => Value::String(format!(
                    "# {}\n{}\n\n{}",
                    memory.name, memory.description, memory.body
                )),
            });
        }
        Call::Search => {
            let keywords = args::keywords(name, arg, origin)?;
            let hits = memories.search(&keywords, name, &host.program_stop)?;
            return Ok(match origin {
                Origin::Code => serde_json::to_value(hits).expect("hits serialize"),
                Origin::Native => Value::String(if hits.is_empty() {
                    "no memory matches those keywords.".to_string()
                } else {
                    hits.iter()
                        .map(|h| {
                            let description = if h.description.is_empty() {
                                String::new()
                            } else {
                                format!(" — {}", h.description)
                            };
                            let matches = if h.occurrences == 1 {
                                "1 match".to_string()
                            } else {
                                format!("{} matches", h.occurrences)
                            };
                            format!(
                                "- `{}`{description} ({} of the keywords, {matches})\n  {}",
                                h.name, h.distinct, h.excerpt
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                }),
            });
        }
    };
    let memories = host.memories.as_ref().expect("checked above");
    let revision_event = telemetry::memory_revision(&memories.agent, &memories.store, &revision);
    host.events.emit(revision_event);
    // The set as it stands is emitted once, when the turn ends.
    host.memory_state_due = true;
    Ok(match origin {
        Origin::Code => Value::Null,
        Origin::Native => json!(format!(
            "{} `{}` (revision {}).",
            revision.mutation.past_tense(),
            revision.slug,
            revision.revision
        )),
    })
}
