use swc_atoms::atom;
use swc_common::Span;
use swc_ecma_ast::*;

use crate::{
    error::SyntaxError,
    input::Tokens,
    lexer::Token,
    parser::{BoundaryContext, StatementGrammar, TypeContext},
    Context, PResult, Parser,
};

impl<I: Tokens> Parser<I> {
    pub fn parse_module_item(&mut self) -> PResult<ModuleItem> {
        self.do_inside_of_boundary_context(BoundaryContext::TopLevel, |p| {
            p.parse_stmt_like(StatementGrammar::ModuleItem, handle_import_export)
        })
    }

    /// Leaves a closing delimiter buffered so the container owns its
    /// consumption.
    pub(crate) fn parse_module_item_block_body(
        &mut self,
        allow_directives: bool,
        end: Option<Token>,
    ) -> PResult<Vec<ModuleItem>> {
        self.parse_block_body(allow_directives, end, handle_import_export)
    }

    /// Parses attributes shared by imports and re-exports. Only the legacy
    /// `assert` keyword has a no-line-terminator restriction before it.
    fn parse_import_attributes(&mut self) -> PResult<Option<Box<ObjectLit>>> {
        if !self.input().syntax().import_attributes() {
            return Ok(None);
        }

        match self.input().cur() {
            Token::With => {}
            Token::Assert if !self.input().had_line_break_before_cur() => {}
            _ => return Ok(None),
        }
        self.bump();

        match self.parse_object_expr()? {
            Expr::Object(v) => Ok(Some(Box::new(v))),
            _ => unreachable!(),
        }
    }

    /// Parses `from 'foo.js' with {};` or `from 'foo.js' assert {};`
    fn parse_from_clause_and_semi(&mut self) -> PResult<(Box<Str>, Option<Box<ObjectLit>>)> {
        expect!(self, Token::From);

        let cur = self.input().cur();
        let src = if cur == Token::Str {
            Box::new(self.parse_str_lit())
        } else {
            unexpected!(self, "a string literal")
        };
        let with = self.parse_import_attributes()?;
        self.expect_general_semi()?;
        Ok((src, with))
    }

    fn parse_named_export_specifier(&mut self, type_only: bool) -> PResult<ExportNamedSpecifier> {
        let start = self.cur_pos();

        let mut is_type_only = false;

        let orig_token = self.input().cur();
        let orig = match self.parse_module_export_name()? {
            ModuleExportName::Ident(orig_ident) => {
                // Handle:
                // `export { type xx }`
                // `export { type xx as yy }`
                // `export { type as }`
                // `export { type as as }`
                // `export { type as as as }`
                // These names may also be string ModuleExportNames.
                if self.syntax().typescript()
                    && orig_token == Token::Type
                    && (self.input().cur().is_word() || self.input().cur() == Token::Str)
                {
                    let possibly_orig_token = self.input().cur();
                    let possibly_orig = self.parse_module_export_name()?;
                    if possibly_orig_token == Token::As {
                        // `export { type as }`
                        if !(self.input().cur().is_word() || self.input().cur() == Token::Str) {
                            if type_only {
                                self.emit_err(orig_ident.span, SyntaxError::TS2207);
                            }

                            return Ok(ExportNamedSpecifier {
                                span: self.span(start),
                                orig: possibly_orig,
                                exported: None,
                                is_type_only: true,
                            });
                        }

                        let maybe_as_token = self.input().cur();
                        let maybe_as = self.parse_module_export_name()?;
                        if maybe_as_token == Token::As {
                            if self.input().cur().is_word() || self.input().cur() == Token::Str {
                                // `export { type as as as }`
                                // `export { type as as foo }`
                                let exported = self.parse_module_export_name()?;

                                if type_only {
                                    self.emit_err(orig_ident.span, SyntaxError::TS2207);
                                }

                                return Ok(ExportNamedSpecifier {
                                    span: self.span(start),
                                    orig: possibly_orig,
                                    exported: Some(exported),
                                    is_type_only: true,
                                });
                            } else {
                                // `export { type as as }`
                                return Ok(ExportNamedSpecifier {
                                    span: self.span(start),
                                    orig: ModuleExportName::Ident(orig_ident),
                                    exported: Some(maybe_as),
                                    is_type_only: false,
                                });
                            }
                        } else {
                            // `export { type as xxx }`
                            return Ok(ExportNamedSpecifier {
                                span: self.span(start),
                                orig: ModuleExportName::Ident(orig_ident),
                                exported: Some(maybe_as),
                                is_type_only: false,
                            });
                        }
                    } else {
                        // `export { type xx }`
                        // `export { type xx as yy }`
                        if type_only {
                            self.emit_err(orig_ident.span, SyntaxError::TS2207);
                        }

                        is_type_only = true;
                        possibly_orig
                    }
                } else {
                    ModuleExportName::Ident(orig_ident)
                }
            }
            module_export_name => module_export_name,
        };

        let exported = if self.input_mut().eat(Token::As) {
            Some(self.parse_module_export_name()?)
        } else {
            None
        };

        Ok(ExportNamedSpecifier {
            span: self.span(start),
            orig,
            exported,
            is_type_only,
        })
    }

