//! Type erasure in place: the fast path for a module whose TypeScript is
//! only annotations. Every type, type-only declaration and TypeScript-only
//! modifier is overwritten with whitespace of the same byte length (line
//! breaks kept), so the JavaScript keeps every position of the TypeScript:
//! no code generation, and the position map is the identity.
//!
//! The output must behave exactly as the full pipeline's (`strip`) would.
//! Whatever that needs more than blanking for answers `None`, and the caller
//! runs the full pipeline instead:
//! - constructs TypeScript lowers into code: enums, namespaces, parameter
//!   properties, `import x = require()`, `export =`, decorators, angle-bracket
//!   assertions;
//! - a removal that would let the next line join the expression before it
//!   (`x as T` then a line starting `(`, `[` or a template);
//! - an arrow whose return type or type parameters span a line break, which
//!   would leave a line break before `=>` or after `async`;
//! - an import binding or export whose kind (value or type) is not certain
//!   from the module's own text.
//!
//! Import elision follows the full pipeline's rule: an imported binding that
//! the module never reads as a value is dropped, and an import left with no
//! binding is dropped whole.

use rustc_hash::FxHashSet as HashSet;

use swc_atoms::Atom;
use swc_common::{BytePos, Span, Spanned};
use swc_ecma_ast::{
    AutoAccessor, BindingIdent, ClassMember, ClassProp, Decl, DefaultDecl, ExportSpecifier, Expr,
    ImportDecl, ImportSpecifier, Module, ModuleDecl, ModuleExportName, ModuleItem, PrivateProp,
    PropName,
};
use swc_ecma_visit::{Visit, VisitWith};

mod visit;

/// The module's JavaScript with every type blanked, or `None` when the
/// module needs the full pipeline. `start` is the source's first position
/// in the parser's source map.
pub(crate) fn erase(module: &Module, source: &str, start: BytePos) -> Option<String> {
    let mut eraser = Eraser {
        src: source.as_bytes(),
        start: start.0,
        blanks: Vec::new(),
        semicolons: Vec::new(),
        overwrites: Vec::new(),
        literals_needed: memchr::memchr(b'@', source.as_bytes()).is_some(),
        literals: Vec::new(),
        lowering_needed: false,
        imported: HashSet::default(),
        value_reads: HashSet::default(),
        bindings: HashSet::default(),
    };
    let top = TopLevel::of(module);
    eraser.imported = top.imports.clone();
    let mut imports: Vec<&ImportDecl> = Vec::new();
    for item in &module.body {
        eraser.item(item, &top, &mut imports);
        if eraser.lowering_needed {
            return None;
        }
    }
    for import in imports {
        eraser.literal(import.src.span);
        eraser.elide_unread(import);
    }
    if eraser.lowering_needed || (eraser.literals_needed && eraser.has_dropped_decorator()) {
        return None;
    }
    Some(eraser.finish(source))
}

/// What the module declares at its top level, by kind.
#[derive(Default)]
struct TopLevel {
    /// Names bound to a runtime value (variables, functions with a body,
    /// classes).
    values: HashSet<Atom>,
    /// Names of imported bindings.
    imports: HashSet<Atom>,
}

impl TopLevel {
    fn of(module: &Module) -> Self {
        let mut top = TopLevel::default();
        for item in &module.body {
            let decl = match item {
                ModuleItem::Stmt(swc_ecma_ast::Stmt::Decl(decl)) => decl,
                ModuleItem::ModuleDecl(ModuleDecl::ExportDecl(export)) => &export.decl,
                ModuleItem::ModuleDecl(ModuleDecl::Import(import)) => {
                    for specifier in &import.specifiers {
                        top.imports.insert(local_of(specifier).sym.clone());
                    }
                    continue;
                }
                _ => continue,
            };
            match decl {
                Decl::Var(var) if !var.declare => {
                    let mut names = BindingNames::default();
                    var.decls.iter().for_each(|d| d.name.visit_with(&mut names));
                    top.values.extend(names.0);
                }
                Decl::Fn(f) if !f.declare && f.function.body.is_some() => {
                    top.values.insert(f.ident.sym.clone());
                }
                Decl::Class(c) if !c.declare => {
                    top.values.insert(c.ident.sym.clone());
                }
                _ => {}
            }
        }
        top
    }
}

/// The names a pattern binds.
#[derive(Default)]
struct BindingNames(Vec<Atom>);

