//! The JSON API behind the page (documented in the README's Console
//! section). Every handler reads the state folder afresh, read-only, on a
//! blocking thread.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use gg_module::durable::inspect::StateView;
use serde_json::{json, Value};

/// A JSON body with a status.
pub(super) fn reply(status: StatusCode, body: Value) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body.to_string(),
    )
        .into_response()
}

pub(super) fn not_found(what: String) -> Response {
    reply(StatusCode::NOT_FOUND, json!({ "error": what }))
}

/// Runs a read off the async threads; a failed read is a 500 naming it.
pub(super) async fn read(
    view: StateView,
    f: impl FnOnce(&StateView) -> Result<Response, String> + Send + 'static,
) -> Response {
    match tokio::task::spawn_blocking(move || f(&view)).await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => reply(StatusCode::INTERNAL_SERVER_ERROR, json!({ "error": e })),
        Err(e) => reply(
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({ "error": format!("the read failed: {e}") }),
        ),
    }
}

pub(super) fn ok(value: impl serde::Serialize) -> Result<Response, String> {
    let value = serde_json::to_value(value).map_err(|e| e.to_string())?;
    Ok(reply(StatusCode::OK, value))
}

pub fn router(view: StateView) -> Router {
    Router::new()
        .route("/api/overview", get(overview))
        .route("/api/agents", get(agents))
        .route("/api/stores", get(stores))
        .route("/api/stores/{id}", get(store))
        .route("/api/stores/{id}/memories", get(memories))
        .route("/api/stores/{id}/memories/{slug}/revisions", get(revisions))
        .fallback(unknown)
        .with_state(view)
}

async fn unknown(uri: axum::http::Uri) -> Response {
    not_found(format!("no such page or API route: {}", uri.path()))
}

/// Every store's summary, or why one could not be read.
fn summaries(view: &StateView) -> Result<Vec<gg_module::durable::inspect::StoreSummary>, String> {
    view.stores()
        .map_err(|e| e.message)?
        .iter()
        .map(|s| s.summary())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.message)
}

async fn overview(State(view): State<StateView>) -> Response {
    read(view, |view| {
        let stores = summaries(view)?;
        ok(json!({
            "state": view.root().display().to_string(),
            "fingerprint": view.fingerprint().to_string(),
            "stores": stores,
            "agents": view.agents(),
        }))
    })
    .await
}

async fn agents(State(view): State<StateView>) -> Response {
    read(view, |view| {
        ok(json!({ "agents": view.agents(), "profiles": view.profiles() }))
    })
    .await
}

async fn stores(State(view): State<StateView>) -> Response {
    read(view, |view| {
        let stores = summaries(view)?;
        ok(stores)
    })
    .await
}

async fn store(State(view): State<StateView>, Path(id): Path<String>) -> Response {
    read(view, move |view| {
        match view.store(&id).map_err(|e| e.message)? {
            Some(store) => ok(store.summary().map_err(|e| e.message)?),
            None => Ok(not_found(format!("no store {id:?} in this state folder"))),
        }
    })
    .await
}

async fn memories(State(view): State<StateView>, Path(id): Path<String>) -> Response {
    read(view, move |view| {
        match view.store(&id).map_err(|e| e.message)? {
            Some(store) => ok(store.memories().map_err(|e| e.message)?),
            None => Ok(not_found(format!("no store {id:?} in this state folder"))),
        }
    })
    .await
}

async fn revisions(
    State(view): State<StateView>,
    Path((id, slug)): Path<(String, String)>,
) -> Response {
    read(view, move |view| {
        let Some(store) = view.store(&id).map_err(|e| e.message)? else {
            return Ok(not_found(format!("no store {id:?} in this state folder")));
        };
        let history = store.revisions(&slug).map_err(|e| e.message)?;
        if history.is_empty() {
            return Ok(not_found(format!("the store {id:?} never held {slug:?}")));
        }
        ok(history)
    })
    .await
}