    fn parse_imported_binding(&mut self) -> PResult<Ident> {
        // ImportedBinding : BindingIdentifier[~Yield, ~Await].
        let binding = with_grammar_context!(self, [~Yield, ~Await], |p| {
            p.parse_binding_ident(false)
        })?;
        Ok(binding.into())
    }

    fn parse_imported_default_binding(&mut self) -> PResult<Ident> {
        self.parse_imported_binding()
    }

    /// Parse `foo`, `foo2 as bar` in `import { foo, foo2 as bar }`
    fn parse_import_specifier(&mut self, type_only: bool) -> PResult<ImportSpecifier> {
        let mut escaped_keyword_error = self.input().escaped_keyword_error();
        let start = self.cur_pos();
        let orig_token = self.input().cur();
        match self.parse_module_export_name()? {
            ModuleExportName::Ident(mut orig_name) => {
                let mut is_type_only = false;
                // Handle:
                // `import { type xx } from 'mod'`
                // `import { type xx as yy } from 'mod'`
                // `import { type "xx" as yy } from 'mod'`
                // `import { type as } from 'mod'`
                // `import { type as as } from 'mod'`
                // `import { type as as as } from 'mod'`
                if self.syntax().typescript()
                    && (orig_token == Token::Type
                        || (self.syntax().flow_types_enabled() && orig_token == Token::TypeOf))
                {
                    if self.syntax().flow_types_enabled()
                        && orig_token == Token::TypeOf
                        && self.input().cur().is_word()
                    {
                        let escaped_keyword_error = self.input().escaped_keyword_error();
                        let imported = self.parse_module_export_name()?;
                        let local = if self.input_mut().eat(Token::As) {
                            self.parse_binding_ident(false)?.into()
                        } else {
                            if let Some(error) = escaped_keyword_error {
                                self.emit_error(error);
                            }
                            match &imported {
                                ModuleExportName::Ident(i) => i.clone(),
                                ModuleExportName::Str(s) => {
                                    syntax_error!(
                                        self,
                                        s.span,
                                        SyntaxError::ImportBindingIsString(
                                            s.value.to_string_lossy().into()
                                        )
                                    )
                                }
                                #[cfg(swc_ast_unknown)]
                                _ => unreachable!(),
                            }
                        };

                        if self.input().syntax().flow() {
                            if let ModuleExportName::Ident(imported) = &imported {
                                self.emit_flow_reserved_type_name_error(
                                    imported.span,
                                    &imported.sym,
                                );
                            }
                            self.emit_flow_reserved_type_name_error(local.span, &local.sym);
                        }

                        if type_only {
                            self.emit_err(orig_name.span, SyntaxError::TS2206);
                        }

                        return Ok(ImportSpecifier::Named(ImportNamedSpecifier {
                            span: Span::new_with_checked(start, local.span.hi()),
                            local,
                            imported: Some(imported),
                            is_type_only: true,
                        }));
                    }

                    if self.syntax().flow_types_enabled()
                        && orig_token == Token::TypeOf
                        && !self.input().cur().is_word()
                    {
                        self.emit_err(orig_name.span, SyntaxError::TS1003);
                    }

                    // Handle `import { type "string" as foo }` case
                    if self.input().cur() == Token::Str {
                        let imported = self.parse_module_export_name()?;
                        expect!(self, Token::As);
                        let local: Ident = self.parse_binding_ident(false)?.into();

                        if type_only {
                            self.emit_err(orig_name.span, SyntaxError::TS2206);
                        }

                        return Ok(ImportSpecifier::Named(ImportNamedSpecifier {
                            span: Span::new_with_checked(start, local.span.hi()),
                            local,
                            imported: Some(imported),
                            is_type_only: true,
                        }));
                    }

                    if self.input().cur().is_word() {
                        let possibly_orig_token = self.input().cur();
                        escaped_keyword_error = self.input().escaped_keyword_error();
                        let possibly_orig_name = self.parse_ident_name().map(Ident::from)?;
                        if possibly_orig_token == Token::As {
                            // `import { type as } from 'mod'`
                            if !self.input().cur().is_word() {
                                if self.word_is_reserved(&possibly_orig_name.sym) {
                                    syntax_error!(
                                        self,
                                        possibly_orig_name.span,
                                        SyntaxError::ReservedWordInImport
                                    )
                                }

                                if type_only {
                                    self.emit_err(orig_name.span, SyntaxError::TS2206);
                                }

                                return Ok(ImportSpecifier::Named(ImportNamedSpecifier {
                                    span: self.span(start),
                                    local: possibly_orig_name,
                                    imported: None,
                                    is_type_only: true,
                                }));
                            }

                            let maybe_as_token = self.input().cur();
                            let maybe_as: Ident = self.parse_binding_ident(false)?.into();
                            if maybe_as_token == Token::As {
                                if self.input().cur().is_word() {
                                    // `import { type as as as } from 'mod'`
                                    // `import { type as as foo } from 'mod'`
                                    let local: Ident = self.parse_binding_ident(false)?.into();

                                    if type_only {
                                        self.emit_err(orig_name.span, SyntaxError::TS2206);
                                    }

                                    return Ok(ImportSpecifier::Named(ImportNamedSpecifier {
                                        span: Span::new_with_checked(start, local.span.hi()),
                                        local,
                                        imported: Some(ModuleExportName::Ident(possibly_orig_name)),
                                        is_type_only: true,
                                    }));
                                } else {
                                    // `import { type as as } from 'mod'`
                                    return Ok(ImportSpecifier::Named(ImportNamedSpecifier {
                                        span: Span::new_with_checked(start, maybe_as.span.hi()),
                                        local: maybe_as,
                                        imported: Some(ModuleExportName::Ident(orig_name)),
                                        is_type_only: false,
                                    }));
                                }
                            } else {
                                // `import { type as xxx } from 'mod'`
                                return Ok(ImportSpecifier::Named(ImportNamedSpecifier {
                                    span: Span::new_with_checked(start, maybe_as.span.hi()),
                                    local: maybe_as,
                                    imported: Some(ModuleExportName::Ident(orig_name)),
                                    is_type_only: false,
                                }));
                            }
                        } else {
                            // `import { type xx } from 'mod'`
                            // `import { type xx as yy } from 'mod'`
                            if type_only {
                                self.emit_err(orig_name.span, SyntaxError::TS2206);
                            }

                            orig_name = possibly_orig_name;
                            is_type_only = true;
                        }
                    }
                }

                if self.input_mut().eat(Token::As) {
                    let local: Ident = self.parse_binding_ident(false)?.into();
                    if self.input().syntax().flow() && (type_only || is_type_only) {
                        self.emit_flow_reserved_type_name_error(local.span, &local.sym);
                    }
                    return Ok(ImportSpecifier::Named(ImportNamedSpecifier {
                        span: Span::new_with_checked(start, local.span.hi()),
                        local,
                        imported: Some(ModuleExportName::Ident(orig_name)),
                        is_type_only,
                    }));
                }

                if let Some(error) = escaped_keyword_error {
                    self.emit_error(error);
                }

                // Handle difference between
                //
                // 'ImportedBinding'
                // 'IdentifierName' as 'ImportedBinding'
                if self.input().syntax().flow() && orig_name.sym == *"default" {
                    self.emit_err(orig_name.span, SyntaxError::TS1003);
                }
                if self.word_is_reserved(&orig_name.sym)
                    && !(self.input().syntax().flow() && (type_only || is_type_only))
                {
                    syntax_error!(self, orig_name.span, SyntaxError::ReservedWordInImport)
                }

                let local = orig_name;
                if self.input().syntax().flow() && (type_only || is_type_only) {
                    self.emit_flow_reserved_type_name_error(local.span, &local.sym);
                }
                Ok(ImportSpecifier::Named(ImportNamedSpecifier {
                    span: self.span(start),
                    local,
                    imported: None,
                    is_type_only,
                }))
            }
            ModuleExportName::Str(orig_str) => {
                if self.input_mut().eat(Token::As) {
                    let local: Ident = self.parse_binding_ident(false)?.into();
                    Ok(ImportSpecifier::Named(ImportNamedSpecifier {
                        span: Span::new_with_checked(start, local.span.hi()),
                        local,
                        imported: Some(ModuleExportName::Str(orig_str)),
                        is_type_only: false,
                    }))
                } else {
                    syntax_error!(
                        self,
                        orig_str.span,
                        SyntaxError::ImportBindingIsString(orig_str.value.to_string_lossy().into())
                    )
                }
            }
            #[cfg(swc_ast_unknown)]
            _ => unreachable!(),
        }
    }