impl Visit for BindingNames {
    fn visit_binding_ident(&mut self, n: &BindingIdent) {
        self.0.push(n.id.sym.clone());
    }
    fn visit_expr(&mut self, _: &Expr) {}
}

fn local_of(specifier: &ImportSpecifier) -> &swc_ecma_ast::Ident {
    match specifier {
        ImportSpecifier::Named(named) => &named.local,
        ImportSpecifier::Default(default) => &default.local,
        ImportSpecifier::Namespace(namespace) => &namespace.local,
    }
}

struct Eraser<'a> {
    src: &'a [u8],
    /// The source map position of `src[0]`.
    start: u32,
    /// Byte ranges to overwrite with whitespace.
    blanks: Vec<(usize, usize)>,
    /// Offsets of removed statements and class members, whose first byte
    /// becomes `;`: the empty statement keeps the code before and after
    /// them from joining into one expression.
    semicolons: Vec<usize>,
    /// Single ASCII bytes written over what blanking left (`(` and `)` of
    /// an arrow's parameters moved onto the line of what surrounds them).
    overwrites: Vec<(usize, u8)>,
    /// Whether the source has an `@` at all, so literal spans are kept for
    /// [`Eraser::has_dropped_decorator`].
    literals_needed: bool,
    /// Byte ranges of string, template and regular expression literals.
    literals: Vec<(usize, usize)>,
    /// Set as soon as the module needs the full pipeline.
    lowering_needed: bool,
    /// The names the module's imports bind: the only names whose reads and
    /// bindings matter.
    imported: HashSet<Atom>,
    /// Imported names read as a value anywhere in the module.
    value_reads: HashSet<Atom>,
    /// Imported names that a declaration or pattern binds again somewhere.
    bindings: HashSet<Atom>,
}

