//! The size guard in front of the parser: swc parses untrusted source, so a
//! source over the cap is refused before a single token is read.

use crate::TranspileError;

/// The most characters gg will transpile in one source (a program, a code
/// half or an onUse half).
pub const MAX_SOURCE_CHARS: usize = 32_768;

/// Refuses `source` when it is over [`MAX_SOURCE_CHARS`] characters.
/// Characters are Unicode scalar values, as every gg limit counts them.
pub fn check_len(source: &str, what: &str) -> Result<(), TranspileError> {
    // Fast path: a byte length within the cap is a char count within the cap.
    if source.len() <= MAX_SOURCE_CHARS {
        return Ok(());
    }
    let chars = source.chars().count();
    if chars <= MAX_SOURCE_CHARS {
        return Ok(());
    }
    Err(TranspileError::TooLong {
        what: what.to_string(),
        chars,
        limit: MAX_SOURCE_CHARS,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_passes_and_one_over_is_refused() {
        assert!(check_len(&"a".repeat(MAX_SOURCE_CHARS), "code").is_ok());
        let err = check_len(&"a".repeat(MAX_SOURCE_CHARS + 1), "code").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("32769"), "{text}");
        assert!(text.contains("32768"), "{text}");
        assert!(text.contains("by 1"), "{text}");
    }

    #[test]
    fn counts_characters_not_bytes() {
        // 32 768 two-byte characters are 65 536 bytes but within the cap.
        assert!(check_len(&"é".repeat(MAX_SOURCE_CHARS), "code").is_ok());
    }
}
