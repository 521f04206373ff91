//! How the [`Eraser`] walks a module: what each kind of node blanks, keeps
//! or sends to the full pipeline.

use swc_common::{BytePos, Span, Spanned};
use swc_ecma_ast::{
    ArrayPat, ArrowExpr, BindingIdent, Class, Decl, Decorator, Expr, ObjectLit, ObjectPat,
    ObjectPatProp, Pat, Prop, PropOrSpread, SimpleAssignTarget, TsAsExpr, TsConstAssertion,
    TsEnumDecl, TsExportAssignment, TsImportEqualsDecl, TsInstantiation, TsModuleDecl,
    TsNamespaceExportDecl, TsNonNullExpr, TsParamProp, TsSatisfiesExpr, TsThisParam, TsType,
    TsTypeAnn, TsTypeAssertion, TsTypeParamDecl, TsTypeParamInstantiation, VarDeclarator,
};
use swc_ecma_visit::{Visit, VisitWith};

use super::{is_type_only, Eraser};

/// Visitor methods for nodes whose mere presence sends the module to the
/// full pipeline.
macro_rules! needs_lowering {
    ($($method:ident($node:ty)),* $(,)?) => {
        $(
            fn $method(&mut self, _: &$node) {
                self.lowering_needed = true;
            }
        )*
    };
}