    pub(crate) fn parse_export(&mut self, mut decorators: Vec<Decorator>) -> PResult<ModuleDecl> {
        if !self.ctx().contains(Context::Module)
            && self.boundary_ctx().contains(BoundaryContext::TopLevel)
        {
            // Switch to module mode
            let ctx = self.ctx() | Context::Module | Context::Strict;
            self.set_ctx(ctx);
        }

        let start = self.cur_pos();
        self.assert_and_bump(Token::Export);

        let cur = self.input().cur();
        if cur == Token::Eof {
            return Err(self.eof_error());
        }

        let after_export_start = self.cur_pos();

        // "export declare" is equivalent to just "export".
        let declare = self.input().syntax().typescript() && self.input_mut().eat(Token::Declare);

        if declare {
            // TODO: Remove
            if let Some(decl) = self.try_parse_ts_declare(after_export_start, decorators.clone())? {
                return Ok(ExportDecl {
                    span: self.span(start),
                    decl,
                }
                .into());
            }
        }

        if self.input().syntax().typescript() {
            let cur = self.input().cur();
            if cur.is_word() {
                let sym = cur.take_word(&self.input);
                // TODO: remove clone
                if let Some(decl) = self.try_parse_ts_export_decl(decorators.clone(), sym) {
                    return Ok(ExportDecl {
                        span: self.span(start),
                        decl,
                    }
                    .into());
                }
            }

            if self.input_mut().eat(Token::Import) {
                let is_type_only =
                    self.input().is(Token::Type) && peek!(self).is_some_and(|p| p.is_word());

                if is_type_only {
                    self.assert_and_bump(Token::Type);
                }

                let id = self.parse_ident_name()?;

                // export import A = B
                return self
                    .parse_ts_import_equals_decl(
                        start,
                        id.into(),
                        /* is_export */ true,
                        is_type_only,
                    )
                    .map(From::from);
            }

            if self.input_mut().eat(Token::Eq) {
                // TypeScript export expressions have their own Await grammar,
                // including inside namespaces and ambient modules.
                let expr = with_grammar_context!(self, [+In, ?Yield, +Await], Self::parse_expr)?;
                self.expect_general_semi()?;
                return Ok(TsExportAssignment {
                    span: self.span(start),
                    expr,
                }
                .into());
            }

            if self.input_mut().eat(Token::As) {
                // `export as namespace A;`
                // See `parseNamespaceExportDeclaration` in TypeScript's own parser
                expect!(self, Token::Namespace);
                let id = self.parse_ident(false, false)?;
                self.expect_general_semi()?;
                return Ok(TsNamespaceExportDecl {
                    span: self.span(start),
                    id,
                }
                .into());
            }
        }

        let ns_export_specifier_start = self.cur_pos();

        let type_only = self.input().syntax().typescript() && self.input_mut().eat(Token::Type);

        // Some("default") if default is exported from 'src'
        let mut export_default = None;

        if !type_only && self.input_mut().eat(Token::Default) {
            if self.input().is(Token::At) {
                let start = self.cur_pos();
                let after_decorators = self.parse_decorators(false)?;

                if !decorators.is_empty() && !self.input().syntax().flow_decorators() {
                    syntax_error!(self, self.span(start), SyntaxError::TS8038);
                }

                if self.input().syntax().flow_decorators() {
                    decorators.extend(after_decorators);
                } else {
                    decorators = after_decorators;
                }
            }

            if self.input().syntax().typescript() {
                if self.input().is(Token::Abstract)
                    && peek!(self).is_some_and(|cur| cur == Token::Class)
                    && !self.input_mut().has_linebreak_between_cur_and_peeked()
                {
                    let class_start = self.cur_pos();
                    self.assert_and_bump(Token::Abstract);
                    let cur = self.input().cur();
                    if cur == Token::Error {
                        let err = self.input_mut().expect_error_token_and_bump();
                        return Err(err);
                    }

                    return self
                        .parse_default_class(start, class_start, decorators, true)
                        .map(ModuleDecl::ExportDefaultDecl);
                }
                if self.input().is(Token::Abstract)
                    && peek!(self).is_some_and(|cur| cur == Token::Interface)
                {
                    self.emit_err(self.input().cur_span(), SyntaxError::TS1242);
                    self.assert_and_bump(Token::Abstract);
                }

                if self.input().is(Token::Interface) {
                    let interface_start = self.cur_pos();
                    self.assert_and_bump(Token::Interface);
                    let decl = self
                        .parse_ts_interface_decl(interface_start)
                        .map(DefaultDecl::from)?;
                    return Ok(ExportDefaultDecl {
                        span: self.span(start),
                        decl,
                    }
                    .into());
                }

                if self.input().syntax().flow_components() && self.input().cur().is_word() {
                    let sym = self.input().cur().take_word(&self.input);
                    if sym == atom!("component") || sym == atom!("hook") {
                        if let Some(decl) =
                            self.try_parse_ts_export_decl(decorators.clone(), sym.clone())
                        {
                            return match decl {
                                Decl::Fn(fn_decl) => Ok(ExportDefaultDecl {
                                    span: self.span(start),
                                    decl: DefaultDecl::Fn(FnExpr {
                                        ident: Some(fn_decl.ident),
                                        function: fn_decl.function,
                                    }),
                                }
                                .into()),
                                _ => Ok(ExportDecl {
                                    span: self.span(start),
                                    decl,
                                }
                                .into()),
                            };
                        }
                    }
                }
            }

            if self.input().is(Token::Class) {
                let class_start = self.cur_pos();
                let decl = self.parse_default_class(start, class_start, decorators, false)?;
                return Ok(decl.into());
            } else if self.input().is(Token::Async)
                && peek!(self).is_some_and(|cur| cur == Token::Function)
                && !self.input_mut().has_linebreak_between_cur_and_peeked()
            {
                let decl = self.parse_default_async_fn(start, decorators)?;
                return Ok(decl.into());
            } else if self.input().is(Token::Function) {
                let decl = self.parse_default_fn(start, decorators)?;
                return Ok(decl.into());
            } else if self.input().syntax().typescript_allows_enum()
                && self.input().is(Token::Enum)
                && peek!(self).is_some_and(|peek| peek.is_word())
                && !self.input_mut().has_linebreak_between_cur_and_peeked()
            {
                let enum_start = self.cur_pos();
                self.assert_and_bump(Token::Enum);
                let decl = self.parse_ts_enum_decl(enum_start, false)?;

                // `export default enum` is valid in Flow, but SWC's default export decl AST
                // variant does not model enum declarations.
                return Ok(ExportDecl {
                    span: self.span(start),
                    decl: Decl::TsEnum(decl),
                }
                .into());
            } else if self.input().syntax().export_default_from()
                && ((self.input().is(Token::From)
                    && peek!(self).is_some_and(|peek| peek == Token::Str))
                    || (self.input().is(Token::Comma)
                        && (peek!(self)
                            .is_some_and(|peek| matches!(peek, Token::Asterisk | Token::LBrace)))))
            {
                export_default = Some(Ident::new_no_ctxt(
                    atom!("default"),
                    self.input().prev_span(),
                ))
            } else {
                let expr = if self.input().syntax().typescript() {
                    with_grammar_context!(self, [+In, ?Yield, +Await], Self::parse_assignment_expr)?
                } else {
                    with_grammar_context!(self, [+In, ?Yield, ?Await], Self::parse_assignment_expr)?
                };
                self.expect_general_semi()?;
                return Ok(ExportDefaultExpr {
                    span: self.span(start),
                    expr,
                }
                .into());
            }
        }

        if self.input().is(Token::At) {
            let start = self.cur_pos();
            let after_decorators = self.parse_decorators(false)?;

            if !decorators.is_empty() && !self.input().syntax().flow_decorators() {
                syntax_error!(self, self.span(start), SyntaxError::TS8038);
            }

            if self.input().syntax().flow_decorators() {
                decorators.extend(after_decorators);
            } else {
                decorators = after_decorators;
            }
        }

        let decl = if !type_only && self.input().is(Token::Class) {
            let class_start = self.cur_pos();
            self.parse_class_decl(start, class_start, decorators, false)?
        } else if !type_only
            && self.input().is(Token::Async)
            && peek!(self).is_some_and(|cur| cur == Token::Function)
            && !self.input_mut().has_linebreak_between_cur_and_peeked()
        {
            self.parse_async_fn_decl(decorators)?
        } else if !type_only && self.input().is(Token::Function) {
            self.parse_fn_decl(decorators)?
        } else if !type_only
            && self.input().syntax().typescript_allows_enum()
            && self.input().is(Token::Enum)
            && peek!(self).is_some_and(|peek| peek.is_word())
            && !self.input_mut().has_linebreak_between_cur_and_peeked()
        {
            let enum_start = self.cur_pos();
            self.assert_and_bump(Token::Enum);
            self.parse_ts_enum_decl(enum_start, false)
                .map(Decl::TsEnum)?
        } else if !type_only
            && self.input().syntax().typescript_allows_enum()
            && self.input().is(Token::Const)
            && peek!(self).is_some_and(|cur| cur == Token::Enum)
        {
            let enum_start = self.cur_pos();
            self.assert_and_bump(Token::Const);
            self.assert_and_bump(Token::Enum);
            if self.input().syntax().flow() {
                self.emit_err(self.span(enum_start), SyntaxError::TS1003);
            }
            return self
                .parse_ts_enum_decl(enum_start, /* is_const */ true)
                .map(Decl::from)
                .map(|decl| {
                    ExportDecl {
                        span: self.span(start),
                        decl,
                    }
                    .into()
                });
        } else if !type_only
            && (self.input().is(Token::Var)
                || self.input().is(Token::Const)
                || (self.input().is(Token::Let))
                    && peek!(self)
                        .map(|t| t.follows_keyword_let())
                        .unwrap_or(false))
        {
            self.parse_var_stmt(false).map(Decl::Var)?
        } else {
            // ```javascript
            // export foo, * as bar, { baz } from "mod"; // *
            // export      * as bar, { baz } from "mod"; // *
            // export foo,           { baz } from "mod"; // *
            // export foo, * as bar          from "mod"; // *
            // export foo                    from "mod"; // *
            // export      * as bar          from "mod"; //
            // export                { baz } from "mod"; //
            // export                { baz }           ; //
            // export      *                 from "mod"; //
            // ```

            // export default
            // export foo
            let default = match export_default {
                Some(default) => Some(default),
                None => {
                    if self.input().syntax().export_default_from() && self.input().cur().is_word() {
                        Some(self.parse_ident(false, false)?)
                    } else {
                        None
                    }
                }
            };

            if default.is_none()
                && self.input().is(Token::Asterisk)
                && !peek!(self).is_some_and(|cur| cur == Token::As)
            {
                self.assert_and_bump(Token::Asterisk);

                // improve error message for `export * from foo`
                let (src, with) = self.parse_from_clause_and_semi()?;
                return Ok(ExportAll {
                    span: self.span(start),
                    src,
                    type_only,
                    with,
                }
                .into());
            }

            let mut specifiers = Vec::new();

            let mut has_default = false;
            let mut has_ns = false;

            if let Some(default) = default {
                has_default = true;
                specifiers.push(ExportSpecifier::Default(ExportDefaultSpecifier {
                    exported: default,
                }))
            }

            // export foo, * as bar
            //           ^
            if !specifiers.is_empty()
                && self.input().is(Token::Comma)
                && peek!(self).is_some_and(|cur| cur == Token::Asterisk)
            {
                self.assert_and_bump(Token::Comma);

                has_ns = true;
            }
            // export     * as bar
            //            ^
            else if specifiers.is_empty() && self.input().is(Token::Asterisk) {
                has_ns = true;
            }

            if has_ns {
                self.assert_and_bump(Token::Asterisk);
                expect!(self, Token::As);
                let name = self.parse_module_export_name()?;
                if self.input().syntax().flow() && type_only {
                    let name_span = match &name {
                        ModuleExportName::Ident(ident) => ident.span,
                        ModuleExportName::Str(str_lit) => str_lit.span,
                        #[cfg(swc_ast_unknown)]
                        _ => unreachable!(),
                    };
                    self.emit_err(name_span, SyntaxError::TS1003);
                }
                specifiers.push(ExportSpecifier::Namespace(ExportNamespaceSpecifier {
                    span: self.span(ns_export_specifier_start),
                    name,
                }));
            }

            if has_default || has_ns {
                if self.input().is(Token::From) {
                    let (src, with) = self.parse_from_clause_and_semi()?;
                    return Ok(NamedExport {
                        span: self.span(start),
                        specifiers,
                        src: Some(src),
                        type_only,
                        with,
                    }
                    .into());
                } else if !self.input().syntax().export_default_from() {
                    // emit error
                    expect!(self, Token::From);
                }

                expect!(self, Token::Comma);
            }

            expect!(self, Token::LBrace);

            while !self.input().is(Token::RBrace) {
                let specifier = self.parse_named_export_specifier(type_only)?;
                specifiers.push(ExportSpecifier::Named(specifier));

                if self.input().is(Token::RBrace) {
                    break;
                } else {
                    expect!(self, Token::Comma);
                }
            }
            expect!(self, Token::RBrace);

            let opt = if self.input().is(Token::From) {
                Some(self.parse_from_clause_and_semi()?)
            } else {
                for s in &specifiers {
                    match s {
                        ExportSpecifier::Default(default) => {
                            self.emit_err(
                                default.exported.span,
                                SyntaxError::ExportExpectFrom(default.exported.sym.clone()),
                            );
                        }
                        ExportSpecifier::Namespace(namespace) => {
                            let export_name = match &namespace.name {
                                ModuleExportName::Ident(i) => i.sym.clone(),
                                ModuleExportName::Str(s) => s.value.to_string_lossy().into(),
                                #[cfg(swc_ast_unknown)]
                                _ => unreachable!(),
                            };
                            self.emit_err(
                                namespace.span,
                                SyntaxError::ExportExpectFrom(export_name),
                            );
                        }
                        ExportSpecifier::Named(named) => match &named.orig {
                            ModuleExportName::Ident(id) if id.is_reserved() => {
                                self.emit_err(
                                    id.span,
                                    SyntaxError::ExportExpectFrom(id.sym.clone()),
                                );
                            }
                            ModuleExportName::Str(s) => {
                                self.emit_err(s.span, SyntaxError::ExportBindingIsString);
                            }
                            _ => {}
                        },
                        #[cfg(swc_ast_unknown)]
                        _ => unreachable!(),
                    }
                }

                self.eat_general_semi();

                None
            };
            let (src, with) = match opt {
                Some(v) => (Some(v.0), v.1),
                None => (None, None),
            };
            return Ok(NamedExport {
                span: self.span(start),
                specifiers,
                src,
                type_only,
                with,
            }
            .into());
        };

        Ok(ExportDecl {
            span: self.span(start),
            decl,
        }
        .into())
    }

