//! The swc pipeline: parse TypeScript as a module, resolve, lower standard
//! decorators (only in a module that has one), strip types, print
//! JavaScript with a position map back to the TypeScript.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use swc_common::errors::{DiagnosticBuilder, Emitter, Handler, HANDLER};
use swc_common::sync::Lrc;
use swc_common::{BytePos, FileName, Globals, LineCol, Mark, SourceMap, Span, GLOBALS};
use swc_ecma_ast::{EsVersion, Pass, Program};
use swc_ecma_codegen::text_writer::JsWriter;
use swc_ecma_codegen::{Config as CodegenConfig, Emitter as CodeEmitter};
use swc_ecma_parser::{lexer::Lexer, Parser, StringInput, Syntax, TsSyntax};
use swc_ecma_transforms_base::{fixer::fixer, hygiene::hygiene, resolver};
use swc_ecma_transforms_typescript::{typescript, Config as TsConfig};

use crate::{decorators, early_errors, erase, Diagnostic, PositionMap, TranspileError, Transpiled};

/// Runs the pipeline on this thread's compiler stack, turning a panic
/// anywhere inside swc into [`TranspileError::Internal`].
pub(crate) fn run_caught(
    source: &str,
    file_name: &str,
    pipeline: Pipeline,
) -> Result<Transpiled, TranspileError> {
    #[cfg(feature = "fault-injection")]
    let crash = crate::fault_injection::take();
    #[cfg(not(feature = "fault-injection"))]
    let crash = false;
    crate::deep_stack::run(|| run_guarded(source, file_name, crash, pipeline)).unwrap_or_else(
        || {
            Err(TranspileError::Internal(
                "no memory for the compiler's stack".into(),
            ))
        },
    )
}

/// Which way a module may be compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pipeline {
    /// Types erased in place where that is enough (`erase`), else the full
    /// pipeline.
    Fastest,
    /// Always the full pipeline: transform and print. Tests compare the two.
    #[cfg_attr(not(feature = "differential"), allow(dead_code))]
    Full,
}

/// The pipeline itself, on the thread's deep compiler stack.
pub(crate) fn run_guarded(
    source: &str,
    file_name: &str,
    crash: bool,
    pipeline: Pipeline,
) -> Result<Transpiled, TranspileError> {
    match catch_unwind(AssertUnwindSafe(|| {
        if crash {
            panic!("fault injection: forced compiler crash");
        }
        run(source, file_name, pipeline)
    })) {
        Ok(result) => result,
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string panic payload".to_string());
            Err(TranspileError::Internal(format!(
                "swc panicked while compiling {file_name}: {detail}"
            )))
        }
    }
}

/// Where the source's first byte is in the parser's positions: the first
/// file of a fresh `SourceMap` starts there too, so one made after the
/// parse (for diagnostics or the printer) agrees with every span.
pub(crate) const START: BytePos = BytePos(1);

/// The most tokens the lexer may produce while parsing `source`: 16 per
/// byte, plus 65 536. Tokens read again after the parser rolls back a
/// speculative parse count too, and nested speculation (`a<(b<(c<(…` could
/// each open type arguments) makes that work exponential in the source's
/// length: a 436-byte program once held a host thread for five minutes.
/// Real TypeScript needs about one token per eight bytes (0.13 over the
/// bench's corpus of npm sources, 0.64 at most over it and gg's fixtures),
/// so no program a person or a model writes comes near the budget, and the
/// most a program can make the parser do is bounded by its length: about
/// 2.2 million tokens at the 32 768-character cap, a fraction of a second.
pub(crate) fn token_budget(source: &str) -> u64 {
    16 * source.len() as u64 + 65_536
}

/// The diagnostic for a parse that ran out of its token budget.
fn too_intricate(budget: u64, source: &str) -> String {
    format!(
        "this program is too intricate to parse: gg stopped after reading {budget} tokens \
         of its {} bytes, most of them read again to decide whether a `<` opens type \
         arguments or compares. Put comparisons in parentheses, like `(a < b)`, or split \
         the expression into smaller statements.",
        source.len()
    )
}

