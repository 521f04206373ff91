use swc_common::{Span, Spanned};
use swc_ecma_ast::*;

use crate::{
    error::SyntaxError,
    input::Tokens,
    lexer::Token,
    parser::{BoundaryContext, TypeContext},
    Context, PResult, Parser,
};

fn prop_name_is(key: &PropName, expected: &str) -> bool {
    match key {
        PropName::Ident(ident) => ident.sym == *expected,
        PropName::Str(value) => value.value == *expected,
        _ => false,
    }
}

impl<I: Tokens> Parser<I> {
    pub(crate) fn parse_object<Object, ObjectProp>(
        &mut self,
        parse_prop: impl Fn(&mut Self) -> PResult<ObjectProp>,
        make_object: impl Fn(&mut Self, Span, Vec<ObjectProp>, Option<Span>) -> PResult<Object>,
    ) -> PResult<Object> {
        self.do_outside_of_type_context(TypeContext::WillExpectColonForCond, |p| {
            trace_cur!(p, parse_object);

            let start = p.cur_pos();
            let mut trailing_comma = None;
            p.assert_and_bump(Token::LBrace);

            let mut props = Vec::with_capacity(8);

            while !p.input_mut().eat(Token::RBrace) {
                props.push(parse_prop(p)?);

                if !p.input().is(Token::RBrace) {
                    expect!(p, Token::Comma);
                    if p.input().is(Token::RBrace) {
                        trailing_comma = Some(p.input().prev_span());
                    }
                }
            }

            let span = p.span(start);
            make_object(p, span, props, trailing_comma)
        })
    }

    /// Production 'BindingProperty'
    pub(crate) fn parse_binding_object_prop(&mut self) -> PResult<ObjectPatProp> {
        let start = self.cur_pos();

        if self.input_mut().eat(Token::DotDotDot) {
            // spread element
            let dot3_token = self.span(start);

            let arg = Box::new(self.parse_binding_pat_or_ident(false)?);

            return Ok(ObjectPatProp::Rest(RestPat {
                span: self.span(start),
                dot3_token,
                arg,
                type_ann: None,
            }));
        }

        let escaped_keyword_error = self.escaped_keyword_error();
        let key = self.parse_prop_name()?;
        if self.input_mut().eat(Token::Colon) {
            let value = Box::new(self.parse_binding_element()?);

            return Ok(ObjectPatProp::KeyValue(KeyValuePatProp { key, value }));
        }
        let key = match key {
            PropName::Ident(ident) => ident,
            _ => unexpected!(self, "an identifier"),
        };

        // A shorthand key is a binding identifier even when it has a default.
        if let Some(error) = escaped_keyword_error {
            self.emit_error(error);
        }
        let value = if self.input_mut().eat(Token::Eq) {
            with_grammar_context!(self, [+In, ?Yield, ?Await], Self::parse_assignment_expr)
                .map(Some)?
        } else {
            let ctx = self.ctx();
            if self.word_is_reserved(&key.sym) {
                self.emit_err(key.span, SyntaxError::ReservedWordInObjShorthandOrPat);
            }

            if self.syntax().flow() {
                match &*key.sym {
                    "eval" | "arguments" if ctx.contains(Context::Strict) => {
                        self.emit_err(key.span, SyntaxError::EvalAndArgumentsInStrict);
                    }
                    "await"
                        if self.includes_await_expr()
                            || self.boundary_ctx().contains(BoundaryContext::InStaticBlock)
                            || ctx.contains(Context::Module) =>
                    {
                        self.emit_err(key.span, SyntaxError::InvalidIdentInAsync);
                    }
                    "yield" if self.includes_yield_expr() || ctx.contains(Context::Strict) => {
                        self.emit_err(key.span, SyntaxError::InvalidIdentInStrict(key.sym.clone()));
                    }
                    "implements" | "interface" | "package" | "private" | "protected" | "public"
                    | "static"
                        if ctx.contains(Context::Strict) =>
                    {
                        self.emit_err(key.span, SyntaxError::InvalidIdentInStrict(key.sym.clone()));
                    }
                    _ => {}
                }
            }

            None
        };

        Ok(ObjectPatProp::Assign(AssignPatProp {
            span: self.span(start),
            key: key.into(),
            value,
        }))
    }

