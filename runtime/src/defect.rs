//! gg's own defects: a panic in gg's code ends the agent it happened in
//! as `internal_error`, never the process and never another agent.

use std::any::Any;

/// The message a panic carried, or a placeholder when it carried none.
pub fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic with no message".to_string()
    }
}
