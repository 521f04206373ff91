//! The system prompt an agent's window opens with.

use crate::profile::{Mode, Profile};

/// The `gg` module's TypeScript declarations.
pub const GG_DTS: &str = include_str!("../gg.d.ts");

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