    fn make_binding_object(
        &mut self,
        span: Span,
        props: Vec<ObjectPatProp>,
        trailing_comma: Option<Span>,
    ) -> PResult<Pat> {
        let len = props.len();
        for (i, prop) in props.iter().enumerate() {
            if i == len - 1 {
                if let ObjectPatProp::Rest(ref rest) = prop {
                    match *rest.arg {
                        Pat::Ident(..) => {
                            if let Some(trailing_comma) = trailing_comma {
                                self.emit_err(trailing_comma, SyntaxError::CommaAfterRestElement);
                            }
                        }
                        _ => syntax_error!(self, prop.span(), SyntaxError::DotsWithoutIdentifier),
                    }
                }
                continue;
            }

            if let ObjectPatProp::Rest(..) = prop {
                self.emit_err(prop.span(), SyntaxError::NonLastRestParam)
            }
        }

        let optional = (self.input().syntax().dts()
            || self.type_ctx().contains(TypeContext::InDeclare))
            && self.input_mut().eat(Token::QuestionMark);

        Ok(ObjectPat {
            span,
            props,
            optional,
            type_ann: None,
        }
        .into())
    }

    pub(super) fn parse_object_pat(&mut self) -> PResult<Pat> {
        self.parse_object(Self::parse_binding_object_prop, Self::make_binding_object)
    }

    fn make_expr_object(
        &mut self,
        span: Span,
        props: Vec<PropOrSpread>,
        trailing_comma: Option<Span>,
    ) -> PResult<Expr> {
        if let Some(trailing_comma) = trailing_comma {
            // Preserve the comma only if cover grammar can turn the last property into
            // rest.
            if matches!(props.last(), Some(PropOrSpread::Spread(_))) {
                self.state_mut()
                    .trailing_commas
                    .insert(span.lo, trailing_comma);
            }
        }
        Ok(ObjectLit { span, props }.into())
    }