impl Eraser<'_> {
    fn read(&mut self, name: &Atom) {
        if self.imported.contains(name) {
            self.value_reads.insert(name.clone());
        }
    }

    fn bind(&mut self, name: &Atom) {
        if self.imported.contains(name) {
            self.bindings.insert(name.clone());
        }
    }

    fn at(&self, pos: BytePos) -> usize {
        (pos.0 - self.start) as usize
    }

    fn blank(&mut self, span: Span) {
        let (lo, hi) = (self.at(span.lo), self.at(span.hi));
        if lo < hi {
            self.blanks.push((lo, hi));
        }
    }

    fn blank_range(&mut self, lo: usize, hi: usize) {
        if lo < hi {
            self.blanks.push((lo, hi));
        }
    }

    /// Removes a whole statement or class member, leaving an empty
    /// statement (`;`) where it began.
    fn remove(&mut self, span: Span) {
        let lo = self.at(span.lo);
        if !self.src.get(lo).is_some_and(u8::is_ascii) {
            self.lowering_needed = true;
            return;
        }
        self.blank(span);
        self.semicolons.push(lo);
    }

    /// The offset of the first byte after `from` that is neither whitespace
    /// nor inside a comment (the source's length at its end), with whether
    /// a line break came before it. `None` at a character this scan does
    /// not classify: a non-ASCII one outside comments, which could be
    /// Unicode whitespace.
    fn next_significant(&self, from: usize) -> Option<(usize, bool)> {
        next_significant_in(self.src, from)
    }

    /// Whether every entry of an object literal or pattern opened at `open`
    /// begins where its key (or `...`) does, right after the `{` or the
    /// `,` that ends the entry before it; needs the full pipeline if not.
    /// swc reads `public`, `private`, `protected` or `readonly` before an
    /// object's key and drops it without an error, as the full pipeline's
    /// output shows; erasure would keep the word and break the program.
    /// An entry is (where its first token must be, if known; its end).
    fn entries_start_at_their_keys(
        &mut self,
        open: BytePos,
        entries: impl Iterator<Item = (Option<BytePos>, BytePos)>,
    ) {
        let mut after = self.at(open);
        if self.byte(after) != b'{' {
            self.lowering_needed = true;
            return;
        }
        after += 1;
        for (index, (first, hi)) in entries.enumerate() {
            if index > 0 {
                match self.next_significant(after) {
                    Some((comma, _)) if self.byte(comma) == b',' => after = comma + 1,
                    _ => {
                        self.lowering_needed = true;
                        return;
                    }
                }
            }
            if let Some(first) = first {
                let first = self.at(first);
                let blank_before = matches!(
                    next_significant_in(&self.src[..first], after),
                    Some((end, _)) if end == first
                );
                if !blank_before {
                    self.lowering_needed = true;
                    return;
                }
            }
            after = self.at(hi);
        }
    }

    /// The byte at `i`, or 0 past the end.
    fn byte(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    /// After removing the tail of an expression (`as T`, `!`, `<T>`): the
    /// next line must not be able to continue what is left.
    fn check_tail(&mut self, end: BytePos) {
        let end = self.at(end);
        match self.next_significant(end) {
            Some((i, true)) if matches!(self.byte(i), b'(' | b'[' | b'`') => {
                self.lowering_needed = true
            }
            Some(_) => {}
            None => self.lowering_needed = true,
        }
    }

    /// Blanks the single punctuation byte `mark` that follows `after`
    /// (`?` or `!` after a name), needing the full pipeline if it is not
    /// there.
    fn blank_mark_after(&mut self, after: BytePos, mark: u8) {
        let from = self.at(after);
        match self.next_significant(from) {
            Some((i, _)) if self.byte(i) == mark => self.blank_range(i, i + 1),
            _ => self.lowering_needed = true,
        }
    }

    /// Where `name` as written ends: swc's span of a parameter's name can
    /// take in its `?` and type. `None` for a name written with escapes.
    fn name_end(&self, name: &swc_ecma_ast::Ident) -> Option<BytePos> {
        let lo = self.at(name.span.lo);
        let end = lo + name.sym.len();
        (self.src.get(lo..end) == Some(name.sym.as_bytes()))
            .then(|| BytePos(self.start + end as u32))
    }

    /// Blanks the `?` after an optional parameter's name.
    fn blank_mark_after_name(&mut self, name: &swc_ecma_ast::Ident) {
        match self.name_end(name) {
            Some(end) => self.blank_mark_after(end, b'?'),
            None => self.lowering_needed = true,
        }
    }

    /// Blanks TypeScript's member modifiers (`public`, `private`,
    /// `protected`, `readonly`, `override`) between a class member's start
    /// and its key, keeping JavaScript's.
    fn blank_modifiers(&mut self, lo: BytePos, key: BytePos) {
        let (mut i, end) = (self.at(lo), self.at(key));
        while i < end {
            match self.src[i] {
                b' ' | b'\t' | b'\n' | b'\r' => i += 1,
                b'*' | b'#' | b'[' | b'"' | b'\'' => return,
                b if b.is_ascii_alphabetic() => {
                    let word_end = (i..end)
                        .find(|&j| !self.src[j].is_ascii_alphabetic())
                        .unwrap_or(end);
                    match &self.src[i..word_end] {
                        b"public" | b"private" | b"protected" | b"readonly" | b"override" => {
                            self.blank_range(i, word_end);
                            if i == self.at(lo) {
                                // The member's first word went: `;` keeps
                                // `[key]` from indexing the field above.
                                self.semicolons.push(i);
                            }
                        }
                        b"static" | b"async" | b"get" | b"set" | b"accessor" => {}
                        _ => {
                            self.lowering_needed = true;
                            return;
                        }
                    }
                    i = word_end;
                }
                _ => {
                    self.lowering_needed = true;
                    return;
                }
            }
        }
    }

    fn item<'m>(
        &mut self,
        item: &'m ModuleItem,
        top: &TopLevel,
        imports: &mut Vec<&'m ImportDecl>,
    ) {
        let ModuleItem::ModuleDecl(decl) = item else {
            item.visit_with(self);
            return;
        };
        match decl {
            ModuleDecl::Import(import) => {
                if import.type_only {
                    self.remove(import.span);
                } else {
                    imports.push(import);
                }
            }
            ModuleDecl::ExportDecl(export) => {
                if is_type_only(&export.decl) {
                    self.remove(export.span);
                } else {
                    export.decl.visit_with(self);
                }
            }
            ModuleDecl::ExportNamed(named) => {
                if named.type_only {
                    self.remove(named.span);
                    return;
                }
                if let Some(src) = &named.src {
                    self.literal(src.span);
                }
                for specifier in &named.specifiers {
                    match specifier {
                        ExportSpecifier::Named(s) if s.is_type_only => {
                            self.remove_list_entry(s.span)
                        }
                        ExportSpecifier::Named(s) if named.src.is_none() => match &s.orig {
                            // A local export of anything but a value this
                            // module declares (a type, an import, a global)
                            // is one the full pipeline decides.
                            ModuleExportName::Ident(id) if top.values.contains(&id.sym) => {}
                            _ => self.lowering_needed = true,
                        },
                        _ => {}
                    }
                }
            }
            ModuleDecl::ExportDefaultDecl(default) => match &default.decl {
                DefaultDecl::TsInterfaceDecl(_) => self.remove(default.span),
                DefaultDecl::Fn(f) if f.function.body.is_none() => self.remove(default.span),
                _ => default.decl.visit_with(self),
            },
            ModuleDecl::ExportDefaultExpr(default) => {
                if let Expr::Ident(id) = &*default.expr {
                    if !top.values.contains(&id.sym) {
                        self.lowering_needed = true;
                    }
                }
                default.expr.visit_with(self);
            }
            ModuleDecl::ExportAll(all) => {
                if all.type_only {
                    self.remove(all.span);
                }
                self.literal(all.src.span);
            }
            ModuleDecl::TsImportEquals(_)
            | ModuleDecl::TsExportAssignment(_)
            | ModuleDecl::TsNamespaceExport(_) => self.lowering_needed = true,
        }
    }

    /// Blanks one entry of a `{ a, b }` list with the comma after it.
    fn remove_list_entry(&mut self, span: Span) {
        let hi = self.at(span.hi);
        match self.next_significant(hi) {
            Some((i, _)) if self.byte(i) == b',' => self.blank_range(self.at(span.lo), i + 1),
            Some((i, _)) if matches!(self.byte(i), b'}' | b')') => self.blank(span),
            _ => self.lowering_needed = true,
        }
    }

    /// Drops the bindings of `import` the module never reads as a value,
    /// and the whole import when none is left.
    fn elide_unread(&mut self, import: &ImportDecl) {
        if import.specifiers.is_empty() {
            // `import "x"` stays; `import {} from "x"` is the full
            // pipeline's to decide.
            let after = self.at(import.span.lo) + "import".len();
            match self.next_significant(after) {
                Some((i, _)) if matches!(self.byte(i), b'"' | b'\'') => {}
                _ => self.lowering_needed = true,
            }
            return;
        }
        let mut read = Vec::with_capacity(import.specifiers.len());
        for specifier in &import.specifiers {
            let local = &local_of(specifier).sym;
            if self.bindings.contains(local) {
                // Shadowed somewhere: reads by name cannot tell which
                // binding they reach.
                self.lowering_needed = true;
                return;
            }
            let type_only = matches!(specifier, ImportSpecifier::Named(n) if n.is_type_only);
            read.push(!type_only && self.value_reads.contains(local));
        }
        if !read.contains(&true) {
            self.remove(import.span);
            return;
        }
        for (specifier, read) in import.specifiers.iter().zip(read) {
            if read {
                continue;
            }
            match specifier {
                ImportSpecifier::Named(named) => self.remove_list_entry(named.span),
                // A default or namespace binding dropped while another stays.
                _ => self.lowering_needed = true,
            }
        }
    }

    fn finish(self, source: &str) -> String {
        let mut code = source.as_bytes().to_vec();
        for (lo, hi) in self.blanks {
            blank_bytes(&mut code[lo..hi], &source[lo..hi]);
        }
        for at in self.semicolons {
            code[at] = b';';
        }
        for (at, byte) in self.overwrites {
            code[at] = byte;
        }
        // Whitespace replaced whole characters with characters of the same
        // byte length, and `;` replaced an ASCII byte.
        String::from_utf8(code).expect("erasure keeps UTF-8 intact")
    }

    fn class_member(&mut self, member: &ClassMember) {
        match member {
            ClassMember::Constructor(c) => {
                if c.body.is_none() {
                    return self.remove(c.span);
                }
                if c.accessibility.is_some() {
                    self.blank_modifiers(c.span.lo, c.key.span().lo);
                }
                c.visit_children_with(self);
            }
            ClassMember::Method(m) => {
                let modified = m.accessibility.is_some() || m.is_override;
                let shape = MethodShape {
                    span: m.span,
                    key: m.key.span().lo,
                    bodiless: m.function.body.is_none() || m.is_abstract,
                    optional: m.is_optional,
                    modified,
                };
                if self.method(shape) {
                    m.visit_children_with(self);
                }
            }
            ClassMember::PrivateMethod(m) => {
                let modified = m.accessibility.is_some() || m.is_override;
                let shape = MethodShape {
                    span: m.span,
                    key: m.key.span.lo,
                    bodiless: m.function.body.is_none() || m.is_abstract,
                    optional: m.is_optional,
                    modified,
                };
                if self.method(shape) {
                    m.visit_children_with(self);
                }
            }
            ClassMember::ClassProp(p) => self.class_prop(p),
            ClassMember::PrivateProp(p) => self.private_prop(p),
            ClassMember::TsIndexSignature(s) => self.remove(s.span),
            ClassMember::AutoAccessor(a) => self.auto_accessor(a),
            ClassMember::StaticBlock(_) | ClassMember::Empty(_) => member.visit_children_with(self),
        }
    }

    /// Erases what a method's shape asks; whether its key, parameters and
    /// body are still to be walked.
    fn method(&mut self, shape: MethodShape) -> bool {
        if shape.bodiless {
            self.remove(shape.span);
            return false;
        }
        if shape.optional {
            self.lowering_needed = true;
            return false;
        }
        if shape.modified {
            self.blank_modifiers(shape.span.lo, shape.key);
        }
        true
    }

    fn class_prop(&mut self, p: &ClassProp) {
        if p.declare || p.is_abstract {
            return self.remove(p.span);
        }
        if p.value.is_none() {
            // `get: T` then `x() {}` on the next line would become a getter.
            if let PropName::Ident(key) = &p.key {
                if matches!(&*key.sym, "get" | "set" | "static" | "async" | "accessor") {
                    self.lowering_needed = true;
                    return;
                }
            }
        }
        if p.accessibility.is_some() || p.readonly || p.is_override {
            self.blank_modifiers(p.span.lo, p.key.span().lo);
        }
        if p.is_optional {
            self.blank_mark_after(p.key.span().hi, b'?');
        }
        if p.definite {
            self.blank_mark_after(p.key.span().hi, b'!');
        }
        p.visit_children_with(self);
    }

    fn private_prop(&mut self, p: &PrivateProp) {
        if p.accessibility.is_some() || p.readonly || p.is_override {
            self.blank_modifiers(p.span.lo, p.key.span.lo);
        }
        if p.is_optional {
            self.blank_mark_after(p.key.span.hi, b'?');
        }
        if p.definite {
            self.blank_mark_after(p.key.span.hi, b'!');
        }
        p.visit_children_with(self);
    }

    fn auto_accessor(&mut self, a: &AutoAccessor) {
        if a.is_abstract || a.is_override || a.definite || a.accessibility.is_some() {
            self.lowering_needed = true;
            return;
        }
        a.visit_children_with(self);
    }
}

