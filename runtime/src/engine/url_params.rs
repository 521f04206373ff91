//! `URLSearchParams`'s parser, in place of deno_web's op of the same name:
//! the same pairs, but sized against the program's heap first. deno_web's
//! builds every pair in host memory and then in the heap, and a list the
//! heap cannot hold aborted the process where the engine's answer was
//! unwrapped.

use deno_core::{op2, v8, JsBuffer, OpState};
use deno_error::JsErrorBox;

use super::host_memory;

/// Bytes one pair costs past its text, at most: its two host strings and
/// its tuple, then its array and two strings in the heap.
const BYTES_PER_PAIR: usize = 256;

/// Bytes per byte of input: the decoded host copy, then the heap's copy of
/// it (two bytes a character when any character is not Latin-1).
const BYTES_PER_INPUT_BYTE: usize = 3;

/// What parsing `input` may build, at most, past the input itself.
fn cost(input: &[u8]) -> usize {
    let pairs = input.iter().filter(|&&b| b == b'&').count() + 1;
    input
        .len()
        .saturating_mul(BYTES_PER_INPUT_BYTE)
        .saturating_add(pairs.saturating_mul(BYTES_PER_PAIR))
}

/// Refuses, at the heap ceiling, what does not fit in the heap's room.
fn room_for(scope: &mut v8::Isolate, state: &OpState, bytes: usize) -> Result<(), JsErrorBox> {
    if host_memory::fits(scope, bytes) {
        return Ok(());
    }
    host_memory::hit_ceiling(state);
    Err(JsErrorBox::range_error(
        "URLSearchParams needs more memory than the heap limit leaves",
    ))
}

#[op2]
pub(super) fn op_url_parse_search_params(
    scope: &mut v8::PinScope,
    state: &mut OpState,
    args: v8::Local<v8::Value>,
    #[buffer] zero_copy: Option<JsBuffer>,
) -> Result<Vec<(String, String)>, JsErrorBox> {
    let text;
    let input: &[u8] = match (v8::Local::<v8::String>::try_from(args), &zero_copy) {
        (Err(_), Some(bytes)) if args.is_null_or_undefined() => bytes,
        (Ok(string), None) => {
            // Its UTF-8 copy is at most three bytes a UTF-16 unit: checked
            // before it is made.
            room_for(
                scope,
                state,
                string.length().saturating_mul(BYTES_PER_INPUT_BYTE),
            )?;
            text = string.to_rust_string_lossy(scope);
            text.as_bytes()
        }
        _ => return Err(JsErrorBox::type_error("invalid parameters")),
    };
    room_for(scope, state, cost(input))?;
    Ok(form_urlencoded::parse(input)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cost_counts_pairs_and_bytes() {
        assert_eq!(cost(b""), BYTES_PER_PAIR);
        assert_eq!(
            cost(b"a=1&b=2"),
            7 * BYTES_PER_INPUT_BYTE + 2 * BYTES_PER_PAIR
        );
    }
}
