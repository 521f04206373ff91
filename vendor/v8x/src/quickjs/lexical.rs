//! gg patch: which bytes of a JavaScript source are code.
//!
//! The engine rewrites a few syntaxes QuickJS does not parse (V8's test
//! intrinsics, `import.defer(…)`, `import.source(…)`) on the source text
//! before compiling it. A rewrite must touch code only: the same characters
//! inside a string, a template's text, a comment or a regular expression are
//! a program's data, and rewriting them changed what the program computed.

/// Words after which a `/` starts a regular expression, not a division.
const REGEX_AFTER_WORDS: [&[u8]; 14] = [
  b"return",
  b"typeof",
  b"instanceof",
  b"in",
  b"of",
  b"new",
  b"delete",
  b"void",
  b"throw",
  b"case",
  b"do",
  b"else",
  b"yield",
  b"await",
];

/// One flag per byte of `source`: `true` where the byte is code, `false`
/// inside a comment, a string literal (its quotes included), a template's
/// text (its `${…}` expressions are code) or a regular expression literal.
///
/// A lexer's view, not a parser's: where a `/` could start either a division
/// or a regular expression it decides from the token before it, as
/// JavaScript's own grammar does in all but contrived cases.
pub(crate) fn code_mask(source: &str) -> Vec<bool> {
  let bytes = source.as_bytes();
  let n = bytes.len();
  let mut mask = vec![true; n];
  // For each template whose `${` expression is open: the brace depth within
  // that expression.
  let mut templates: Vec<u32> = Vec::new();
  let mut regex_allowed = true;
  let mut i = 0;
  while i < n {
    let c = bytes[i];
    match c {
      b'/' if bytes.get(i + 1) == Some(&b'/') => {
        let end = bytes[i..]
          .iter()
          .position(|&b| b == b'\n')
          .map_or(n, |p| i + p);
        mask[i..end].fill(false);
        i = end;
      }
      b'/' if bytes.get(i + 1) == Some(&b'*') => {
        let end = source[i + 2..].find("*/").map_or(n, |p| i + 2 + p + 2);
        mask[i..end].fill(false);
        i = end;
      }
      b'/' if regex_allowed => {
        let end = regex_end(bytes, i);
        mask[i..end].fill(false);
        i = end;
        regex_allowed = false;
      }
      b'"' | b'\'' => {
        let end = string_end(bytes, i, c);
        mask[i..end].fill(false);
        i = end;
        regex_allowed = false;
      }
      b'`' => {
        let (end, opens_expression) = template_text_end(bytes, i + 1);
        mask[i..end].fill(false);
        i = end;
        if opens_expression {
          templates.push(0);
          regex_allowed = true;
        } else {
          regex_allowed = false;
        }
      }
      b'}' if templates.last() == Some(&0) => {
        templates.pop();
        let (end, opens_expression) = template_text_end(bytes, i + 1);
        mask[i..end].fill(false);
        i = end;
        if opens_expression {
          templates.push(0);
          regex_allowed = true;
        } else {
          regex_allowed = false;
        }
      }
      _ if c.is_ascii_whitespace() => i += 1,
      _ if is_identifier_byte(c) => {
        let start = i;
        while i < n && is_identifier_byte(bytes[i]) {
          i += 1;
        }
        let word = &bytes[start..i];
        regex_allowed = REGEX_AFTER_WORDS.contains(&word);
      }
      _ => {
        if let Some(depth) = templates.last_mut() {
          match c {
            b'{' => *depth += 1,
            b'}' => *depth -= 1,
            _ => {}
          }
        }
        regex_allowed = !matches!(c, b')' | b']');
        i += 1;
      }
    }
  }
  mask
}

fn is_identifier_byte(c: u8) -> bool {
  c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

/// The end (exclusive) of the string literal opened by `quote` at `start`;
/// an unterminated one ends at its line's end.
fn string_end(bytes: &[u8], start: usize, quote: u8) -> usize {
  let mut j = start + 1;
  while j < bytes.len() {
    match bytes[j] {
      b'\\' => j += 2,
      b'\n' => return j,
      c if c == quote => return j + 1,
      _ => j += 1,
    }
  }
  bytes.len()
}

/// From just inside a template's text, its end (exclusive) and whether it
/// ends by opening a `${` expression (the `${` included) rather than with
/// the closing backquote.
fn template_text_end(bytes: &[u8], mut j: usize) -> (usize, bool) {
  while j < bytes.len() {
    match bytes[j] {
      b'\\' => j += 2,
      b'`' => return (j + 1, false),
      b'$' if bytes.get(j + 1) == Some(&b'{') => return (j + 2, true),
      _ => j += 1,
    }
  }
  (bytes.len(), false)
}

/// The end (exclusive) of the regular expression literal at `start`, its
/// flags included; one cut by a line end ends there.
fn regex_end(bytes: &[u8], start: usize) -> usize {
  let mut j = start + 1;
  let mut in_class = false;
  while j < bytes.len() {
    match bytes[j] {
      b'\\' => j += 2,
      b'\n' => return j,
      b'[' => {
        in_class = true;
        j += 1;
      }
      b']' => {
        in_class = false;
        j += 1;
      }
      b'/' if !in_class => {
        j += 1;
        while j < bytes.len() && is_identifier_byte(bytes[j]) {
          j += 1;
        }
        return j;
      }
      _ => j += 1,
    }
  }
  bytes.len()
}

#[cfg(test)]
mod tests {
  use super::code_mask;

  /// The source with every non-code byte replaced by `_`.
  fn code_of(source: &str) -> String {
    let mask = code_mask(source);
    source
      .bytes()
      .zip(mask)
      .map(|(b, code)| if code { b as char } else { '_' })
      .collect()
  }

  #[test]
  fn strings_comments_and_regexes_are_not_code() {
    assert_eq!(code_of(r#"a("x(y)") // c"#), r#"a(______) ____"#);
    assert_eq!(code_of("a /* b */ + 'c\\'d'"), "a _______ + ______");
    assert_eq!(code_of("x = /a\\/b[/]/g; y"), "x = __________; y");
    assert_eq!(code_of("x = a / b / c"), "x = a / b / c");
    assert_eq!(code_of("return /re/.test(s)"), "return ____.test(s)");
    assert_eq!(code_of("(a) / 2"), "(a) / 2");
  }

  #[test]
  fn a_templates_expressions_are_code_and_its_text_is_not() {
    assert_eq!(code_of("`a${b + `c${d}`}e` + f"), "____b + ____d_____ + f");
    assert_eq!(code_of("`${ {a: 1}.a }x`"), "___ {a: 1}.a ___");
    assert_eq!(code_of("`x${'}'}y` z"), "__________ z");
  }
}
