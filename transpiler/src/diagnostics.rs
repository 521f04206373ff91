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
    /// The source line the problem is on, without its line break.
    pub source_line: String,
}

impl Diagnostic {
    /// Locates `message` at a 1-based `line` and `column` of `source`.
    pub fn at_line_col(
        file: &str,
        source: &str,
        line: usize,
        column: usize,
        message: String,
    ) -> Self {
        let source_line = nth_line(source, line).to_string();
        Diagnostic {
            file: file.to_string(),
            line,
            column,
            message,
            source_line,
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

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )?;
        let gutter = self.line.to_string();
        writeln!(f, "{gutter} | {}", self.source_line)?;
        // The caret sits under the column, counting tabs as the line has them.
        let pad: String = self
            .source_line
            .chars()
            .take(self.column.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
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
}
