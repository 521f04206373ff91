//! The top-level functions a module declares, with their signatures as the
//! author wrote them: what a documentation view shows a model.

use serde::Serialize;
use swc_common::{BytePos, Span, Spanned};
use swc_ecma_ast::{
    ArrowExpr, Decl, DefaultDecl, ExportSpecifier, Expr, Function, ModuleDecl, ModuleExportName,
    ModuleItem, Pat, Stmt, TsTypeAnn, TsTypeParamDecl, VarDecl,
};

/// One top-level function of a module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeclaredFunction {
    /// The name a program imports it by (`default` for a default export).
    pub name: String,
    /// `name<T>(params): ReturnType`, with `async`/`*` where they apply.
    pub signature: String,
    /// Whether another module can import it.
    pub exported: bool,
    /// The JSDoc block just above it, cleaned of its `*` gutter.
    pub doc: Option<String>,
    /// 1-based line of the declaration.
    pub line: usize,
}

/// The functions `source` declares, from a parse of its own on the
/// compiler's deep stack; none when it does not parse (it parsed once
/// already, so that would be gg's defect, not the author's).
pub(crate) fn of_source(source: &str) -> Vec<DeclaredFunction> {
    crate::deep_stack::run(|| {
        std::panic::catch_unwind(|| match crate::strip::parse(source) {
            Ok(module) => collect(&module, source, crate::strip::START),
            Err(_) => Vec::new(),
        })
        .unwrap_or_default()
    })
    .unwrap_or_default()
}

pub(crate) fn collect(
    module: &swc_ecma_ast::Module,
    source: &str,
    start: BytePos,
) -> Vec<DeclaredFunction> {
    let text = |span: Span| -> &str {
        let lo = (span.lo.0 - start.0) as usize;
        let hi = (span.hi.0 - start.0) as usize;
        source.get(lo..hi).unwrap_or("")
    };
    // Offsets of the source's line breaks, found once on the first lookup.
    let line_breaks: std::cell::OnceCell<Vec<usize>> = std::cell::OnceCell::new();
    let line_of = |pos: BytePos| -> usize {
        let offset = ((pos.0 - start.0) as usize).min(source.len());
        let breaks =
            line_breaks.get_or_init(|| memchr::memchr_iter(b'\n', source.as_bytes()).collect());
        breaks.partition_point(|&at| at < offset) + 1
    };
    // Between two top-level items there is only whitespace and comments,
    // so the item's JSDoc is read from that gap: the parser keeps no
    // comments.
    let doc_at = |gap_lo: usize, pos: BytePos| -> Option<String> {
        let hi = ((pos.0 - start.0) as usize).min(source.len());
        jsdoc_in_gap(source.get(gap_lo..hi)?, gap_lo == 0).map(clean_jsdoc)
    };
    let sig = Signature { text: &text };

    let mut found: Vec<DeclaredFunction> = Vec::new();
    // Positions in `found` of overload signatures (a function declared
    // without a body).
    let mut overloads: Vec<usize> = Vec::new();
    // Where the gap before the item being read starts.
    let mut gap_lo = 0;
    let mut push = |gap_lo: usize,
                    name: String,
                    signature: String,
                    exported: bool,
                    at: Span,
                    overload: bool| {
        if overload {
            overloads.push(found.len());
        }
        found.push(DeclaredFunction {
            name,
            signature,
            exported,
            doc: doc_at(gap_lo, at.lo),
            line: line_of(at.lo),
        });
    };
    let is_overload =
        |decl: &Decl| matches!(decl, Decl::Fn(f) if f.function.body.is_none() && !f.declare);

    for item in &module.body {
        let gap = gap_lo;
        gap_lo = ((item.span().hi.0 - start.0) as usize).min(source.len());
        match item {
            ModuleItem::Stmt(Stmt::Decl(decl)) => {
                for (name, signature) in sig.of_decl(decl) {
                    push(gap, name, signature, false, decl.span(), is_overload(decl));
                }
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(export)) => {
                for (name, signature) in sig.of_decl(&export.decl) {
                    push(
                        gap,
                        name,
                        signature,
                        true,
                        export.span,
                        is_overload(&export.decl),
                    );
                }
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportDefaultDecl(export)) => {
                if let DefaultDecl::Fn(f) = &export.decl {
                    push(
                        gap,
                        "default".into(),
                        sig.of_function("default", &f.function),
                        true,
                        export.span,
                        false,
                    );
                }
            }
            ModuleItem::ModuleDecl(ModuleDecl::ExportDefaultExpr(export)) => {
                if let Expr::Arrow(arrow) = &*export.expr {
                    push(
                        gap,
                        "default".into(),
                        sig.of_arrow("default", arrow),
                        true,
                        export.span,
                        false,
                    );
                }
            }
            _ => {}
        }
    }

    let mut found = merge_overloads(found, &overloads);

    // `export { a, b as c }` exports functions declared above.
    for item in &module.body {
        let ModuleItem::ModuleDecl(ModuleDecl::ExportNamed(named)) = item else {
            continue;
        };
        if named.src.is_some() || named.type_only {
            continue;
        }
        for spec in &named.specifiers {
            let ExportSpecifier::Named(spec) = spec else {
                continue;
            };
            if spec.is_type_only {
                continue;
            }
            let orig = export_name(&spec.orig);
            let exported = spec
                .exported
                .as_ref()
                .map(export_name)
                .unwrap_or_else(|| orig.clone());
            if let Some(local) = found.iter().position(|f| f.name == orig && !f.exported) {
                let mut function = found[local].clone();
                function.signature = function.signature.replacen(&orig, &exported, 1);
                function.name = exported;
                function.exported = true;
                found[local] = function;
            }
        }
    }
    found
}

