//! Formatted datetimes as ECMA-402 parts: ICU4X annotates what it writes
//! with `writeable` parts; `formatToParts` wants `[type, value]` pairs.

use std::fmt;

use writeable::{Part, PartsWrite, TryWriteable, Writeable};

/// Records each annotated span of a formatted datetime.
#[derive(Default)]
struct Spans {
    text: String,
    spans: Vec<(usize, usize, Part)>,
}

impl fmt::Write for Spans {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.text.push_str(s);
        Ok(())
    }
}

impl PartsWrite for Spans {
    type SubPartsWrite = Self;
    fn with_part(
        &mut self,
        part: Part,
        mut f: impl FnMut(&mut Self) -> fmt::Result,
    ) -> fmt::Result {
        let start = self.text.len();
        f(self)?;
        self.spans.push((start, self.text.len(), part));
        Ok(())
    }
}

/// ECMA-402's part type for an ICU4X part, if it names one.
fn part_type(part: &Part) -> Option<&'static str> {
    match (part.category, part.value) {
        ("datetime", "startRange" | "endRange") => None,
        ("datetime", value) => Some(value),
        // A fractional second is written as a decimal inside the second.
        ("decimal", "fraction") => Some("fractionalSecond"),
        ("decimal", "decimal") => Some("literal"),
        _ => None,
    }
}

/// What `write` wrote, as ECMA-402 parts (`[type, value]`; unannotated text
/// is `literal`).
fn parts_of(write: impl FnOnce(&mut Spans) -> fmt::Result) -> Vec<(&'static str, String)> {
    let mut spans = Spans::default();
    if write(&mut spans).is_err() {
        return Vec::new();
    }
    let mut labels: Vec<&'static str> = vec!["literal"; spans.text.len()];
    // Outer spans first, so that inner ones (a fraction in a second) win.
    spans
        .spans
        .sort_by_key(|(start, end, _)| std::cmp::Reverse(end - start));
    for (start, end, part) in &spans.spans {
        if let Some(kind) = part_type(part) {
            labels[*start..*end].fill(kind);
        }
    }
    let mut parts: Vec<(&'static str, String)> = Vec::new();
    let mut start = 0;
    for (i, c) in spans.text.char_indices().skip(1) {
        if labels[i] != labels[start] {
            parts.push((labels[start], spans.text[start..i].to_string()));
            start = i;
        }
        let _ = c;
    }
    if start < spans.text.len() {
        parts.push((labels[start], spans.text[start..].to_string()));
    }
    parts
}

/// A formatted datetime as parts.
pub fn to_parts(formatted: &impl Writeable) -> Vec<(&'static str, String)> {
    parts_of(|spans| formatted.write_to_parts(spans))
}

/// A formatted pattern as parts, or None when it could not be written
/// (a name its data lacks).
pub fn try_to_parts(formatted: &impl TryWriteable) -> Option<Vec<(&'static str, String)>> {
    let mut complete = true;
    let parts = parts_of(|spans| match formatted.try_write_to_parts(spans) {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => {
            complete = false;
            Ok(())
        }
        Err(e) => Err(e),
    });
    (complete && !parts.is_empty()).then_some(parts)
}