impl Visit for Eraser<'_> {
    fn visit_decl(&mut self, n: &Decl) {
        if is_type_only(n) {
            self.remove(n.span());
        } else {
            n.visit_children_with(self);
        }
    }

    // Where an `@` may stand as text: literals, whose spans the check for
    // dropped decorators skips.
    fn visit_str(&mut self, n: &swc_ecma_ast::Str) {
        self.literal(n.span);
    }

    fn visit_tpl_element(&mut self, n: &swc_ecma_ast::TplElement) {
        self.literal(n.span);
    }

    fn visit_regex(&mut self, n: &swc_ecma_ast::Regex) {
        self.literal(n.span);
    }

    // Types are blanked whole and never walked.
    fn visit_ts_type(&mut self, _: &TsType) {}

    fn visit_ts_type_ann(&mut self, n: &TsTypeAnn) {
        self.blank(n.span);
    }

    fn visit_ts_type_param_decl(&mut self, n: &TsTypeParamDecl) {
        self.blank(n.span);
    }

    fn visit_ts_type_param_instantiation(&mut self, n: &TsTypeParamInstantiation) {
        self.blank(n.span);
    }

    fn visit_ts_as_expr(&mut self, n: &TsAsExpr) {
        self.expression_then_type(&n.expr, n.span);
    }

    fn visit_ts_satisfies_expr(&mut self, n: &TsSatisfiesExpr) {
        self.expression_then_type(&n.expr, n.span);
    }

    fn visit_ts_const_assertion(&mut self, n: &TsConstAssertion) {
        self.expression_then_type(&n.expr, n.span);
    }

    fn visit_ts_non_null_expr(&mut self, n: &TsNonNullExpr) {
        self.expression_then_type(&n.expr, n.span);
    }

    fn visit_ts_instantiation(&mut self, n: &TsInstantiation) {
        n.expr.visit_with(self);
        self.blank(n.type_args.span);
        self.check_tail(n.span.hi);
    }

    fn visit_ts_this_param(&mut self, n: &TsThisParam) {
        // `this: T,` goes with its comma.
        self.remove_list_entry(n.span);
    }

    fn visit_arrow_expr(&mut self, n: &ArrowExpr) {
        if let Some(params) = &n.type_params {
            self.blank(params.span);
            if self.has_line_break(params.span) {
                // `async <T,\n U>(x) => …` blanked would leave `async` alone
                // on its line (and `return <T,\n U>(x) => …` would return
                // nothing): the parameter list opens where `<` was.
                let (lo, hi) = (self.at(params.span.lo), self.at(params.span.hi));
                match self.next_significant(hi) {
                    Some((paren, _)) if self.byte(paren) == b'(' => {
                        self.blank_range(paren, paren + 1);
                        self.overwrites.push((lo, b'('));
                    }
                    _ => {
                        self.lowering_needed = true;
                        return;
                    }
                }
            }
        }
        if let Some(ret) = &n.return_type {
            // `)` and `=>` must end up on one line: when the return type
            // spans lines, `)` moves to the type's last byte.
            let (lo, hi) = (self.at(ret.span.lo), self.at(ret.span.hi));
            let paren = self.src[..lo]
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .filter(|&p| self.src[p] == b')');
            let arrow_follows = match self.next_significant(hi) {
                Some((i, line_break)) => !line_break && self.src.get(i..i + 2) == Some(b"=>"),
                None => false,
            };
            let (Some(paren), true) = (paren, arrow_follows) else {
                self.lowering_needed = true;
                return;
            };
            self.blank(ret.span);
            if self.has_line_break(Span::new(BytePos(self.start + paren as u32), ret.span.hi)) {
                if !self.src[hi - 1].is_ascii() {
                    self.lowering_needed = true;
                    return;
                }
                self.blank_range(paren, paren + 1);
                self.overwrites.push((hi - 1, b')'));
            }
        }
        n.params.visit_with(self);
        n.body.visit_with(self);
    }

    fn visit_class(&mut self, n: &Class) {
        if n.is_abstract {
            let lo = self.at(n.span.lo);
            if self.src[lo..].starts_with(b"abstract") {
                self.blank_range(lo, lo + "abstract".len());
            } else {
                self.lowering_needed = true;
                return;
            }
        }
        if let (Some(first), Some(last)) = (n.implements.first(), n.implements.last()) {
            let lo = self.at(first.span.lo);
            let keyword = self.src[..lo]
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .map(|end| end + 1);
            match keyword {
                Some(end) if self.src[..end].ends_with(b"implements") => {
                    self.blank_range(end - "implements".len(), self.at(last.span.hi))
                }
                _ => {
                    self.lowering_needed = true;
                    return;
                }
            }
        }
        n.decorators.visit_with(self);
        n.super_class.visit_with(self);
        n.super_type_params.visit_with(self);
        n.type_params.visit_with(self);
        for member in &n.body {
            self.class_member(member);
        }
    }

    fn visit_binding_ident(&mut self, n: &BindingIdent) {
        self.bind(&n.id.sym);
        // swc turns an arrow parameter written as an angle-bracket
        // assertion, `(<T>x) => x`, into `x` annotated with `T`, the
        // annotation's span covering the name: blanking it would drop the
        // parameter. (swc's span of a parameter's name can take in its
        // type, so where the name ends is read from the source.)
        if let Some(ann) = &n.type_ann {
            if self.name_end(&n.id).is_none_or(|end| ann.span.lo < end) {
                self.lowering_needed = true;
                return;
            }
        }
        if n.optional {
            self.blank_mark_after_name(&n.id);
        }
        n.type_ann.visit_with(self);
    }

    fn visit_var_declarator(&mut self, n: &VarDeclarator) {
        if n.definite {
            match &n.name {
                Pat::Ident(id) => {
                    let end = self.name_end(&id.id);
                    match end {
                        Some(end) => self.blank_mark_after(end, b'!'),
                        None => self.lowering_needed = true,
                    }
                }
                _ => self.lowering_needed = true,
            }
        }
        n.visit_children_with(self);
    }

    fn visit_array_pat(&mut self, n: &ArrayPat) {
        if n.optional {
            self.lowering_needed = true;
        }
        n.visit_children_with(self);
    }

    fn visit_object_pat(&mut self, n: &ObjectPat) {
        if n.optional {
            self.lowering_needed = true;
        }
        let entries = n.props.iter().map(|prop| match prop {
            ObjectPatProp::KeyValue(p) => (Some(p.key.span().lo), p.span().hi),
            ObjectPatProp::Assign(p) => (Some(p.key.id.span.lo), p.span.hi),
            ObjectPatProp::Rest(p) => (Some(p.span.lo), p.span.hi),
        });
        self.entries_start_at_their_keys(n.span.lo, entries);
        n.visit_children_with(self);
    }

    fn visit_object_lit(&mut self, n: &ObjectLit) {
        let entries = n.props.iter().map(|prop| match prop {
            PropOrSpread::Spread(s) => (Some(s.dot3_token.lo), s.span().hi),
            PropOrSpread::Prop(p) => {
                let first = match &**p {
                    Prop::Shorthand(id) => Some(id.span.lo),
                    Prop::KeyValue(kv) => Some(kv.key.span().lo),
                    Prop::Assign(a) => Some(a.key.span.lo),
                    Prop::Method(m) if !m.function.is_async && !m.function.is_generator => {
                        Some(m.key.span().lo)
                    }
                    // `get`, `set`, `async` or `*` come first; swc refuses
                    // a modifier before them.
                    Prop::Method(_) | Prop::Getter(_) | Prop::Setter(_) => None,
                };
                (first, p.span().hi)
            }
        });
        self.entries_start_at_their_keys(n.span.lo, entries);
        n.visit_children_with(self);
    }

    fn visit_fn_decl(&mut self, n: &swc_ecma_ast::FnDecl) {
        self.bind(&n.ident.sym);
        n.function.visit_with(self);
    }

    fn visit_fn_expr(&mut self, n: &swc_ecma_ast::FnExpr) {
        if let Some(id) = &n.ident {
            self.bind(&id.sym);
        }
        n.function.visit_with(self);
    }

    fn visit_class_decl(&mut self, n: &swc_ecma_ast::ClassDecl) {
        self.bind(&n.ident.sym);
        n.class.visit_with(self);
    }

    fn visit_class_expr(&mut self, n: &swc_ecma_ast::ClassExpr) {
        if let Some(id) = &n.ident {
            self.bind(&id.sym);
        }
        n.class.visit_with(self);
    }

    fn visit_expr(&mut self, n: &Expr) {
        if let Expr::Ident(id) = n {
            self.read(&id.sym);
        } else {
            n.visit_children_with(self);
        }
    }

    fn visit_prop(&mut self, n: &Prop) {
        if let Prop::Shorthand(id) = n {
            self.read(&id.sym);
        } else {
            n.visit_children_with(self);
        }
    }

    fn visit_simple_assign_target(&mut self, n: &SimpleAssignTarget) {
        // Assigning to a name neither binds nor reads it: the full
        // pipeline drops an import that is only assigned to.
        if !matches!(n, SimpleAssignTarget::Ident(_)) {
            n.visit_children_with(self);
        }
    }

    // What only the full pipeline can lower.
    needs_lowering! {
        visit_ts_type_assertion(TsTypeAssertion),
        visit_ts_enum_decl(TsEnumDecl),
        visit_ts_module_decl(TsModuleDecl),
        visit_ts_param_prop(TsParamProp),
        visit_decorator(Decorator),
        visit_ts_import_equals_decl(TsImportEqualsDecl),
        visit_ts_export_assignment(TsExportAssignment),
        visit_ts_namespace_export_decl(TsNamespaceExportDecl),
    }
}