    #[inline]
    fn enter_import_module_context(&mut self) {
        if !self.ctx().contains(Context::Module) {
            let ctx = self.ctx() | Context::Module | Context::Strict;
            self.set_ctx(ctx);
        }
    }

    pub(crate) fn parse_import(&mut self) -> PResult<ModuleItem> {
        let start = self.cur_pos();

        if peek!(self).is_some_and(|cur| cur == Token::Dot) {
            let expr = self.parse_expr()?;

            self.eat_general_semi();

            return Ok(ExprStmt {
                span: self.span(start),
                expr,
            }
            .into());
        }

        if peek!(self).is_some_and(|cur| cur == Token::LParen) {
            let expr = self.parse_expr()?;

            self.eat_general_semi();

            return Ok(ExprStmt {
                span: self.span(start),
                expr,
            }
            .into());
        }

        expect!(self, Token::Import);

        // Handle import 'mod.js'
        if self.input().cur() == Token::Str {
            self.enter_import_module_context();
            let src = Box::new(self.parse_str_lit());
            let with = self.parse_import_attributes()?;
            self.eat_general_semi();
            return Ok(ImportDecl {
                span: self.span(start),
                src,
                specifiers: Vec::new(),
                type_only: false,
                with,
                phase: Default::default(),
            }
            .into());
        }

        let mut type_only = false;
        let mut phase = ImportPhase::Evaluation;
        let mut specifiers = Vec::with_capacity(4);
        let mut flow_leading_import_type = false;

        'import_maybe_ident: {
            if self.is_ident_ref()
                || (self.input().syntax().flow() && self.input().cur().is_word())
                || (self.input().syntax().flow() && self.input().is(Token::TypeOf))
                || (self.input().syntax().flow_types_enabled() && self.input().is(Token::TypeOf))
            {
                let local_token = self.input().cur();
                let mut local =
                    if self.input().syntax().flow_types_enabled() && local_token == Token::TypeOf {
                        self.bump();
                        type_only = true;
                        if self.input().is(Token::LBrace) || self.input().is(Token::Asterisk) {
                            break 'import_maybe_ident;
                        }
                        self.parse_imported_default_binding()?
                    } else {
                        self.parse_imported_default_binding()?
                    };

                if self.input().syntax().typescript() && local_token == Token::Type {
                    let cur = self.input().cur();
                    if cur == Token::LBrace || cur == Token::Asterisk {
                        type_only = true;
                        if self.input().syntax().flow() {
                            flow_leading_import_type = true;
                        }
                        break 'import_maybe_ident;
                    }

                    if self.is_ident_ref()
                        || (self.input().syntax().flow() && self.input().cur().is_word())
                    {
                        if !self.input().is(Token::From)
                            || peek!(self).is_some_and(|cur| cur == Token::From)
                        {
                            type_only = true;
                            if self.input().syntax().flow() {
                                flow_leading_import_type = true;
                                local = self.parse_ident_name().map(Ident::from)?;
                            } else {
                                local = self.parse_imported_default_binding()?;
                            }
                        } else if peek!(self).is_some_and(|cur| cur == Token::Eq) {
                            type_only = true;
                            local = self.parse_ident_name().map(From::from)?;
                        }
                    }
                }

                if self.input().syntax().flow() && type_only {
                    self.emit_flow_reserved_type_name_error(local.span, &local.sym);
                }

                if self.input().syntax().typescript() && self.input().is(Token::Eq) {
                    let decl = self.parse_ts_import_equals_decl(start, local, false, type_only)?;
                    if matches!(&decl.module_ref, TsModuleRef::TsExternalModuleRef(..)) {
                        self.enter_import_module_context();
                    }
                    return Ok(ModuleDecl::TsImportEquals(decl).into());
                }

                if matches!(&*local.sym, "source" | "defer") {
                    let new_phase = match &*local.sym {
                        "source" => ImportPhase::Source,
                        "defer" => ImportPhase::Defer,
                        _ => unreachable!(),
                    };

                    let cur = self.input().cur();
                    if cur == Token::LBrace || cur == Token::Asterisk {
                        phase = new_phase;
                        break 'import_maybe_ident;
                    }

                    if self.is_ident_ref() && !self.input().is(Token::From)
                        || peek!(self).is_some_and(|cur| cur == Token::From)
                    {
                        // For defer phase, we expect only namespace imports, so break here
                        // and let the subsequent code handle validation
                        if new_phase == ImportPhase::Defer {
                            break 'import_maybe_ident;
                        }
                        phase = new_phase;
                        local = self.parse_imported_default_binding()?;
                    }
                }

                //TODO: Better error reporting
                if !self.input().is(Token::From) {
                    expect!(self, Token::Comma);
                }
                specifiers.push(ImportSpecifier::Default(ImportDefaultSpecifier {
                    span: local.span,
                    local,
                }));
            }
        }

