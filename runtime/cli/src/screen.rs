//! The one way gg's text reaches a person: standard output and standard
//! error, human form. What a program chose (its console lines, value, views,
//! errors, memories; a tool server's names and results; a session's diffs)
//! is in much of what gg prints, and a terminal obeys what it is sent: an
//! escape sequence can clear the screen, set the window's title, write the
//! clipboard or plant a link, a carriage return can overwrite a line, a
//! bidirectional control can reorder one. So every byte written to a
//! [`Screen`] is escaped ([`gg_runtime::Untrusted::on_screen`]: `\r`,
//! `\u{1b}`, `\u{9b}`, `\u{202e}`…; newlines and tabs stay, so a body still
//! prints as lines), and gg's own colours, the only escape sequences a
//! person's terminal gets from gg, go through [`Screen::styled`], past the
//! escaping, to an [`anstream`] stream that drops them when the output is
//! not a terminal.
//!
//! A printer cannot go around it: the crate denies `println!` and its
//! kin, and `clippy.toml` forbids the standard streams' constructors
//! outside this module. Output a machine reads (JSON, the worker's
//! protocol, a benchmark child's numbers) takes [`machine_stdout`], exact.

use std::fmt;
use std::io::{self, Write};

use anstyle::Style;

/// A writer whose every byte is shown escaped; see the module.
pub struct Screen<W: Write> {
    out: W,
    /// The first bytes of a character a write cut in two, kept for the
    /// next write.
    partial: Vec<u8>,
}

impl<W: Write> Screen<W> {
    pub fn new(out: W) -> Self {
        Screen {
            out,
            partial: Vec::new(),
        }
    }

    /// Writes `text`, escaped as everything else is, in gg's own `style`.
    pub fn styled(&mut self, style: Style, text: impl fmt::Display) -> io::Result<()> {
        self.finish_partial()?;
        write!(self.out, "{style}")?;
        write!(self, "{text}")?;
        self.finish_partial()?;
        write!(self.out, "{style:#}")
    }

    /// Bytes left of a character cut in two that never got its end: shown
    /// as the replacement character.
    fn finish_partial(&mut self) -> io::Result<()> {
        if self.partial.is_empty() {
            return Ok(());
        }
        self.partial.clear();
        self.out.write_all("\u{fffd}".as_bytes())
    }

    fn write_text(&mut self, text: &str) -> io::Result<()> {
        write!(self.out, "{}", gg_runtime::untrusted(text).on_screen())
    }
}

