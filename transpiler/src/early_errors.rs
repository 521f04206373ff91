//! Syntax errors swc's parser leaves in the tree it returns.
//!
//! `{ a = 0 }` is a shorthand property with a default: JavaScript's grammar
//! admits it only as a destructuring pattern (`({ a = 0 } = value)`, a
//! parameter, a `for … of` head), which the parser learns only after
//! reading it, so it parses every object literal with such properties and
//! rewrites the ones that turn out to be patterns. Those left are syntax
//! errors, and swc reports them only inside parentheses (its optional
//! verifier, off in gg's build, adds some statements but not `throw`,
//! `return` or an arrow's body). Passed through, the engine refused the
//! program at load, and erasing types in place and compiling fully printed
//! it differently. Every one left in the finished tree is reported here,
//! where the parser's own errors are.

use swc_common::{Span, Spanned};
use swc_ecma_ast::{AssignProp, Module};
use swc_ecma_visit::{noop_visit_type, Visit, VisitWith};

/// Each shorthand property with a default left in `module`'s object
/// literals, with its span and a message that says how to write it.
pub(crate) fn find(
    module: &Module,
    source: &str,
    start: swc_common::BytePos,
) -> Vec<(Span, String)> {
    let mut finder = AssignProps {
        source,
        start,
        found: Vec::new(),
    };
    module.visit_with(&mut finder);
    finder.found
}

struct AssignProps<'a> {
    source: &'a str,
    start: swc_common::BytePos,
    found: Vec<(Span, String)>,
}

impl Visit for AssignProps<'_> {
    noop_visit_type!();

    fn visit_assign_prop(&mut self, prop: &AssignProp) {
        let key = &prop.key.sym;
        let span = prop.span();
        let written = span
            .lo
            .0
            .checked_sub(self.start.0)
            .zip(span.hi.0.checked_sub(self.start.0))
            .and_then(|(lo, hi)| self.source.get(lo as usize..hi as usize))
            .filter(|text| text.len() <= 60 && !text.contains(['\n', '\r']));
        let shown = written.map_or_else(|| format!("{key} = …"), str::to_string);
        self.found.push((
            span,
            format!(
                "`{shown}` in an object literal: a property with a default (`=`) is valid only \
                 where the object is a destructuring pattern; in an object value write \
                 `{key}: …` instead"
            ),
        ));
        prop.value.visit_with(self);
    }
}