    fn parse_expr_object_prop(&mut self) -> PResult<PropOrSpread> {
        trace_cur!(self, parse_object_prop);

        let start = self.cur_pos();
        // Parse as 'MethodDefinition'

        if self.input_mut().eat(Token::DotDotDot) {
            // spread element
            let dot3_token = self.span(start);

            let expr =
                with_grammar_context!(self, [+In, ?Yield, ?Await], Self::parse_assignment_expr)?;

            return Ok(PropOrSpread::Spread(SpreadElement { dot3_token, expr }));
        }

        if self.input_mut().eat(Token::Asterisk) {
            let name = self.parse_prop_name()?;
            return self
                .do_inside_of_boundary_context(BoundaryContext::AllowDirectSuper, |p| {
                    p.do_outside_of_boundary_context(BoundaryContext::InClassField, |p| {
                        p.parse_fn_args_body(
                            // no decorator in an object literal
                            Vec::new(),
                            start,
                            Self::parse_unique_formal_params,
                            false,
                            true,
                        )
                    })
                })
                .map(|function| {
                    PropOrSpread::Prop(Box::new(Prop::Method(MethodProp {
                        key: name,
                        function,
                    })))
                });
        }

        let has_modifiers = self.eat_any_ts_modifier()?;
        let modifiers_span = self.input().prev_span();

        let key_token = self.input().cur();
        let escaped_keyword_error = self.escaped_keyword_error();
        let key = self.parse_prop_name()?;

        let cur = self.input().cur();
        if self.input().syntax().typescript()
            && !(matches!(
                cur,
                Token::LParen
                    | Token::LBracket
                    | Token::Colon
                    | Token::Comma
                    | Token::QuestionMark
                    | Token::Eq
                    | Token::Asterisk
            ) || cur == Token::Str
                || cur == Token::Num
                || cur.is_word())
            && !(self.input().syntax().typescript() && self.input().is(Token::Lt))
            && !(self.input().is(Token::RBrace) && matches!(key, PropName::Ident(..)))
        {
            trace_cur!(self, parse_object_prop_error);

            self.emit_err(self.input().cur_span(), SyntaxError::TS1005);
            return Ok(PropOrSpread::Prop(Box::new(Prop::KeyValue(KeyValueProp {
                key,
                value: Invalid {
                    span: self.span(start),
                }
                .into(),
            }))));
        }
        //
        // {[computed()]: a,}
        // { 'a': a, }
        // { 0: 1, }
        // { a: expr, }
        if self.input_mut().eat(Token::Colon) {
            let value =
                with_grammar_context!(self, [+In, ?Yield, ?Await], Self::parse_assignment_expr)?;
            return Ok(PropOrSpread::Prop(Box::new(Prop::KeyValue(KeyValueProp {
                key,
                value,
            }))));
        }

        // Handle `a(){}` (and async(){} / get(){} / set(){})
        if (self.input().syntax().typescript() && self.input().is(Token::Lt))
            || self.input().is(Token::LParen)
        {
            if matches!(key_token, Token::Get | Token::Set) && self.input().is(Token::Lt) {
                let accessor_as_ident = match key_token {
                    Token::Get => prop_name_is(&key, "get"),
                    Token::Set => prop_name_is(&key, "set"),
                    _ => false,
                };
                if !accessor_as_ident {
                    self.emit_err(self.input().cur_span(), SyntaxError::TS1003);
                }
            }

            return self
                .do_inside_of_boundary_context(BoundaryContext::AllowDirectSuper, |p| {
                    p.do_outside_of_boundary_context(BoundaryContext::InClassField, |p| {
                        p.parse_fn_args_body(
                            // no decorator in an object literal
                            Vec::new(),
                            start,
                            Self::parse_unique_formal_params,
                            false,
                            false,
                        )
                    })
                })
                .map(|function| Box::new(Prop::Method(MethodProp { key, function })))
                .map(PropOrSpread::Prop);
        }

        let ident = match key {
            PropName::Ident(ident) => ident,
            // TODO
            _ => unexpected!(self, "identifier"),
        };

        if self.input_mut().eat(Token::QuestionMark) {
            self.emit_err(self.input().prev_span(), SyntaxError::TS1162);
        }

        // `ident` from parse_prop_name is parsed as 'IdentifierName'
        // It means we should check for invalid expressions like { for, }
        let cur = self.input().cur();
        if matches!(cur, Token::Eq | Token::Comma | Token::RBrace) {
            if let Some(error) = escaped_keyword_error {
                self.emit_error(error);
            }
            let ctx = self.ctx();
            if self.word_is_reserved(&ident.sym) {
                self.emit_err(ident.span, SyntaxError::ReservedWordInObjShorthandOrPat);
            }

            if self.syntax().flow() {
                match &*ident.sym {
                    "eval" | "arguments" if ctx.contains(Context::Strict) => {
                        self.emit_err(ident.span, SyntaxError::EvalAndArgumentsInStrict);
                    }
                    "await"
                        if self.includes_await_expr()
                            || self.boundary_ctx().contains(BoundaryContext::InStaticBlock)
                            || ctx.contains(Context::Module) =>
                    {
                        self.emit_err(ident.span, SyntaxError::InvalidIdentInAsync);
                    }
                    "yield" if self.includes_yield_expr() || ctx.contains(Context::Strict) => {
                        self.emit_err(
                            ident.span,
                            SyntaxError::InvalidIdentInStrict(ident.sym.clone()),
                        );
                    }
                    "implements" | "interface" | "package" | "private" | "protected" | "public"
                    | "static"
                        if ctx.contains(Context::Strict) =>
                    {
                        self.emit_err(
                            ident.span,
                            SyntaxError::InvalidIdentInStrict(ident.sym.clone()),
                        );
                    }
                    _ => {}
                }
            }

            if self.input_mut().eat(Token::Eq) {
                let value = with_grammar_context!(self, [+In, ?Yield, ?Await], Self::parse_assignment_expr)?;
                let span = self.span(start);
                return Ok(PropOrSpread::Prop(Box::new(Prop::Assign(AssignProp {
                    span,
                    key: ident.into(),
                    value,
                }))));
            }

            return Ok(PropOrSpread::Prop(Box::new(Prop::from(ident))));
        }

        // get a(){}
        // set a(v){}
        // async a(){}

        match key_token {
            Token::Get | Token::Set | Token::Async => {
                trace_cur!(self, parse_object_prop__after_accessor);

                if has_modifiers {
                    self.emit_err(modifiers_span, SyntaxError::TS1042);
                }

                let is_generator =
                    key_token == Token::Async && self.input_mut().eat(Token::Asterisk);
                let key = self.parse_prop_name()?;
                let key_span = key.span();
                if matches!(key_token, Token::Get | Token::Set) && self.input().is(Token::Lt) {
                    self.emit_err(self.input().cur_span(), SyntaxError::TS1003);
                }
                self.do_inside_of_boundary_context(BoundaryContext::AllowDirectSuper, |p| {
                    p.do_outside_of_boundary_context(BoundaryContext::InClassField, |p| {
                        match key_token {
                            Token::Get => p
                                .parse_fn_args_body(
                                    // no decorator in an object literal
                                    Vec::new(),
                                    start,
                                    |p| {
                                        let params = p.parse_formal_params()?;

                                        if !params.is_empty() {
                                            p.emit_err(key_span, SyntaxError::GetterParam);
                                        }

                                        Ok(params)
                                    },
                                    false,
                                    false,
                                )
                                .map(|function| {
                                    if p.input().syntax().typescript()
                                        && p.input().target() == EsVersion::Es3
                                    {
                                        p.emit_err(key_span, SyntaxError::TS1056);
                                    }

                                    PropOrSpread::Prop(Box::new(Prop::Getter(GetterProp {
                                        span: p.span(start),
                                        key,
                                        function,
                                    })))
                                }),
                            Token::Set => {
                                p.parse_fn_args_body(
                                    // no decorator in an object literal
                                    Vec::new(),
                                    start,
                                    |p| {
                                        let params = p.parse_formal_params()?;

                                        if params.len() != 1 {
                                            p.emit_err(key_span, SyntaxError::SetterParam);
                                        }

                                        if let Some(param) = params.first() {
                                            if let Pat::Rest(..) = param.pat {
                                                p.emit_err(
                                                    param.span(),
                                                    SyntaxError::RestPatInSetter,
                                                );
                                            }
                                        }

                                        if p.input().syntax().typescript()
                                            && p.input().target() == EsVersion::Es3
                                        {
                                            p.emit_err(key_span, SyntaxError::TS1056);
                                        }

                                        Ok(params)
                                    },
                                    false,
                                    false,
                                )
                                .map(|function| {
                                    PropOrSpread::Prop(Box::new(Prop::Setter(SetterProp {
                                        span: p.span(start),
                                        key,
                                        function,
                                    })))
                                })
                            }
                            Token::Async => p
                                .parse_fn_args_body(
                                    // no decorator in an object literal
                                    Vec::new(),
                                    start,
                                    Self::parse_unique_formal_params,
                                    true,
                                    is_generator,
                                )
                                .map(|function| {
                                    PropOrSpread::Prop(Box::new(Prop::Method(MethodProp {
                                        key,
                                        function,
                                    })))
                                }),
                            _ => unreachable!(),
                        }
                    })
                })
            }
            _ => {
                if self.input().syntax().typescript() {
                    unexpected!(
                        self,
                        "... , *,  (, [, :, , ?, =, an identifier, public, protected, private, \
                         readonly, <."
                    )
                } else {
                    unexpected!(self, "... , *,  (, [, :, , ?, = or an identifier")
                }
            }
        }
    }

    pub(crate) fn parse_object_expr(&mut self) -> PResult<Expr> {
        self.parse_object(Self::parse_expr_object_prop, Self::make_expr_object)
    }
}