/// What erasing a method (public or `#private`) depends on.
struct MethodShape {
    span: Span,
    /// Where its key starts: TypeScript's modifiers come before it.
    key: BytePos,
    /// An overload signature or an abstract method: removed whole.
    bodiless: bool,
    /// `m?() {}`: left to the full pipeline.
    optional: bool,
    /// Has `public`/`private`/`protected`/`override` to blank.
    modified: bool,
}

/// A declaration that exists only for the type checker.
fn is_type_only(decl: &Decl) -> bool {
    match decl {
        Decl::TsInterface(_) | Decl::TsTypeAlias(_) => true,
        Decl::TsEnum(e) => e.declare,
        Decl::TsModule(m) => m.declare,
        Decl::Var(v) => v.declare,
        Decl::Fn(f) => f.declare || f.function.body.is_none(),
        Decl::Class(c) => c.declare,
        Decl::Using(_) => false,
    }
}

impl Eraser<'_> {
    /// `expr as T`, `expr satisfies T`, `expr as const`, `expr!` (the
    /// whole spanning `whole`): the expression stays, what follows it goes.
    fn expression_then_type(&mut self, expr: &Expr, whole: Span) {
        expr.visit_with(self);
        self.blank(Span::new(expr.span().hi, whole.hi));
        self.check_tail(whole.hi);
    }

    fn literal(&mut self, span: Span) {
        if self.literals_needed {
            let (lo, hi) = (self.at(span.lo), self.at(span.hi));
            self.literals.push((lo, hi));
        }
    }

    /// Whether an `@` stands outside every node that could hold it. swc
    /// drops a decorator written where none is allowed (before a statement
    /// that is not a class, inside an expression) without an error, and
    /// the full pipeline prints the program without it; erasure would keep
    /// its text. So every `@` of the source must be inside a literal, a
    /// comment or a blanked range.
    fn has_dropped_decorator(&self) -> bool {
        let mut covered: Vec<(usize, usize)> = self
            .literals
            .iter()
            .chain(self.blanks.iter())
            .copied()
            .collect();
        covered.sort_unstable();
        let src = self.src;
        let mut next_covered = 0;
        let mut i = 0;
        while let Some(found) = memchr::memchr2(b'/', b'@', &src[i..]) {
            let at = i + found;
            while next_covered < covered.len() && covered[next_covered].1 <= at {
                next_covered += 1;
            }
            if let Some(&(lo, hi)) = covered.get(next_covered) {
                if lo <= at {
                    i = hi;
                    continue;
                }
            }
            match (src[at], src.get(at + 1)) {
                (b'@', _) => return true,
                (_, Some(b'/')) => {
                    i = at + 2;
                    while i < src.len() && !is_line_break_at(src, i) {
                        i += 1;
                    }
                }
                (_, Some(b'*')) => match find(src, at + 2, b"*/") {
                    Some(end) => i = end + 2,
                    None => return false,
                },
                _ => i = at + 1,
            }
        }
        false
    }

    fn has_line_break(&self, span: Span) -> bool {
        self.src[self.at(span.lo)..self.at(span.hi)]
            .iter()
            .any(|&b| b == b'\n' || b == b'\r' || b == 0xe2)
    }
}