        self.enter_import_module_context();

        {
            let import_spec_start = self.cur_pos();
            // Namespace imports are not allowed in source phase.
            if phase != ImportPhase::Source && self.input_mut().eat(Token::Asterisk) {
                if self.input().syntax().flow() && flow_leading_import_type {
                    self.emit_err(self.input().prev_span(), SyntaxError::TS1003);
                }
                expect!(self, Token::As);
                let local = self.parse_imported_binding()?;
                if self.input().syntax().flow() && type_only {
                    self.emit_flow_reserved_type_name_error(local.span, &local.sym);
                }
                specifiers.push(ImportSpecifier::Namespace(ImportStarAsSpecifier {
                    span: self.span(import_spec_start),
                    local,
                }));
                // Named imports are only allowed in evaluation phase.
            } else if phase == ImportPhase::Evaluation && self.input_mut().eat(Token::LBrace) {
                while !self.input().is(Token::RBrace) {
                    specifiers.push(self.parse_import_specifier(type_only)?);

                    if self.input().is(Token::RBrace) {
                        break;
                    } else {
                        expect!(self, Token::Comma);
                    }
                }
                expect!(self, Token::RBrace);
            }
        }

        let src = {
            expect!(self, Token::From);
            if self.input().cur() == Token::Str {
                Box::new(self.parse_str_lit())
            } else {
                unexpected!(self, "a string literal")
            }
        };