/// Parses `source` (a BOM already removed) as a TypeScript module, with
/// positions from [`START`]; `Err` holds the parser's errors with their
/// spans.
pub(crate) fn parse(source: &str) -> Result<swc_ecma_ast::Module, Vec<(Span, String)>> {
    let syntax = Syntax::Typescript(TsSyntax {
        tsx: false,
        // Parsed in every source (a decorator is refused by the parser
        // otherwise with a message about the next token); lowered only
        // where `decorators::scan` finds one.
        decorators: true,
        ..Default::default()
    });
    let end = BytePos(START.0 + source.len() as u32);
    let mut lexer = Lexer::new(
        syntax,
        EsVersion::latest(),
        StringInput::new(source, START, end),
        // No comments: JavaScript's behaviour does not depend on them, and
        // declared functions read their JSDoc from the source.
        None,
    );
    let budget = token_budget(source);
    lexer.set_token_budget(budget);
    let mut parser = Parser::new_from(lexer);
    let parsed = parser.parse_module();
    if let Some(at) = parser.input().iter().token_budget_exhausted_at() {
        return Err(vec![(Span::new(at, at), too_intricate(budget, source))]);
    }
    let mut errors: Vec<(Span, String)> = parser
        .take_errors()
        .into_iter()
        .map(|e| (swc_common::Spanned::span(&e), e.kind().msg().into_owned()))
        .collect();
    match parsed {
        Ok(module) if errors.is_empty() => {
            let left = early_errors::find(&module, source, START);
            if left.is_empty() {
                Ok(module)
            } else {
                Err(left)
            }
        }
        Ok(_) => Err(errors),
        Err(e) => {
            errors.push((swc_common::Spanned::span(&e), e.kind().msg().into_owned()));
            Err(errors)
        }
    }
}

/// The most diagnostics a program's parse reports; the last one says how
/// many more there were.
const MAX_DIAGNOSTICS: usize = 20;

