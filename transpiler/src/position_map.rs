//! Maps a position in the emitted JavaScript back to the TypeScript it came
//! from, so a runtime error names the line the caller wrote.

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
}

impl PositionMap {
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
        PositionMap { entries }
    }

    /// The original position for a generated one: the closest mapping at or
    /// before it on the same line, else the first mapping on that line, else
    /// the closest earlier line's. `None` only for an empty map.
    pub fn original(&self, generated: SourcePosition) -> Option<SourcePosition> {
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
}
