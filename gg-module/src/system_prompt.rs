//! The system prompt an agent's window opens with.

use crate::profile::{Mode, Profile};

/// The `gg` module's TypeScript declarations.
pub const GG_DTS: &str = include_str!("../gg.d.ts");

/// `gg.d.ts` declaring only the memory calls in `offered` (their module
/// names: `createMemory`, `readMemory`, …), with each kept call's heading
/// comment; everything else as it is.
pub fn gg_dts_offering(offered: &[&str]) -> String {
    let mut out = String::new();
    let mut in_memories = false;
    let mut heading: Option<&str> = None;
    for line in GG_DTS.lines() {
        let text = line.trim_start();
        if in_memories {
            if text.starts_with('}') {
                in_memories = false;
            } else if text.starts_with("//") {
                heading = Some(line);
                continue;
            } else if let Some(rest) = text.strip_prefix("function ") {
                let name = rest.split('(').next().unwrap_or("");
                if offered.contains(&name) {
                    if let Some(heading) = heading.take() {
                        out.push_str(heading);
                        out.push('\n');
                    }
                    out.push_str(line);
                    out.push('\n');
                }
                continue;
            }
        } else if text.starts_with("export namespace memories") {
            in_memories = true;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The system prompt for `profile`; `sections` are capability texts (the
/// memories strategy's, for one) appended in order.
pub fn render(profile: &Profile, sections: &[String]) -> String {
    let mut out = String::new();
    match profile.mode {
        Mode::Code => {
            out.push_str(
                "You answer each turn with one TypeScript program. gg runs it in a sandbox and shows you, next turn, its acknowledgement (the program's id, its `export default` value, its console output or its error) and any views it opened.\n\
                 The `gg` module is your only way to touch the world: `import { memories, views } from \"gg\";`. Its calls are synchronous; a refused call throws a GgError whose `code` says why. There is no filesystem, network or `Deno` object.\n",
            );
            out.push_str("\n```ts\n");
            out.push_str(GG_DTS.trim_end());
            out.push_str("\n```\n");
        }
        Mode::ToolCalling => {
            out.push_str("You answer each turn with tool calls. Each call's result, or its refusal, arrives on the next turn.\n");
        }
    }
    for section in sections {
        out.push('\n');
        out.push_str(section.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_offered_memory_calls_are_declared() {
        let dts = gg_dts_offering(&["createMemory", "readMemory"]);
        assert!(dts.contains("function createMemory("), "{dts}");
        assert!(dts.contains("function readMemory("), "{dts}");
        for absent in [
            "writeMemory",
            "updateMemory",
            "searchMemories",
            "deleteMemory",
            "editMemory",
        ] {
            assert!(
                !dts.contains(&format!("function {absent}(")),
                "{absent}: {dts}"
            );
        }
        assert!(dts.contains("// markdown and keyword-search"), "{dts}");
        assert!(!dts.contains("// scratchpad"), "{dts}");
        assert!(dts.contains("function openFile("), "views stay: {dts}");
        let all = gg_dts_offering(&[
            "writeMemory",
            "updateMemory",
            "createMemory",
            "readMemory",
            "editMemory",
            "deleteMemory",
            "searchMemories",
        ]);
        assert_eq!(all, GG_DTS, "everything offered: the file as it is");
    }
}
