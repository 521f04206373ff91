//! Module resolution for programs: a program may import `"gg"` and the keys
//! of the agent's loaded code memories (`"csvTools"`, also spelled
//! `"gg/csvTools"`), and nothing else: no files, no URLs, no `ext:` modules.

use std::cell::RefCell;
use std::collections::HashMap;

use deno_core::error::ModuleLoaderError;
use deno_core::{
    ModuleLoadOptions, ModuleLoadReferrer, ModuleLoadResponse, ModuleLoader, ModuleSource,
    ModuleSourceCode, ModuleSpecifier, ModuleType, RequestedModuleType, ResolutionKind,
};
use deno_error::JsErrorBox;

/// The specifier programs reach `gg` by.
pub const GG_SPECIFIER: &str = "gg:gg";

/// The user-facing `gg` module: takes the API the host extension left and
/// removes it from the global object.
const GG_MODULE_SOURCE: &str = r#"
const key = Symbol.for("gg.internal.api");
const api = globalThis[key];
delete globalThis[key];
export const memories = api.memories;
export const views = api.views;
export const GgError = api.GgError;
export default api;
"#;

#[derive(Default)]
pub struct GgLoader {
    /// Source for every `gg:` module the isolate may load, by specifier.
    sources: RefCell<HashMap<String, String>>,
    /// Memory module keys → the specifier of their current version.
    keys: RefCell<HashMap<String, String>>,
}

impl GgLoader {
    pub fn new() -> Self {
        let loader = GgLoader::default();
        loader
            .sources
            .borrow_mut()
            .insert(GG_SPECIFIER.into(), GG_MODULE_SOURCE.into());
        loader
    }

    /// Registers a module's JavaScript under a specifier.
    pub fn add_source(&self, specifier: &str, code: String) {
        self.sources
            .borrow_mut()
            .insert(specifier.to_string(), code);
    }

    /// Forgets a program's source once it is in the module map.
    pub fn remove_source(&self, specifier: &str) {
        self.sources.borrow_mut().remove(specifier);
    }

    /// Points an import key at a module specifier (a new version replaces
    /// the old one for later imports).
    pub fn bind_key(&self, key: &str, specifier: &str) {
        self.keys
            .borrow_mut()
            .insert(key.to_string(), specifier.to_string());
    }

    pub fn unbind_all_keys(&self) {
        self.keys.borrow_mut().clear();
    }

    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.keys.borrow().keys().cloned().collect();
        keys.sort();
        keys
    }
}

impl ModuleLoader for GgLoader {
    fn resolve(
        &self,
        specifier: &str,
        referrer: &str,
        _kind: ResolutionKind,
    ) -> Result<ModuleSpecifier, ModuleLoaderError> {
        // The host's own root loads (a program, the gg module) come with the
        // referrer "."; an import written in a module never does.
        let target = if referrer == "." && specifier.starts_with("gg:") {
            Some(specifier.to_string())
        } else if specifier == "gg" {
            Some(GG_SPECIFIER.to_string())
        } else {
            let key = specifier.strip_prefix("gg/").unwrap_or(specifier);
            self.keys.borrow().get(key).cloned()
        };
        match target {
            Some(target) => ModuleSpecifier::parse(&target).map_err(JsErrorBox::from_err),
            None => {
                let keys = self.keys();
                let available = if keys.is_empty() {
                    "\"gg\" (no code memories are loaded yet)".to_string()
                } else {
                    format!(
                        "\"gg\" and the loaded code memories {}",
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
        } else {
            match self.sources.borrow().get(specifier.as_str()) {
                Some(code) => Ok(ModuleSource::new(
                    ModuleType::JavaScript,
                    ModuleSourceCode::String(code.clone().into()),
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
}
