//! The operator's log: what gg tells whoever runs it, through `tracing`
//! (the `gg` binary prints it on standard error; an embedder installs its
//! own subscriber). The library itself never prints.
//!
//! Text a program chose — its console lines in a hook, its error messages,
//! the paths it named — goes through [`untrusted`] on its way in, so a
//! program cannot forge log lines (a newline, a carriage return) or drive
//! the operator's terminal (escape sequences), and one long line cannot
//! flood the log.

use std::fmt;

/// At most this many characters of one untrusted value reach the log; the
/// rest is counted, not shown.
pub const UNTRUSTED_CHARS: usize = 2_000;

/// `text`, for the operator's log: control characters escaped (`\n`,
/// `\r`, `\t`, `\u{1b}`…), cut after [`UNTRUSTED_CHARS`] characters with a
/// note of how many more there were.
pub fn untrusted(text: &str) -> Untrusted<'_> {
    Untrusted(text)
}

/// Text a program chose, shown escaped and capped; see [`untrusted`].
#[derive(Debug, Clone, Copy)]
pub struct Untrusted<'a>(&'a str);

impl fmt::Display for Untrusted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chars = self.0.chars();
        for (shown, c) in chars.by_ref().enumerate() {
            if shown == UNTRUSTED_CHARS {
                let rest = 1 + chars.count();
                return write!(f, "… ({rest} more characters)");
            }
            match c {
                '\n' => f.write_str("\\n")?,
                '\r' => f.write_str("\\r")?,
                '\t' => f.write_str("\\t")?,
                '\\' => f.write_str("\\\\")?,
                // C0 and C1 controls, DEL, and the line and paragraph
                // separators some terminals and log viewers break on.
                c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                    write!(f, "\\u{{{:x}}}", c as u32)?
                }
                c => write!(f, "{c}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_long_text_is_cut() {
        assert_eq!(
            untrusted("ok\n[gg] forged\r\x1b[31mred\u{2028}\\").to_string(),
            "ok\\n[gg] forged\\r\\u{1b}[31mred\\u{2028}\\\\"
        );
        assert_eq!(untrusted("héllo wörld").to_string(), "héllo wörld");
        let long = "x".repeat(UNTRUSTED_CHARS + 5);
        let shown = untrusted(&long).to_string();
        assert!(shown.ends_with("… (5 more characters)"), "{shown}");
        assert_eq!(shown.matches('x').count(), UNTRUSTED_CHARS);
        assert_eq!(
            untrusted(&"y".repeat(UNTRUSTED_CHARS)).to_string().len(),
            UNTRUSTED_CHARS
        );
    }
}
