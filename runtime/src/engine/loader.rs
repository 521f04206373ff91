//! Module resolution for programs: a program may import `"gg"`, the keys
//! of the agent's loaded code memories (`"csvTools"`, also spelled
//! `"gg/csvTools"`) and its tool servers' modules (`"gg/tools/files"`), and
//! nothing else: no files, no URLs, no `ext:` modules.
//!
//! It also serves the source maps deno_core maps stack frames with, so that
//! an error's `stack` names the TypeScript its author wrote (`csvTools.ts:2:10`)
//! whether or not the program catches it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use gg_transpiler::PositionMap;

use super::registry::ModuleRegistry;

use deno_core::error::ModuleLoaderError;
use deno_core::{
    ModuleLoadOptions, ModuleLoadReferrer, ModuleLoadResponse, ModuleLoader, ModuleSource,
    ModuleSourceCode, ModuleSpecifier, ModuleType, RequestedModuleType, ResolutionKind,
};
use deno_error::JsErrorBox;

/// The specifier programs reach `gg` by.
pub const GG_SPECIFIER: &str = "gg:gg";

/// The specifier programs reach `gg/tools` by (the bridge's tool calls,
/// async, kept apart from `gg`, whose calls are all synchronous).
pub const GG_TOOLS_SPECIFIER: &str = "gg:tools";

pub type SharedRegistry = Rc<RefCell<ModuleRegistry>>;

/// A module's display name (`p3.ts`, `csvTools.ts`) and position map.
pub(crate) type Located = (String, Rc<PositionMap>);

pub struct GgLoader {
    /// The agent's module registry; a pre-warmed isolate gets its agent's
    /// when it is bound.
    registry: RefCell<SharedRegistry>,
    /// The source of the module programs import as `gg` (the bridge's).
    gg_source: &'static str,
    /// The source of the module programs import as `gg/tools`.
    tools_source: &'static str,
    /// The host's own root modules (a program, an onUse hook) while they
    /// run, by specifier.
    roots: RefCell<HashMap<String, Located>>,
    /// Display names of the source maps served so far: the names deno_core
    /// may put on a mapped frame of an author's module.
    served_names: RefCell<HashSet<String>>,
}

impl GgLoader {
    pub fn new(registry: SharedRegistry, gg_source: &'static str) -> Self {
        GgLoader {
            registry: RefCell::new(registry),
            gg_source,
            tools_source: "export {};",
            roots: RefCell::default(),
            served_names: RefCell::default(),
        }
    }

    /// Serves `source` as the module `gg/tools`.
    pub fn with_tools_source(mut self, source: &'static str) -> Self {
        self.tools_source = source;
        self
    }

    /// Records a root module about to run. deno_core asks for a module's
    /// source map once per isolate and keeps the answer, a miss included;
    /// a root is registered before it is compiled, so no frame of it can
    /// be mapped (or missed) before its map is here. Specifiers are never
    /// reused within an isolate (its module map is keyed by them), so a
    /// kept map is never another module's.
    pub fn register_root(&self, specifier: &str, display: &str, positions: Rc<PositionMap>) {
        self.roots
            .borrow_mut()
            .insert(specifier.to_string(), (display.to_string(), positions));
    }

    /// Forgets a root module that has finished running.
    pub fn forget_root(&self, specifier: &str) {
        self.roots.borrow_mut().remove(specifier);
    }

    /// The display name and position map of the author's module
    /// `specifier`: a root that is running or a code memory of this run.
    pub(crate) fn located(&self, specifier: &str) -> Option<Located> {
        // Never panics: it runs inside the engine's stack-trace callback.
        if let Some(root) = self.roots.try_borrow().ok()?.get(specifier) {
            return Some(root.clone());
        }
        let registry = self.registry.try_borrow().ok()?.clone();
        let registry = registry.try_borrow().ok()?;
        registry
            .module(specifier)
            .map(|m| (m.display.clone(), m.positions.clone()))
    }

