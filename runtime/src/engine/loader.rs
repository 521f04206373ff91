//! Module resolution for programs: a program may import `"gg"` and the keys
//! of the agent's loaded code memories (`"csvTools"`, also spelled
//! `"gg/csvTools"`), and nothing else: no files, no URLs, no `ext:` modules.

use std::cell::RefCell;
use std::rc::Rc;

use super::registry::ModuleRegistry;

use deno_core::error::ModuleLoaderError;
use deno_core::{
    ModuleLoadOptions, ModuleLoadReferrer, ModuleLoadResponse, ModuleLoader, ModuleSource,
    ModuleSourceCode, ModuleSpecifier, ModuleType, RequestedModuleType, ResolutionKind,
};
use deno_error::JsErrorBox;

/// The specifier programs reach `gg` by.
pub const GG_SPECIFIER: &str = "gg:gg";

pub type SharedRegistry = Rc<RefCell<ModuleRegistry>>;

pub struct GgLoader {
    /// The agent's module registry; a pre-warmed isolate gets its agent's
    /// when it is bound.
    registry: RefCell<SharedRegistry>,
    /// The source of the module programs import as `gg` (the bridge's).
    gg_source: &'static str,
}

impl GgLoader {
    pub fn new(registry: SharedRegistry, gg_source: &'static str) -> Self {
        GgLoader {
            registry: RefCell::new(registry),
            gg_source,
        }
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
        } else {
            let key = specifier.strip_prefix("gg/").unwrap_or(specifier);
            self.registry().borrow_mut().resolve_key(key)
        };
        match target {
            Some(target) => ModuleSpecifier::parse(&target).map_err(JsErrorBox::from_err),
            None => {
                let keys = self.registry().borrow().keys();
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
        } else if specifier.as_str() == GG_SPECIFIER {
            Ok(ModuleSource::new(
                ModuleType::JavaScript,
                ModuleSourceCode::String(deno_core::FastString::from_static(self.gg_source)),
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
}