fn run(source: &str, file_name: &str, pipeline: Pipeline) -> Result<Transpiled, TranspileError> {
    // A byte-order mark is not part of the program, and every position is
    // counted after it. All of them go: swc's source map, made later from
    // this text, drops one more, and would then disagree with every span.
    let source = source.trim_start_matches('\u{feff}');
    // The source map is made only for what needs one: locating a
    // diagnostic, and the full pipeline's printer.
    let source_map: std::cell::OnceCell<Lrc<SourceMap>> = std::cell::OnceCell::new();
    let cm = || {
        source_map.get_or_init(|| {
            let cm: Lrc<SourceMap> = Default::default();
            let fm = cm.new_source_file(
                Lrc::new(FileName::Custom(file_name.to_string())),
                source.to_string(),
            );
            debug_assert_eq!(fm.start_pos, START);
            cm
        })
    };
    let locate = |span: Span, message: String| -> Diagnostic {
        let loc = cm().lookup_char_pos(span.lo);
        Diagnostic::at_line_col(file_name, source, loc.line, loc.col.0 + 1, message)
    };

    let module = match parse(source) {
        Ok(module) => module,
        Err(mut errors) => {
            // Ordered and deduplicated before any is located, and at most
            // MAX_DIAGNOSTICS located: a short program can hold tens of
            // thousands of errors, each quoting its line.
            errors.sort_by_key(|(span, _)| span.lo);
            errors.dedup();
            let more = errors.len().saturating_sub(MAX_DIAGNOSTICS);
            let mut diagnostics: Vec<Diagnostic> = errors
                .into_iter()
                .take(MAX_DIAGNOSTICS)
                .map(|(span, message)| locate(span, message))
                .collect();
            diagnostics.dedup();
            if more > 0 {
                if let Some(last) = diagnostics.last_mut() {
                    last.message
                        .push_str(&format!(" (and {more} more problems after this one)"));
                }
            }
            return Err(TranspileError::Invalid(diagnostics));
        }
    };

    // Most modules are annotations over JavaScript: blanked in place, they
    // need no transform, no printer and no position map. Erasure refuses any
    // module with a decorator, so one it takes needs no decorator scan.
    if pipeline == Pipeline::Fastest {
        if let Some(code) = erase::erase(&module, source, START) {
            let source: std::sync::Arc<str> = source.into();
            return Ok(Transpiled::new(
                code,
                PositionMap::identity(source.clone()),
                imported_specifiers(&module),
                source,
            ));
        }
    }

    let decorated = decorators::scan(&module, source);
    let refused = decorated.refused();
    if !refused.is_empty() {
        let diagnostics = refused
            .into_iter()
            .map(|(span, message)| locate(span, message.into()))
            .collect();
        return Err(TranspileError::Invalid(diagnostics));
    }

    let imports = imported_specifiers(&module);

    // Transform, collecting whatever the transform reports through swc's
    // diagnostic handler.
    let collected: Reported = Default::default();
    let handler = Handler::with_emitter(true, false, Box::new(Collect(collected.clone())));
    let program = GLOBALS.set(&Globals::new(), || {
        HANDLER.set(&handler, || {
            let unresolved = Mark::new();
            let top_level = Mark::new();
            let mut program = Program::Module(module);
            resolver(unresolved, top_level, true).process(&mut program);
            if decorated.any {
                decorators::lower(&mut program, top_level);
            }
            let config = TsConfig {
                // Keep `import "x"` and value imports as written; drop
                // type-only imports, as TypeScript does.
                ..Default::default()
            };
            typescript(config, unresolved, top_level).process(&mut program);
            // Renames what the lowering made clash, then adds the parentheses
            // the lowered enums and namespaces need.
            hygiene().process(&mut program);
            fixer(None).process(&mut program);
            program
        })
    });
    if decorated.any {
        let left = decorators::left_in(&program);
        if !left.is_empty() {
            let diagnostics = left
                .into_iter()
                .map(|span| locate(span, decorators::LEFT_IN_PLACE.into()))
                .collect();
            return Err(TranspileError::Invalid(diagnostics));
        }
    }
    let reported = std::mem::take(&mut *collected.lock().unwrap_or_else(|p| p.into_inner()));
    if !reported.is_empty() {
        let diagnostics = reported
            .into_iter()
            .map(|(span, message)| match span {
                Some(span) => locate(span, message),
                None => Diagnostic::at_line_col(file_name, source, 1, 1, message),
            })
            .collect();
        return Err(TranspileError::Invalid(diagnostics));
    }

    let mut mappings: Vec<(BytePos, LineCol)> = Vec::new();
    let mut out = Vec::with_capacity(source.len());
    let cm = cm();
    {
        let writer = JsWriter::new(cm.clone(), "\n", &mut out, Some(&mut mappings));
        let mut emitter = CodeEmitter {
            cfg: CodegenConfig::default().with_target(EsVersion::latest()),
            cm: cm.clone(),
            comments: None,
            wr: writer,
        };
        use swc_ecma_codegen::Node;
        program
            .emit_with(&mut emitter)
            .map_err(|e| TranspileError::Internal(format!("code generation failed: {e}")))?;
    }
    let code = String::from_utf8(out).map_err(|e| {
        TranspileError::Internal(format!("code generation produced invalid UTF-8: {e}"))
    })?;
    let positions = PositionMap::from_swc(cm, &mappings);
    Ok(Transpiled::new(code, positions, imports, source.into()))
}

/// The specifiers a module's static imports and re-exports name, each
/// once, type-only ones left out.
fn imported_specifiers(module: &swc_ecma_ast::Module) -> Vec<String> {
    use swc_ecma_ast::{ModuleDecl, ModuleItem};
    let mut found: Vec<String> = Vec::new();
    for item in &module.body {
        let ModuleItem::ModuleDecl(decl) = item else {
            continue;
        };
        let src = match decl {
            ModuleDecl::Import(import) if !import.type_only => Some(&import.src),
            ModuleDecl::ExportNamed(named) if !named.type_only => named.src.as_ref(),
            ModuleDecl::ExportAll(all) if !all.type_only => Some(&all.src),
            _ => None,
        };
        if let Some(src) = src {
            let specifier = src.value.to_string_lossy().into_owned();
            if !found.contains(&specifier) {
                found.push(specifier);
            }
        }
    }
    found
}

/// Collects diagnostics the transform emits instead of printing them.
type Reported = Arc<Mutex<Vec<(Option<Span>, String)>>>;
struct Collect(Reported);

impl Emitter for Collect {
    fn emit(&mut self, db: &mut DiagnosticBuilder<'_>) {
        let span = db.span.primary_span();
        let message = db.message();
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((span, message));
    }
}
