//! The operator's log: what gg tells whoever runs it, through `tracing`
//! (the `gg` binary prints it on standard error; an embedder installs its
//! own subscriber). The library itself never prints.
//!
//! Text a program chose — its console lines in a hook, its error messages,
//! the paths it named — goes through [`untrusted`] on its way in, so a
//! program cannot forge log lines (a newline, a carriage return) or drive
//! the operator's terminal (escape sequences), and one long line cannot
//! flood the log. The same escaping, in the forms [`Untrusted::on_screen`]
//! and [`Untrusted::in_line`], is what the `gg` binary puts between a
//! program's text and a person's screen.

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

impl<'a> Untrusted<'a> {
    /// The text as a screen shows a body of lines (a window, a console
    /// line, a diff): newlines, tabs and the line and paragraph separators
    /// as they are, every other character
    /// that would drive a terminal or reorder what a person reads escaped
    /// as the log escapes it (`\r`, `\u{1b}`, `\u{9b}`, `\u{202e}`…). Not
    /// cut, and a backslash stays one: the text is the whole of what is
    /// shown, not a value inside a line of gg's.
    pub fn on_screen(self) -> impl fmt::Display + 'a {
        Escaped {
            text: self.0,
            lines: true,
        }
    }

    /// The text as one line, whole: as [`Self::on_screen`], with newlines,
    /// tabs and separators escaped too. For a line already made of escaped values (a
    /// log line), which must stay one line.
    pub fn in_line(self) -> impl fmt::Display + 'a {
        Escaped {
            text: self.0,
            lines: false,
        }
    }
}

/// How `c` is shown when it cannot be shown as itself; `None` when it can.
/// `lines` keeps newlines, tabs and separators, for text printed as lines.
fn escape(c: char, lines: bool) -> Option<Escape> {
    match c {
        // Line breaks stay line breaks where text is printed as lines.
        '\n' | '\t' | '\u{2028}' | '\u{2029}' if lines => None,
        '\n' => Some(Escape::Named("\\n")),
        '\r' => Some(Escape::Named("\\r")),
        '\t' => Some(Escape::Named("\\t")),
        // C0 and C1 controls (U+009B is an 8-bit CSI to some terminals),
        // DEL; the line and paragraph separators some terminals and log
        // viewers break lines on; and the bidirectional embeddings,
        // overrides and isolates, which reorder what a person reads without
        // showing themselves. (The bidirectional marks, U+200E, U+200F and
        // U+061C, stay: formatted Arabic and Hebrew text carries them, and a
        // mark only settles the direction of the neutral characters beside
        // it; it cannot reverse a run of text.)
        c if c.is_control()
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
            ) =>
        {
            Some(Escape::Code(c))
        }
        _ => None,
    }
}

enum Escape {
    Named(&'static str),
    Code(char),
}

impl fmt::Display for Escape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Escape::Named(name) => f.write_str(name),
            Escape::Code(c) => write!(f, "\\u{{{:x}}}", *c as u32),
        }
    }
}

struct Escaped<'a> {
    text: &'a str,
    lines: bool,
}

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Runs of characters shown as they are go out in one piece.
        let mut shown = 0;
        for (at, c) in self.text.char_indices() {
            if let Some(escaped) = escape(c, self.lines) {
                f.write_str(&self.text[shown..at])?;
                write!(f, "{escaped}")?;
                shown = at + c.len_utf8();
            }
        }
        f.write_str(&self.text[shown..])
    }
}

impl fmt::Display for Untrusted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chars = self.0.chars();
        for (shown, c) in chars.by_ref().enumerate() {
            if shown == UNTRUSTED_CHARS {
                let rest = 1 + chars.count();
                return write!(f, "… ({rest} more characters)");
            }
            match (c, escape(c, false)) {
                // Doubled, so a value's own `\u{1b}` cannot pass for an
                // escape of the log's.
                ('\\', _) => f.write_str("\\\\")?,
                (_, Some(escaped)) => write!(f, "{escaped}")?,
                (c, None) => write!(f, "{c}")?,
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

    #[test]
    fn a_screen_keeps_lines_and_escapes_what_would_drive_a_terminal() {
        let text = "a\tb\nc\r\x1b]0;title\x07\x1b[2J\u{9b}31m\u{7f}\u{202e}cba\u{2066}\\e";
        assert_eq!(
            untrusted(text).on_screen().to_string(),
            "a\tb\nc\\r\\u{1b}]0;title\\u{7}\\u{1b}[2J\\u{9b}31m\\u{7f}\\u{202e}cba\\u{2066}\\e"
        );
        assert_eq!(
            untrusted(text).in_line().to_string(),
            "a\\tb\\nc\\r\\u{1b}]0;title\\u{7}\\u{1b}[2J\\u{9b}31m\\u{7f}\\u{202e}cba\\u{2066}\\e"
        );
        assert_eq!(
            untrusted("\u{202a}\u{202b}\u{202c}\u{202d}\u{2067}\u{2068}\u{2069}\u{61c}\u{200e}")
                .to_string(),
            "\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{2067}\\u{2068}\\u{2069}\u{61c}\u{200e}"
        );
        assert_eq!(
            untrusted("a\u{2028}b").on_screen().to_string(),
            "a\u{2028}b"
        );
        assert_eq!(untrusted("a\u{2028}b").in_line().to_string(), "a\\u{2028}b");
        let long = "é".repeat(UNTRUSTED_CHARS + 5);
        assert_eq!(untrusted(&long).on_screen().to_string(), long);
        assert_eq!(
            untrusted("héllo wörld").on_screen().to_string(),
            "héllo wörld"
        );
    }
}