impl<W: Write> Write for Screen<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut bytes = std::mem::take(&mut self.partial);
        bytes.extend_from_slice(buf);
        let mut rest = &bytes[..];
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    self.write_text(text)?;
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    self.write_text(std::str::from_utf8(valid).unwrap_or_default())?;
                    match e.error_len() {
                        // Bytes that are no character (a lone 0x9b among
                        // them, an 8-bit CSI to some terminals) are shown
                        // as the replacement character, never as they are.
                        Some(bad) => {
                            self.out.write_all("\u{fffd}".as_bytes())?;
                            rest = &after[bad..];
                        }
                        None => {
                            self.partial = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl<W: Write> Drop for Screen<W> {
    fn drop(&mut self) {
        let _ = self.finish_partial();
        let _ = self.out.flush();
    }
}

/// Standard output for a person: escaped, coloured only on a terminal.
#[allow(clippy::disallowed_methods)] // the one place standard output is made
pub fn stdout() -> Screen<anstream::Stdout> {
    Screen::new(anstream::stdout())
}

/// Standard error for a person: escaped, coloured only on a terminal.
#[allow(clippy::disallowed_methods)] // the one place standard error is made
pub fn stderr() -> Screen<anstream::Stderr> {
    Screen::new(anstream::stderr())
}

/// Standard error for the operator's log: each write is one event of the
/// log (the fmt layer writes an event whole), written as one line, whole:
/// what the library already escaped stays as it is, and anything else (a
/// newline in gg's own message, a dependency's log of a header a client
/// sent) is escaped in line, so no event can forge another or drive the
/// terminal.
#[allow(clippy::disallowed_methods)] // the one place the log's stream is made
pub fn log_lines() -> LogLines<io::Stderr> {
    LogLines(io::stderr())
}

/// See [`log_lines`].
pub struct LogLines<W: Write>(W);

impl<W: Write> Write for LogLines<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let (event, end) = match text.strip_suffix('\n') {
            Some(event) => (event, "\n"),
            None => (&*text, ""),
        };
        let line = format!("{}{end}", gg_runtime::untrusted(event).in_line());
        self.0.write_all(line.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Standard output, exact, for what a machine reads: JSON, a protocol's
/// lines. Never text meant for a person.
#[allow(clippy::disallowed_methods)] // the one place standard output is made
pub fn machine_stdout() -> io::Stdout {
    io::stdout()
}

/// Whether standard output is a terminal (a person reads it as it comes).
pub fn stdout_is_terminal() -> bool {
    io::IsTerminal::is_terminal(&machine_stdout())
}

/// `println!` through [`stdout`]: one line for a person, escaped. A closed
/// standard output is not an error worth more than the line.
macro_rules! say {
    () => {{
        let _ = ::std::io::Write::write_all(&mut $crate::screen::stdout(), b"\n");
    }};
    ($($arg:tt)*) => {{
        let mut out = $crate::screen::stdout();
        let _ = ::std::io::Write::write_fmt(&mut out, format_args!($($arg)*));
        let _ = ::std::io::Write::write_all(&mut out, b"\n");
    }};
}

/// `eprintln!` through [`stderr`].
macro_rules! tell {
    ($($arg:tt)*) => {{
        let mut out = $crate::screen::stderr();
        let _ = ::std::io::Write::write_fmt(&mut out, format_args!($($arg)*));
        let _ = ::std::io::Write::write_all(&mut out, b"\n");
    }};
}

pub(crate) use {say, tell};

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(write: impl FnOnce(&mut Screen<&mut Vec<u8>>)) -> String {
        let mut bytes = Vec::new();
        write(&mut Screen::new(&mut bytes));
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn everything_written_is_escaped_but_lines_and_gg_s_styles() {
        let text = shown(|s| {
            writeln!(s, "a\x1b]52;c;aGk=\x07b\r\u{9b}2J\u{202e}").unwrap();
            s.styled(anstyle::AnsiColor::Red.on_default(), "x\x1b[2Jy")
                .unwrap();
            write!(s, "\t{}", anstyle::AnsiColor::Red.on_default()).unwrap();
        });
        assert_eq!(
            text,
            "a\\u{1b}]52;c;aGk=\\u{7}b\\r\\u{9b}2J\\u{202e}\n\x1b[31mx\\u{1b}[2Jy\x1b[0m\t\\u{1b}[31m"
        );
    }

    #[test]
    fn each_log_event_is_one_line() {
        let mut bytes = Vec::new();
        let mut log = LogLines(&mut bytes);
        // What the library escaped already (`\u{1b}`, `\r`) stays as it is.
        log.write_all(b" INFO gg: a\nforged \x1b[2J\\u{1b} \\r\n")
            .unwrap();
        log.write_all(b" WARN gg: \xe2\x80\xae\r\n").unwrap();
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            " INFO gg: a\\nforged \\u{1b}[2J\\u{1b} \\r\n WARN gg: \\u{202e}\\r\n"
        );
    }

    #[test]
    fn a_character_cut_between_writes_is_escaped_whole() {
        // U+009B, an 8-bit CSI, is C2 9B in UTF-8; a lone 9B is no character.
        let text = shown(|s| {
            s.write_all(b"a\xc2").unwrap();
            s.write_all(b"\x9bb\x9bc\xe2\x80").unwrap();
            s.write_all(b"\xaed\xc2").unwrap();
        });
        assert_eq!(text, "a\\u{9b}b\u{fffd}c\\u{202e}d\u{fffd}");
    }
}