/// An overloaded function is one entry: its overload signatures, one per
/// line, and the doc and line of the first; the implementation's own
/// signature, which callers cannot use, is dropped.
fn merge_overloads(found: Vec<DeclaredFunction>, overloads: &[usize]) -> Vec<DeclaredFunction> {
    let mut merged: Vec<DeclaredFunction> = Vec::new();
    // The name whose overloads are being gathered, at `merged`'s end.
    let mut gathering: Option<String> = None;
    for (at, function) in found.into_iter().enumerate() {
        let overload = overloads.contains(&at);
        match (&gathering, merged.last_mut()) {
            (Some(name), Some(last)) if *name == function.name => {
                if overload {
                    last.signature.push('\n');
                    last.signature.push_str(&function.signature);
                } else {
                    // The implementation ends the group.
                    gathering = None;
                }
                continue;
            }
            _ => {}
        }
        gathering = overload.then(|| function.name.clone());
        merged.push(function);
    }
    merged
}

fn export_name(name: &ModuleExportName) -> String {
    match name {
        ModuleExportName::Ident(ident) => ident.sym.to_string(),
        ModuleExportName::Str(s) => s.value.to_string_lossy().into_owned(),
    }
}

struct Signature<'a, F: Fn(Span) -> &'a str> {
    text: &'a F,
}

