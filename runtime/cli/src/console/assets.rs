//! The page: `console-ui/index.html`, its stylesheet and its TypeScript
//! modules, embedded in the binary. The TypeScript is compiled once, at
//! start, by gg's own transpiler (no npm, no CDN: the page works offline);
//! a module that does not compile stops `gg console` with its diagnostic.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

const INDEX: &str = include_str!("../../console-ui/index.html");
const STYLE: &str = include_str!("../../console-ui/style.css");

/// The page's TypeScript modules, by the name the page imports them as.
const MODULES: &[(&str, &str)] = &[
    ("app.js", include_str!("../../console-ui/app.ts")),
    ("treemap.js", include_str!("../../console-ui/treemap.ts")),
    ("render.js", include_str!("../../console-ui/render.ts")),
    ("api.js", include_str!("../../console-ui/api.ts")),
    ("find.js", include_str!("../../console-ui/find.ts")),
    (
        "transcript.js",
        include_str!("../../console-ui/transcript.ts"),
    ),
];

/// The compiled page.
pub struct Assets {
    modules: Vec<(&'static str, String)>,
}

impl Assets {
    pub fn build() -> Result<Self, String> {
        let modules = MODULES
            .iter()
            .map(|(name, source)| {
                gg_transpiler::transpile(source, &name.replace(".js", ".ts"))
                    .map(|t| (*name, t.code))
                    .map_err(|e| format!("the console's {name} does not compile: {e}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Assets { modules })
    }
}

fn asset(content_type: &'static str, body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

pub fn router(assets: Assets) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX.to_string()) }),
        )
        .route(
            "/ui/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE.to_string()) }),
        )
        .route("/ui/{name}", get(module))
        .with_state(Arc::new(assets))
}

async fn module(State(assets): State<Arc<Assets>>, Path(name): Path<String>) -> Response {
    match assets.modules.iter().find(|(n, _)| *n == name) {
        Some((_, code)) => asset("text/javascript; charset=utf-8", code.clone()),
        None => (StatusCode::NOT_FOUND, format!("no module {name}")).into_response(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_page_module_compiles_within_the_transpilers_limit() {
        let assets = super::Assets::build().unwrap();
        assert_eq!(assets.modules.len(), super::MODULES.len());
        for (name, code) in &assets.modules {
            assert!(!code.contains(": string"), "{name} still has types");
        }
    }
}
