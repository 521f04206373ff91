//! Located diagnostics: `file:line:col: message`, the offending source line
//! and a caret under the column.

use serde::Serialize;

/// One problem in a source, located in the source the caller wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The file name the caller gave, used only as a label.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong, as the compiler words it.
    pub message: String,
    /// The source line the problem is on, without its line break: at most
    /// [`QUOTED_LINE_CHARS`] characters of it around the column.
    pub source_line: String,
    /// How many characters of the line come before `source_line` (0 when
    /// it starts the line).
    pub source_line_start: usize,
}

/// The most characters of a line a diagnostic quotes: a longer line is
/// quoted around the column, so that a one-line program of megabytes costs
/// a few hundred bytes per problem, not its whole length.
pub const QUOTED_LINE_CHARS: usize = 160;

impl Diagnostic {
    /// Locates `message` at a 1-based `line` and `column` of `source`.
    pub fn at_line_col(
        file: &str,
        source: &str,
        line: usize,
        column: usize,
        message: String,
    ) -> Self {
        let (source_line, source_line_start) = excerpt(nth_line(source, line), column);
        Diagnostic {
            file: file.to_string(),
            line,
            column,
            message,
            source_line: source_line.to_string(),
            source_line_start,
        }
    }

    /// `line:col`, the form every gg error quotes.
    pub fn location(&self) -> String {
        format!("{}:{}", self.line, self.column)
    }
}

/// The 1-based `line` of `source` as swc counts lines: `\n`, `\r\n` and a
/// lone `\r` each end one (`str::lines` does not split at a lone `\r`, so a
/// diagnostic after one quoted the wrong line; found by the transpile fuzz
/// target). Empty past the end.
fn nth_line(source: &str, line: usize) -> &str {
    let mut rest = source;
    for _ in 1..line.max(1) {
        match rest.find(['\n', '\r']) {
            Some(i) => {
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
            }
            None => return "",
        }
    }
    &rest[..rest.find(['\n', '\r']).unwrap_or(rest.len())]
}

/// At most [`QUOTED_LINE_CHARS`] characters of `line` around the 1-based
/// `column`, and how many characters come before them.
fn excerpt(line: &str, column: usize) -> (&str, usize) {
    if line.len() <= QUOTED_LINE_CHARS {
        return (line, 0);
    }
    let total = line.chars().count();
    if total <= QUOTED_LINE_CHARS {
        return (line, 0);
    }
    let first = column
        .saturating_sub(1)
        .saturating_sub(QUOTED_LINE_CHARS / 2)
        .min(total - QUOTED_LINE_CHARS);
    let mut bounds = line.char_indices().map(|(at, _)| at).chain([line.len()]);
    let from = bounds.nth(first).unwrap_or(line.len());
    let to = bounds.nth(QUOTED_LINE_CHARS - 1).unwrap_or(line.len());
    (&line[from..to], first)
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )?;
        let gutter = self.line.to_string();
        let before = if self.source_line_start > 0 {
            "…"
        } else {
            ""
        };
        writeln!(f, "{gutter} | {before}{}", self.source_line)?;
        // The caret sits under the column, counting tabs as the line has them.
        let pad: String = before
            .chars()
            .map(|_| ' ')
            .chain(
                self.source_line
                    .chars()
                    .take(self.column.saturating_sub(1 + self.source_line_start))
                    .map(|c| if c == '\t' { '\t' } else { ' ' }),
            )
            .collect();
        write!(f, "{} | {pad}^", " ".repeat(gutter.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_line_and_caret() {
        let d = Diagnostic::at_line_col(
            "p.ts",
            "let a = 1;\nlet b = ;\n",
            2,
            9,
            "Expression expected".into(),
        );
        assert_eq!(
            d.to_string(),
            "p.ts:2:9: Expression expected\n2 | let b = ;\n  |         ^"
        );
    }

    #[test]
    fn a_long_line_is_quoted_around_its_column() {
        let line = format!("{}é;{}", "x".repeat(1000), "y".repeat(1000));
        let d = Diagnostic::at_line_col("p.ts", &line, 1, 1001, "here".into());
        assert_eq!(d.source_line.chars().count(), QUOTED_LINE_CHARS);
        assert_eq!(d.source_line_start, 1000 - QUOTED_LINE_CHARS / 2);
        assert!(line.contains(&d.source_line));
        let shown = d.to_string();
        let caret = shown.lines().nth(2).unwrap();
        let quoted = shown.lines().nth(1).unwrap();
        // The caret stands under the é, after the gutter and the ellipsis.
        let under = caret.chars().count() - 1;
        assert_eq!(quoted.chars().nth(under), Some('é'), "{shown}");
        // Near the end, the last characters are quoted whole.
        let end = Diagnostic::at_line_col("p.ts", &line, 1, 2002, "end".into());
        assert!(line.ends_with(&end.source_line));
        assert_eq!(end.source_line.chars().count(), QUOTED_LINE_CHARS);
    }
}