    /// Whether `name` is a display name a served source map gave a frame:
    /// such a frame is in an author's module and already in TypeScript
    /// positions.
    pub(crate) fn is_mapped_name(&self, name: &str) -> bool {
        self.served_names
            .try_borrow()
            .is_ok_and(|names| names.contains(name))
    }

    /// Whether `test` holds for the code of any module a run begun now
    /// can import.
    pub fn any_importable(&self, test: impl Fn(&str) -> bool) -> bool {
        self.registry().borrow().run_codes().any(test)
    }

    /// Points the loader at the agent this isolate now serves.
    pub fn bind(&self, registry: SharedRegistry) {
        *self.registry.borrow_mut() = registry;
    }

    fn registry(&self) -> SharedRegistry {
        self.registry.borrow().clone()
    }
}

impl ModuleLoader for GgLoader {
    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        _kind: ResolutionKind,
    ) -> Result<ModuleSpecifier, ModuleLoaderError> {
        // The host's own root loads (a program, an onUse, the gg module)
        // come with the referrer "."; an import written in a module never does.
        let target = if referrer == "." && specifier.starts_with("gg:") {
            Some(specifier.to_string())
        } else if specifier == "gg" {
            Some(GG_SPECIFIER.to_string())
        } else if specifier == "gg/tools" {
            Some(GG_TOOLS_SPECIFIER.to_string())
        } else {
            let key = specifier.strip_prefix("gg/").unwrap_or(specifier);
            self.registry().borrow_mut().resolve_key(key)
        };
        match target {
            Some(target) => ModuleSpecifier::parse(&target).map_err(JsErrorBox::from_err),
            None => {
                let keys = self.registry().borrow().keys();
                let provided = self.registry().borrow().provided_keys();
                let tools = if provided.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", the tool modules {}",
                        provided
                            .iter()
                            .map(|k| format!("\"gg/{k}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                let available = if keys.is_empty() {
                    format!("\"gg\"{tools} (no code memories are loaded yet)")
                } else {
                    format!(
                        "\"gg\"{tools} and the loaded code memories {}",
                        keys.iter()
                            .map(|k| format!("\"{k}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                Err(JsErrorBox::type_error(format!(
                    "Cannot import \"{specifier}\": programs can import only {available}. Files, URLs and packages are not reachable from a program."
                )))
            }
        }
    }

    fn load(
        &self,
        specifier: &ModuleSpecifier,
        _referrer: Option<&ModuleLoadReferrer>,
        options: ModuleLoadOptions,
    ) -> ModuleLoadResponse {
        let result = if options.requested_module_type != RequestedModuleType::None {
            Err(JsErrorBox::type_error(format!(
                "Cannot import \"{specifier}\" with import attributes."
            )))
        } else if specifier.as_str() == GG_SPECIFIER || specifier.as_str() == GG_TOOLS_SPECIFIER {
            let source = if specifier.as_str() == GG_SPECIFIER {
                self.gg_source
            } else {
                self.tools_source
            };
            Ok(ModuleSource::new(
                ModuleType::JavaScript,
                ModuleSourceCode::String(deno_core::FastString::from_static(source)),
                specifier,
                None,
            ))
        } else {
            match self.registry().borrow().module(specifier.as_str()) {
                Some(module) => Ok(ModuleSource::new(
                    ModuleType::JavaScript,
                    ModuleSourceCode::String(module.code.clone().into()),
                    specifier,
                    None,
                )),
                None => Err(JsErrorBox::type_error(format!(
                    "Cannot import \"{specifier}\": no such module."
                ))),
            }
        };
        ModuleLoadResponse::Sync(result)
    }

    /// The author's module's positions as a source map whose one source is
    /// its display name, so a mapped frame reads `csvTools.ts:2:10`, the
    /// name an uncaught error shows, with no run number in it.
    fn get_source_map(&self, file_name: &str) -> Option<Cow<'_, [u8]>> {
        let (display, positions) = self.located(file_name)?;
        let json = positions.to_source_map_json(&display)?;
        // A map only with its name vouched for: a frame mapped under its
        // specifier would be mapped a second time by `errors`.
        self.served_names.try_borrow_mut().ok()?.insert(display);
        Some(Cow::Owned(json))
    }

    /// deno_core shows a map's source name in place of the module's only
    /// when it can resolve it, and a bare name cannot be resolved against
    /// an opaque `gg:` specifier: it asks here whether to show the name as
    /// written (gg's patch to `SourceMapper::apply_source_map`).
    fn source_map_source_exists(&self, source_url: &str) -> Option<bool> {
        Some(self.is_mapped_name(source_url))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use deno_core::{SourceMapApplication, SourceMapper};
    use gg_transpiler::SourcePosition;

    const MODULE: &str = r#"interface Row {
  id: number;
  name: string;
}
type Rows = Row[];

export function pick(rows: Rows, i: number): Row {
  if (i >= rows.length) throw new Error("no row " + i);
  return rows[i];
}

enum Kind { A, B }
export const kinds = [Kind.A, Kind.B].map((k) => ({ k, label: `kind ${k}` }));
"#;

    fn loader() -> Rc<GgLoader> {
        Rc::new(GgLoader::new(Default::default(), ""))
    }

    /// deno_core's own mapper, over the loader's maps, finds for every
    /// position of the emitted JavaScript the file and position the
    /// engine's own lookup (`PositionMap::original`) finds.
    #[test]
    fn deno_core_maps_every_position_as_the_position_map_does() {
        let transpiled = gg_transpiler::transpile(MODULE, "rowTools.ts").expect("compiles");
        let positions = Rc::new(transpiled.positions);
        let loader = loader();
        loader.register_root("gg:memory/rowTools@7.js", "rowTools.ts", positions.clone());
        let mut mapper = SourceMapper::new(loader.clone());
        let lines: Vec<&str> = transpiled.code.lines().collect();
        let throw_line = lines.iter().position(|l| l.contains("throw")).unwrap() + 1;
        assert_ne!(throw_line, 8, "JavaScript and TypeScript lines differ");
        for (i, text) in lines.iter().enumerate() {
            for column in 1..=text.chars().count() + 2 {
                let generated = SourcePosition {
                    line: i + 1,
                    column,
                };
                let original = positions.original(generated).unwrap();
                assert_eq!(
                    mapper.apply_source_map(
                        "gg:memory/rowTools@7.js",
                        generated.line as u32,
                        column as u32
                    ),
                    SourceMapApplication::LineAndColumnAndFileName {
                        file_name: "rowTools.ts".to_string(),
                        line_number: original.line as u32,
                        column_number: original.column as u32,
                    },
                    "{generated:?} in\n{}",
                    transpiled.code
                );
            }
        }
        assert!(loader.is_mapped_name("rowTools.ts"));
    }

    #[test]
    fn only_author_modules_have_maps_and_only_their_names_are_vouched_for() {
        let loader = loader();
        let mut mapper = SourceMapper::new(loader.clone());
        assert_eq!(
            mapper.apply_source_map(GG_SPECIFIER, 1, 1),
            SourceMapApplication::Unchanged
        );
        assert!(loader.get_source_map("gg:program/p1.ts").is_none());
        assert!(!loader.is_mapped_name("p1.ts"));
        assert_eq!(loader.source_map_source_exists("p1.ts"), Some(false));

        let transpiled = gg_transpiler::transpile(MODULE, "p1.ts").expect("compiles");
        loader.register_root("gg:program/p1.ts", "p1.ts", Rc::new(transpiled.positions));
        assert!(loader.located("gg:program/p1.ts").is_some());
        assert!(loader.get_source_map("gg:program/p1.ts").is_some());
        assert_eq!(loader.source_map_source_exists("p1.ts"), Some(true));
        loader.forget_root("gg:program/p1.ts");
        assert!(loader.located("gg:program/p1.ts").is_none());
    }
}
