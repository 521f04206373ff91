//! Test-only: one module through both pipelines, each output normalized,
//! so a test or the fuzzer can prove that erasing types in place changes
//! nothing a program could observe but layout and comments.

use swc_common::sync::Lrc;
use swc_common::{FileName, Globals, Mark, SourceMap, GLOBALS};
use swc_ecma_ast::{EsVersion, Pass, Program};
use swc_ecma_codegen::text_writer::JsWriter;
use swc_ecma_codegen::{Config as CodegenConfig, Emitter};
use swc_ecma_parser::{lexer::Lexer, EsSyntax, Parser, StringInput, Syntax};
use swc_ecma_transforms_base::fixer::{fixer, paren_remover};
use swc_ecma_transforms_base::{hygiene::hygiene, resolver};

use swc_ecma_ast::{ClassMember, ModuleDecl, ModuleItem, Stmt};
use swc_ecma_visit::{VisitMut, VisitMutWith};

use crate::strip::{run_caught, Pipeline};
use crate::TranspileError;

/// Both pipelines' JavaScript for one module.
#[derive(Debug)]
pub struct Both {
    /// The erased code, normalized; `None` when the module needed the full
    /// pipeline anyway.
    pub erased: Option<String>,
    /// The full pipeline's code, normalized.
    pub full: String,
}

/// Compiles `source` both ways. Errors are the full pipeline's.
pub fn both(source: &str, file_name: &str) -> Result<Both, TranspileError> {
    let full = run_caught(source, file_name, Pipeline::Full)?;
    let fastest = run_caught(source, file_name, Pipeline::Fastest)?;
    let erased = fastest
        .positions
        .is_identity()
        .then(|| normalize(&fastest.code));
    Ok(Both {
        erased,
        full: normalize(&full.code),
    })
}

/// `code` parsed as a JavaScript module and printed again without comments,
/// with only the parentheses it needs and bindings renamed by swc's
/// hygiene: two programs that print alike here are one program. A parse error prints as `syntax error: …`, so a
/// difference in validity is a difference too.
pub fn normalize(code: &str) -> String {
    let cm: Lrc<SourceMap> = Default::default();
    let fm = cm.new_source_file(Lrc::new(FileName::Anon), code.to_string());
    let mut lexer = Lexer::new(
        Syntax::Es(EsSyntax {
            explicit_resource_management: true,
            ..Default::default()
        }),
        EsVersion::latest(),
        StringInput::from(&*fm),
        None,
    );
    lexer.set_token_budget(crate::strip::token_budget(code));
    let mut parser = Parser::new_from(lexer);
    let parsed = parser.parse_module();
    if parser.input().iter().token_budget_exhausted_at().is_some() {
        return "syntax error: too intricate to parse".into();
    }
    let module = match parsed {
        Ok(module) if parser.take_errors().is_empty() => module,
        Ok(_) => return "syntax error: recovered".into(),
        Err(e) => return format!("syntax error: {}", e.kind().msg()),
    };
    let program = GLOBALS.set(&Globals::new(), || {
        let mut program = Program::Module(module);
        // Bindings renamed as swc's hygiene renames them: the full pipeline
        // renames a local that shares a name with an undeclared global, and
        // a consistent renaming is no difference.
        resolver(Mark::new(), Mark::new(), false).process(&mut program);
        hygiene().process(&mut program);
        program.visit_mut_with(&mut DropEmpty);
        paren_remover(None).process(&mut program);
        fixer(None).process(&mut program);
        program
    });
    let mut out = Vec::new();
    {
        let mut emitter = Emitter {
            cfg: CodegenConfig::default().with_target(EsVersion::latest()),
            cm: cm.clone(),
            comments: None,
            wr: JsWriter::new(cm.clone(), "\n", &mut out, None),
        };
        use swc_ecma_codegen::Node;
        program.emit_with(&mut emitter).expect("printing to memory");
    }
    String::from_utf8(out).expect("swc prints UTF-8")
}

/// Drops empty statements and class members from their lists: where a
/// removed declaration stood, erasure leaves `;`, the printer nothing.
struct DropEmpty;

impl VisitMut for DropEmpty {
    fn visit_mut_module_items(&mut self, items: &mut Vec<ModuleItem>) {
        // The full pipeline marks a module left without imports or exports
        // with `export {}`; erasure keeps it a module by being loaded as one.
        items.retain(|item| match item {
            ModuleItem::Stmt(Stmt::Empty(_)) => false,
            ModuleItem::ModuleDecl(ModuleDecl::ExportNamed(named)) => {
                !(named.specifiers.is_empty() && named.src.is_none())
            }
            _ => true,
        });
        items.visit_mut_children_with(self);
    }

    fn visit_mut_stmts(&mut self, stmts: &mut Vec<Stmt>) {
        stmts.retain(|stmt| !matches!(stmt, Stmt::Empty(_)));
        stmts.visit_mut_children_with(self);
    }

    fn visit_mut_class_members(&mut self, members: &mut Vec<ClassMember>) {
        members.retain(|member| !matches!(member, ClassMember::Empty(_)));
        members.visit_mut_children_with(self);
    }
}
