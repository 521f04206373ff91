//! TypeScript 5 standard decorators (the TC39 2022-03 form Deno runs):
//! finding them, refusing the legacy forms that cannot be lowered, and the
//! lowering itself, with its helpers printed into the module.
//!
//! Most sources have no decorator, so [`scan`] answers from a byte search
//! when the source has no `@` at all, and the lowering (with its helper
//! injection, a walk of its own) runs only for a module that has one.

use swc_common::{Mark, Span};
use swc_ecma_ast::{
    ArrowFunctionBody, Callee, Decl, Decorator, Expr, Function, MethodKind, Module, ModuleDecl,
    ModuleItem, Param, Pass, Pat, PrivateMethod, Program, ReturnStmt, Stmt, TsEntityName,
    TsParamProp, TsType,
};
use swc_ecma_transforms_base::helpers::{inject_helpers, Helpers, HELPERS};
use swc_ecma_transforms_proposal::decorator_2022_03::decorator_2022_03;
use swc_ecma_visit::{Visit, VisitWith};

/// The refusal for a parameter decorator, which TypeScript 5's standard
/// decorators do not have.
const PARAMETER_DECORATOR: &str = "gg compiles TypeScript 5 standard decorators (the TC39 form Deno runs); parameter decorators are the legacy experimentalDecorators form, which gg does not support";

/// The refusal for a decorator the lowering left in place: one in a
/// position the standard form has no meaning for.
pub(crate) const LEFT_IN_PLACE: &str = "gg compiles TypeScript 5 standard decorators (the TC39 form Deno runs), which decorate classes and their methods, accessors, getters, setters and fields; a decorator is not valid here";

/// The refusal for a decorated private setter whose parameter is a pattern
/// or has a default: swc's lowering forwards the parameter by name and
/// crashes on anything else (so does Deno, which runs the same lowering).
const PRIVATE_SETTER_PATTERN: &str = "gg cannot lower a decorated private setter whose parameter is a pattern or has a default value; take a plain parameter and destructure it in the body";

/// The refusal for a decorator whose function takes a property
/// descriptor: whether a decorator is the legacy form cannot be told in
/// general, but one declared in the module with a `PropertyDescriptor`
/// third parameter is, and under the standard form it would be called
/// with two arguments and go wrong at run time instead.
const DESCRIPTOR_DECORATOR: &str = "gg compiles TypeScript 5 standard decorators (the TC39 form Deno runs), called with (value, context); this decorator takes (target, key, descriptor: PropertyDescriptor), the legacy experimentalDecorators form, which gg does not support";

/// What a module holds in the way of decorators.
#[derive(Default)]
pub(crate) struct Found {
    /// Whether any decorator appears anywhere.
    pub any: bool,
    /// Where each parameter decorator starts (`constructor(@Inject() x)`).
    pub on_parameters: Vec<Span>,
    /// Where each decorated private setter's non-identifier parameter is.
    pub setter_patterns: Vec<Span>,
    /// Each decorator naming a function (or a factory of one) that the
    /// module declares with a property-descriptor parameter.
    pub legacy_signatures: Vec<Span>,
    /// Each decorator that names a function, `@name` or `@name(…)`.
    named: Vec<(Span, String)>,
}