        let with = self.parse_import_attributes()?;

        self.expect_general_semi()?;

        Ok(ImportDecl {
            span: self.span(start),
            specifiers,
            src,
            type_only,
            with,
            phase,
        }
        .into())
    }
}

fn handle_import_export<I: Tokens>(
    p: &mut Parser<I>,
    decorators: Vec<Decorator>,
) -> PResult<ModuleItem> {
    if !p.boundary_ctx().contains(BoundaryContext::TopLevel)
        && !p.type_ctx().contains(TypeContext::TsModuleBlock)
    {
        syntax_error!(p, SyntaxError::NonTopLevelImportExport);
    }

    let decl = if p.input().is(Token::Import) {
        p.parse_import()?
    } else if p.input().is(Token::Export) {
        p.parse_export(decorators).map(ModuleItem::from)?
    } else {
        unreachable!(
            "handle_import_export should not be called if current token isn't import nor export"
        )
    };

    Ok(decl)
}

#[cfg(test)]
mod tests {
    use crate::{EsSyntax, Syntax};

    #[test]
    fn test_legacy_decorator() {
        crate::test_parser(
            "@foo
export default class Foo {
  bar() {
    class Baz {}
  }
}",
            Syntax::Es(EsSyntax {
                decorators: true,
                decorators_before_export: true,
                ..Default::default()
            }),
            |p| p.parse_module(),
        );
    }
}
