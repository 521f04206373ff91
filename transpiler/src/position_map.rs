//! Maps a position in the emitted JavaScript back to the TypeScript it came
//! from, so a runtime error names the line the caller wrote.

use std::sync::Arc;

use serde::Serialize;
use swc_common::{BytePos, LineCol, SourceMap};

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SourcePosition {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// Generated (JavaScript) position → original (TypeScript) position.
#[derive(Debug, Clone, Default)]
pub struct PositionMap {
    /// Sorted by generated position; both sides 1-based.
    entries: Vec<(SourcePosition, SourcePosition)>,
    /// Set for code that kept every position of its source (types erased
    /// in place): each position maps to itself. Holds that source, whose
    /// lines [`PositionMap::to_source_map_json`] measures when asked.
    identity_of: Option<Arc<str>>,
}

impl PositionMap {
    /// The map of code that kept every position of `source`: each position
    /// maps to itself.
    pub(crate) fn identity(source: Arc<str>) -> Self {
        PositionMap {
            entries: Vec::new(),
            identity_of: Some(source),
        }
    }

    /// Whether every position maps to itself: the module's types were
    /// erased in place, and its JavaScript keeps the TypeScript's layout.
    pub fn is_identity(&self) -> bool {
        self.identity_of.is_some()
    }

    pub(crate) fn from_swc(cm: &SourceMap, mappings: &[(BytePos, LineCol)]) -> Self {
        let mut entries: Vec<(SourcePosition, SourcePosition)> = mappings
            .iter()
            .filter(|(pos, _)| !pos.is_dummy() && !pos.is_reserved_for_comments())
            .map(|(pos, generated)| {
                let original = cm.lookup_char_pos(*pos);
                (
                    SourcePosition {
                        line: generated.line as usize + 1,
                        column: generated.col as usize + 1,
                    },
                    SourcePosition {
                        line: original.line,
                        column: original.col.0 + 1,
                    },
                )
            })
            .collect();
        entries.sort_by_key(|(generated, _)| *generated);
        entries.dedup_by_key(|(generated, _)| *generated);
        PositionMap {
            entries,
            identity_of: None,
        }
    }

    /// The original position for a generated one: the closest mapping at or
    /// before it on the same line, else the first mapping on that line, else
    /// the closest earlier line's. `None` only for an empty map.
    pub fn original(&self, generated: SourcePosition) -> Option<SourcePosition> {
        if self.identity_of.is_some() {
            return Some(generated);
        }
        if self.entries.is_empty() {
            return None;
        }
        let idx = self.entries.partition_point(|(g, _)| *g <= generated);
        if idx > 0 && self.entries[idx - 1].0.line == generated.line {
            return Some(self.entries[idx - 1].1);
        }
        if idx < self.entries.len() && self.entries[idx].0.line == generated.line {
            return Some(self.entries[idx].1);
        }
        if idx > 0 {
            return Some(self.entries[idx - 1].1);
        }
        Some(self.entries[0].1)
    }

    /// This map as a version 3 source map of one source, `source_name`,
    /// for an engine that maps stack frames itself. A source-map lookup
    /// takes the greatest mapping at or before a position; so that it
    /// answers what [`PositionMap::original`] answers, a line whose first
    /// mapping starts past column 1 gets one more at its start (to that
    /// first mapping's original), and so does line 1: no position falls
    /// before every mapping. `None` for an empty map.
    pub fn to_source_map_json(&self, source_name: &str) -> Option<Vec<u8>> {
        let mut mappings = Mappings::default();
        if let Some(source) = &self.identity_of {
            // A consumer takes the nearest mapping's position as it is, so
            // the identity needs a mapping at every column (a line's bytes:
            // at least its characters). Built only when a stack is mapped,
            // once per module.
            for (line, text) in source.split('\n').enumerate() {
                for column in 1..=text.len().max(1) {
                    let at = SourcePosition {
                        line: line + 1,
                        column,
                    };
                    mappings.push(at, at);
                }
            }
            return Some(source_map_json(source_name, &mappings.text));
        }
        let (first, first_original) = *self.entries.first()?;
        if first.line > 1 {
            mappings.push(SourcePosition { line: 1, column: 1 }, first_original);
        }
        let mut previous_line = 0;
        for &(generated, original) in &self.entries {
            if generated.line != previous_line && generated.column > 1 {
                let start = SourcePosition {
                    line: generated.line,
                    column: 1,
                };
                mappings.push(start, original);
            }
            previous_line = generated.line;
            mappings.push(generated, original);
        }
        Some(source_map_json(source_name, &mappings.text))
    }
}

fn source_map_json(source_name: &str, mappings: &str) -> Vec<u8> {
    let mut json = String::from(r#"{"version":3,"sources":["#);
    push_json_string(&mut json, source_name);
    json.push_str(r#"],"names":[],"mappings":""#);
    json.push_str(mappings);
    json.push_str("\"}");
    json.into_bytes()
}

/// A source map's `mappings` field, written one segment at a time in
/// generated order: `;` between generated lines, `,` between segments,
/// each segment four base64 VLQ deltas (generated column within the line;
/// source index, original line and original column from the previous
/// segment), all from 0.
struct Mappings {
    text: String,
    /// The generated line being written, from 1.
    line: usize,
    /// Whether that line has a segment yet.
    started: bool,
    column: i64,
    original_line: i64,
    original_column: i64,
}

impl Default for Mappings {
    fn default() -> Self {
        Mappings {
            text: String::new(),
            line: 1,
            started: false,
            column: 0,
            original_line: 0,
            original_column: 0,
        }
    }
}

impl Mappings {
    fn push(&mut self, generated: SourcePosition, original: SourcePosition) {
        while self.line < generated.line {
            self.text.push(';');
            self.line += 1;
            self.started = false;
            self.column = 0;
        }
        if self.started {
            self.text.push(',');
        }
        self.started = true;
        let column = generated.column as i64 - 1;
        let original_line = original.line as i64 - 1;
        let original_column = original.column as i64 - 1;
        self.vlq(column - self.column);
        // The one source, index 0, throughout.
        self.vlq(0);
        self.vlq(original_line - self.original_line);
        self.vlq(original_column - self.original_column);
        self.column = column;
        self.original_line = original_line;
        self.original_column = original_column;
    }

    fn vlq(&mut self, value: i64) {
        const DIGITS: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut rest = (value.unsigned_abs() << 1) | u64::from(value < 0);
        loop {
            let mut digit = (rest & 31) as usize;
            rest >>= 5;
            if rest > 0 {
                digit |= 32;
            }
            self.text.push(DIGITS[digit] as char);
            if rest == 0 {
                break;
            }
        }
    }
}

/// Appends `text` as a JSON string literal.
fn push_json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: usize, column: usize) -> SourcePosition {
        SourcePosition { line, column }
    }

    /// Decodes `mappings` (one source) into (generated, original) pairs,
    /// both 1-based, as a source-map consumer reads them.
    fn decode(mappings: &str) -> Vec<(SourcePosition, SourcePosition)> {
        let digit = |c: u8| {
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                .iter()
                .position(|d| *d == c)
                .unwrap() as i64
        };
        let (mut original_line, mut original_column) = (0i64, 0i64);
        let mut out = Vec::new();
        for (line, text) in mappings.split(';').enumerate() {
            let mut column = 0i64;
            for segment in text.split(',').filter(|s| !s.is_empty()) {
                let mut fields = Vec::new();
                let (mut value, mut shift) = (0i64, 0);
                for c in segment.bytes() {
                    let d = digit(c);
                    value |= (d & 31) << shift;
                    shift += 5;
                    if d & 32 == 0 {
                        let magnitude = value >> 1;
                        fields.push(if value & 1 == 1 {
                            -magnitude
                        } else {
                            magnitude
                        });
                        value = 0;
                        shift = 0;
                    }
                }
                assert_eq!(fields.len(), 4, "{segment}");
                assert_eq!(fields[1], 0, "one source");
                column += fields[0];
                original_line += fields[2];
                original_column += fields[3];
                out.push((
                    at(line + 1, column as usize + 1),
                    at(original_line as usize + 1, original_column as usize + 1),
                ));
            }
        }
        out
    }

    /// The greatest mapping at or before `generated`, as a consumer looks up.
    fn lookup(
        decoded: &[(SourcePosition, SourcePosition)],
        generated: SourcePosition,
    ) -> Option<SourcePosition> {
        decoded
            .iter()
            .rev()
            .find(|(g, _)| *g <= generated)
            .map(|(_, o)| *o)
    }

    fn mappings_of(map: &PositionMap, name: &str) -> (String, serde_json::Value) {
        let json: serde_json::Value =
            serde_json::from_slice(&map.to_source_map_json(name).unwrap()).unwrap();
        (json["mappings"].as_str().unwrap().to_string(), json)
    }

    #[test]
    fn a_source_map_looks_up_what_original_answers() {
        // Line 1 unmapped, line 2 mapped from column 5, line 3 unmapped,
        // line 4 from column 1, original lines going back and forth.
        let map = PositionMap {
            entries: vec![
                (at(2, 5), at(4, 3)),
                (at(2, 9), at(4, 10)),
                (at(2, 30), at(3, 1)),
                (at(4, 1), at(9, 2)),
                (at(4, 7), at(9, 40)),
                (at(6, 3), at(12, 5)),
            ],
            identity_of: None,
        };
        let (mappings, json) = mappings_of(&map, "csvTools.ts");
        assert_eq!(json["version"], 3);
        assert_eq!(json["sources"], serde_json::json!(["csvTools.ts"]));
        let decoded = decode(&mappings);
        for line in 1..=8 {
            for column in 1..=40 {
                let generated = at(line, column);
                assert_eq!(
                    lookup(&decoded, generated),
                    map.original(generated),
                    "{line}:{column} in {mappings}"
                );
            }
        }
    }

    #[test]
    fn a_source_map_of_an_empty_map_is_none_and_names_are_json_strings() {
        assert!(PositionMap::default().to_source_map_json("a.ts").is_none());
        let map = PositionMap {
            entries: vec![(at(1, 1), at(1, 1))],
            identity_of: None,
        };
        let (mappings, json) = mappings_of(&map, "we\"ird\\name\n.ts");
        assert_eq!(mappings, "AAAA");
        assert_eq!(json["sources"][0], "we\"ird\\name\n.ts");
    }

    #[test]
    fn the_identity_maps_every_position_to_itself_in_its_source_map_too() {
        let map = PositionMap::identity("let a = 1;\n\n  throw a;".into());
        assert!(map.is_identity());
        let (mappings, _) = mappings_of(&map, "p.ts");
        let decoded = decode(&mappings);
        for (line, len) in [(1, 10), (2, 1), (3, 10)] {
            for column in 1..=len {
                let generated = at(line, column);
                assert_eq!(map.original(generated), Some(generated));
                assert_eq!(
                    lookup(&decoded, generated),
                    Some(generated),
                    "{line}:{column}"
                );
            }
        }
    }
}