impl Found {
    /// Every decorator the lowering cannot take, located, in source order.
    pub fn refused(&self) -> Vec<(Span, &'static str)> {
        let mut refused: Vec<(Span, &'static str)> = self
            .on_parameters
            .iter()
            .map(|&span| (span, PARAMETER_DECORATOR))
            .chain(
                self.setter_patterns
                    .iter()
                    .map(|&span| (span, PRIVATE_SETTER_PATTERN)),
            )
            .chain(
                self.legacy_signatures
                    .iter()
                    .map(|&span| (span, DESCRIPTOR_DECORATOR)),
            )
            .collect();
        refused.sort_by_key(|(span, _)| span.lo);
        refused
    }
}

/// The decorators `module` holds. A source without `@` has none, which is
/// the common case and costs one byte search.
pub(crate) fn scan(module: &Module, source: &str) -> Found {
    if !source.contains('@') {
        return Found::default();
    }
    let mut found = Found::default();
    module.visit_with(&mut Scan(&mut found));
    if !found.named.is_empty() {
        let legacy = descriptor_takers(module);
        found.legacy_signatures = found
            .named
            .iter()
            .filter(|(_, name)| legacy.contains(name))
            .map(|(span, _)| *span)
            .collect();
    }
    found
}

/// The module-level functions (declared, or a `const` bound to a function)
/// that take a property descriptor third, or return a function that does.
fn descriptor_takers(module: &Module) -> Vec<String> {
    let mut names = Vec::new();
    for item in &module.body {
        let decl = match item {
            ModuleItem::Stmt(Stmt::Decl(decl)) => decl,
            ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(export)) => &export.decl,
            _ => continue,
        };
        match decl {
            Decl::Fn(f)
                if is_legacy_function(&f.function)
                    || returns_legacy(f.function.body.as_ref().map(|b| &b.stmts[..])) =>
            {
                names.push(f.ident.sym.to_string());
            }
            Decl::Var(var) => {
                for d in &var.decls {
                    let (Pat::Ident(name), Some(init)) = (&d.name, &d.init) else {
                        continue;
                    };
                    if is_legacy_fn(init) || factory_of_legacy(init) {
                        names.push(name.id.sym.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    names
}

/// Whether the third of `params` is typed as a property descriptor.
fn is_legacy(params: &[&Pat]) -> bool {
    let Some(Pat::Ident(third)) = params.get(2) else {
        return false;
    };
    let Some(ann) = &third.type_ann else {
        return false;
    };
    matches!(
        &*ann.type_ann,
        TsType::TsTypeRef(r) if matches!(&r.type_name, TsEntityName::Ident(i)
            if i.sym == "PropertyDescriptor" || i.sym == "TypedPropertyDescriptor")
    )
}

/// Whether a function's third parameter is typed as a property descriptor.
fn is_legacy_function(function: &Function) -> bool {
    is_legacy(&function.params.iter().map(|p| &p.pat).collect::<Vec<_>>())
}

/// Whether `expr` is a function expression or arrow taking a descriptor.
fn is_legacy_fn(expr: &Expr) -> bool {
    match expr {
        Expr::Fn(f) => is_legacy_function(&f.function),
        Expr::Arrow(a) => is_legacy(&a.params.iter().collect::<Vec<_>>()),
        Expr::Paren(p) => is_legacy_fn(&p.expr),
        _ => false,
    }
}

/// Whether a function body returns a function taking a descriptor.
fn returns_legacy(body: Option<&[Stmt]>) -> bool {
    body.unwrap_or_default().iter().any(
        |stmt| matches!(stmt, Stmt::Return(ReturnStmt { arg: Some(arg), .. }) if is_legacy_fn(arg)),
    )
}

/// Whether `expr` is a function or arrow returning one taking a descriptor.
fn factory_of_legacy(expr: &Expr) -> bool {
    match expr {
        Expr::Fn(f) => returns_legacy(f.function.body.as_ref().map(|b| &b.stmts[..])),
        Expr::Arrow(a) => match &*a.body {
            ArrowFunctionBody::Expr(e) => is_legacy_fn(e),
            ArrowFunctionBody::FunctionBody(b) => returns_legacy(Some(&b.stmts)),
        },
        Expr::Paren(p) => factory_of_legacy(&p.expr),
        _ => false,
    }
}

/// Where the decorators still in `program` start: after the lowering,
/// any one left is in a position the standard form does not cover, and
/// printing it would hand the engine syntax it may not parse.
pub(crate) fn left_in(program: &Program) -> Vec<Span> {
    let mut left = Vec::new();
    program.visit_with(&mut Spans(&mut left));
    left
}

/// Lowers the standard decorators in `program`, then inlines the helpers
/// the lowering called for. Must run inside `GLOBALS` (marks) and before
/// the TypeScript strip, as Deno orders them: the lowering reads
/// members' TypeScript modifiers (`declare`, `abstract`).
pub(crate) fn lower(program: &mut Program, top_level: Mark) {
    HELPERS.set(&Helpers::new(false), || {
        decorator_2022_03().process(program);
        // The helper functions are declared at the top of the module with
        // no span of their own, so the position map has nothing to map for
        // them and still maps the class's own code to its TypeScript line.
        inject_helpers(top_level).process(program);
    });
}

struct Scan<'a>(&'a mut Found);

impl Visit for Scan<'_> {
    fn visit_decorator(&mut self, decorator: &Decorator) {
        self.0.any = true;
        let callee = match &*decorator.expr {
            Expr::Call(call) => match &call.callee {
                Callee::Expr(e) => &**e,
                _ => return,
            },
            e => e,
        };
        if let Expr::Ident(name) = callee {
            self.0.named.push((decorator.span, name.sym.to_string()));
        }
    }

    fn visit_param(&mut self, param: &Param) {
        self.0
            .on_parameters
            .extend(param.decorators.iter().map(|d| d.span));
        param.visit_children_with(self);
    }

    fn visit_private_method(&mut self, method: &PrivateMethod) {
        if method.kind == MethodKind::Setter && !method.function.decorators.is_empty() {
            if let Some(param) = method.function.params.first() {
                if !matches!(param.pat, Pat::Ident(_)) {
                    self.0.setter_patterns.push(param.span);
                }
            }
        }
        method.visit_children_with(self);
    }

    fn visit_ts_param_prop(&mut self, prop: &TsParamProp) {
        self.0
            .on_parameters
            .extend(prop.decorators.iter().map(|d| d.span));
        prop.visit_children_with(self);
    }
}

struct Spans<'a>(&'a mut Vec<Span>);

impl Visit for Spans<'_> {
    fn visit_decorator(&mut self, decorator: &Decorator) {
        self.0.push(decorator.span);
    }
}
