//! The routes that keep a large folder fast and show an agent's work:
//! memories searched across stores and agents filtered, each a page at a
//! time (`/api/find/memories`, `/api/find/agents`), and one agent's
//! transcript (`/api/agents/{id}/transcript`, each turn with the tool calls
//! it made). Read-only, like the rest.

use axum::extract::{Path, State};
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use gg_module::durable::inspect::{Query, StateView};
use serde_json::json;

use super::api::{not_found, ok, read, reply};
use super::params;

pub fn router(view: StateView) -> Router {
    Router::new()
        .route("/api/find/memories", get(memories))
        .route("/api/find/agents", get(agents))
        .route("/api/agents/{id}/transcript", get(transcript))
        .with_state(view)
}

/// The request's search and page, or a 400 naming what is wrong with it.
fn parsed(uri: &Uri, within: &str) -> Result<Query, Box<Response>> {
    params::parse(uri.query(), within)
        .map_err(|e| Box::new(reply(StatusCode::BAD_REQUEST, json!({ "error": e }))))
}

async fn memories(State(view): State<StateView>, uri: Uri) -> Response {
    let query = match parsed(&uri, "store") {
        Ok(query) => query,
        Err(response) => return *response,
    };
    read(view, move |view| {
        match view.find_memories(&query).map_err(|e| e.message)? {
            Some(page) => ok(page),
            None => Ok(not_found(format!(
                "no store {:?} in this state folder",
                query.within.unwrap_or_default()
            ))),
        }
    })
    .await
}

async fn agents(State(view): State<StateView>, uri: Uri) -> Response {
    let query = match parsed(&uri, "profile") {
        Ok(query) => query,
        Err(response) => return *response,
    };
    read(view, move |view| ok(view.find_agents(&query))).await
}

async fn transcript(State(view): State<StateView>, Path(id): Path<String>) -> Response {
    read(view, move |view| {
        match view.transcript(&id).map_err(|e| e.message)? {
            Some(transcript) => ok(super::tool_calls::attach(&transcript)?),
            None => Ok(not_found(format!(
                "no agent {id:?} recorded in this state folder's state.sqlite"
            ))),
        }
    })
    .await
}
