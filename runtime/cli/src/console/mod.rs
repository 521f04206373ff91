//! `gg console`: a state folder in the browser. The Memories panel (totals
//! and peaks, a treemap of every memory ever held, revision histories with
//! diffs), the Modules tab (each store once, with its holders) and the
//! Agents tab (per profile: one store shared or one each, and where that
//! diverges from the declared scope), all read off store ids by
//! [`gg_module::durable::inspect`], read-only. A JSON API under `/api/` serves the
//! same data, searches and pages memories and agents and reads an agent's
//! transcript (each turn with its tool calls); `/api/events` pushes a
//! `changed` event (server-sent events) whenever the folder changes, and
//! the page refetches.

mod api;
mod assets;
mod find;
mod live;
mod params;
mod tool_calls;

use std::net::SocketAddr;

use gg_module::durable::inspect::StateView;

/// Serves the console for `view` on `addr` (loopback only) behind the
/// [`http_guard`](crate::http_guard) checks, calling `ready` with the bound
/// address (port 0 picks a free one) once it listens.
pub fn serve(
    view: StateView,
    addr: SocketAddr,
    access: &crate::http_guard::Access,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), String> {
    let pages = assets::Assets::build()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the console's runtime: {e}"))?;
    runtime.block_on(async move {
        let changes = live::watch(view.clone());
        let router = api::router(view.clone())
            .merge(find::router(view))
            .merge(assets::router(pages))
            .merge(live::router(changes));
        crate::http_guard::serve(addr, access, router, ready).await
    })
}