/// The offset of the first byte after `from` that is neither whitespace
/// nor inside a comment (the source's length at its end), with whether
/// a line break came before it. `None` at a character this scan does
/// not classify: a non-ASCII one outside comments, which could be
/// Unicode whitespace.
fn next_significant_in(src: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut i = from;
    let mut line_break = false;
    while i < src.len() {
        match src[i] {
            b'\n' | b'\r' => {
                line_break = true;
                i += 1;
            }
            b' ' | b'\t' | 0x0b | 0x0c => i += 1,
            b'/' if src.get(i + 1) == Some(&b'/') => {
                // Ends at the line break, which the next round counts.
                while i < src.len() && !is_line_break_at(src, i) {
                    i += 1;
                }
            }
            b'/' if src.get(i + 1) == Some(&b'*') => {
                let end = find(src, i + 2, b"*/")?;
                if (i + 2..end).any(|j| is_line_break_at(src, j)) {
                    line_break = true;
                }
                i = end + 2;
            }
            0xe2 if is_line_break_at(src, i) => {
                line_break = true;
                i += 3;
            }
            b if b.is_ascii() => return Some((i, line_break)),
            _ => return None,
        }
    }
    Some((src.len(), line_break))
}

/// Whether a line break (LF, CR, U+2028, U+2029) starts at `src[i]`.
fn is_line_break_at(src: &[u8], i: usize) -> bool {
    match src[i] {
        b'\n' | b'\r' => true,
        0xe2 => matches!(src.get(i + 1..i + 3), Some([0x80, 0xa8 | 0xa9])),
        _ => false,
    }
}

fn find(haystack: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| from + i)
}

/// Overwrites `bytes` (the UTF-8 of `text`) with whitespace character by
/// character: line breaks stay, every other character becomes whitespace of
/// its own byte length (U+0020, U+00A0, U+2002, or U+0020 U+FEFF for a
/// four-byte character), so every later position stays where it was.
fn blank_bytes(bytes: &mut [u8], text: &str) {
    if text.is_ascii() {
        // The common case, in a form the compiler vectorizes.
        for b in bytes.iter_mut() {
            *b = if *b == b'\n' || *b == b'\r' { *b } else { b' ' };
        }
        return;
    }
    for (i, c) in text.char_indices() {
        let out = &mut bytes[i..i + c.len_utf8()];
        match c {
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => {}
            _ => match out.len() {
                1 => out[0] = b' ',
                2 => out.copy_from_slice("\u{a0}".as_bytes()),
                3 => out.copy_from_slice("\u{2002}".as_bytes()),
                _ => out.copy_from_slice(" \u{feff}".as_bytes()),
            },
        }
    }
}