impl<'a, F: Fn(Span) -> &'a str> Signature<'a, F> {
    fn of_decl(&self, decl: &Decl) -> Vec<(String, String)> {
        match decl {
            Decl::Fn(f) => {
                let name = f.ident.sym.to_string();
                vec![(name.clone(), self.of_function(&name, &f.function))]
            }
            Decl::Var(var) => self.of_var(var),
            _ => Vec::new(),
        }
    }

    fn of_var(&self, var: &VarDecl) -> Vec<(String, String)> {
        var.decls
            .iter()
            .filter_map(|d| {
                let Pat::Ident(binding) = &d.name else {
                    return None;
                };
                let name = binding.id.sym.to_string();
                match d.init.as_deref()? {
                    Expr::Arrow(arrow) => Some((name.clone(), self.of_arrow(&name, arrow))),
                    Expr::Fn(f) => Some((name.clone(), self.of_function(&name, &f.function))),
                    _ => None,
                }
            })
            .collect()
    }

    fn of_function(&self, name: &str, f: &Function) -> String {
        let params: Vec<Span> = f.params.iter().map(|p| p.span).collect();
        self.render(
            name,
            f.is_async,
            f.is_generator,
            f.type_params.as_deref(),
            &params,
            f.return_type.as_deref(),
        )
    }

    fn of_arrow(&self, name: &str, f: &ArrowExpr) -> String {
        let params: Vec<Span> = f.params.iter().map(|p| p.span()).collect();
        self.render(
            name,
            f.is_async,
            f.is_generator,
            f.type_params.as_deref(),
            &params,
            f.return_type.as_deref(),
        )
    }

    fn render(
        &self,
        name: &str,
        is_async: bool,
        is_generator: bool,
        type_params: Option<&TsTypeParamDecl>,
        params: &[Span],
        return_type: Option<&TsTypeAnn>,
    ) -> String {
        let mut out = String::new();
        if is_async {
            out.push_str("async ");
        }
        if is_generator {
            out.push('*');
        }
        out.push_str(name);
        if let Some(tp) = type_params {
            out.push_str((self.text)(tp.span));
        }
        out.push('(');
        let params: Vec<&str> = params.iter().map(|s| (self.text)(*s)).collect();
        out.push_str(&params.join(", "));
        out.push(')');
        if let Some(ret) = return_type {
            out.push_str(": ");
            out.push_str((self.text)(ret.type_ann.span()));
        }
        collapse_whitespace(&out)
    }
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("( ", "(")
        .replace(" )", ")")
}

/// The last `/** … */` block (its text after `/*`) among the comments that
/// lead the next item in `gap`, which holds only whitespace and comments:
/// a comment on the same line as the previous item's end follows that item
/// (unless `at_start`: nothing comes before).
fn jsdoc_in_gap(gap: &str, at_start: bool) -> Option<&str> {
    let bytes = gap.as_bytes();
    let mut leading = at_start;
    let mut doc = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' | b'\r' => {
                leading = true;
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += memchr::memchr2(b'\n', b'\r', &bytes[i..]).unwrap_or(bytes.len() - i);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = memchr::memmem::find(&bytes[i + 2..], b"*/")? + i + 2;
                let text = &gap[i + 2..end];
                if leading && text.starts_with('*') {
                    doc = Some(text);
                }
                i = end + 2;
            }
            0xe2 if matches!(bytes.get(i + 1..i + 3), Some([0x80, 0xa8 | 0xa9])) => {
                leading = true;
                i += 3;
            }
            _ => i += 1,
        }
    }
    doc
}

fn clean_jsdoc(raw: &str) -> String {
    raw.trim_start_matches('*')
        .lines()
        .map(|l| l.trim().trim_start_matches('*').trim())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod gap_tests {
    use super::jsdoc_in_gap;

    #[test]
    fn the_doc_is_the_last_jsdoc_block_that_leads_the_item() {
        assert_eq!(jsdoc_in_gap("\n/** Adds. */\n", false), Some("* Adds. "));
        // A comment on the previous item's line belongs to that item.
        assert_eq!(jsdoc_in_gap(" /** tail */\n", false), None);
        assert_eq!(jsdoc_in_gap("/** first */\n", true), Some("* first "));
        assert_eq!(
            jsdoc_in_gap("\n/** one */\n/** two */\n// note\n", false),
            Some("* two ")
        );
        assert_eq!(jsdoc_in_gap("\n/* plain */\n", false), None);
        assert_eq!(jsdoc_in_gap("\n// /** in a line comment */\n", false), None);
        assert_eq!(jsdoc_in_gap("\n/** a /* b */\n", false), Some("* a /* b "));
        assert_eq!(jsdoc_in_gap("\n/** unterminated", false), None);
    }
}
