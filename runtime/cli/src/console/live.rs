//! Live updates: a task polls the state folder's fingerprint (names, sizes
//! and modification times of the files the console reads) every 250 ms, and
//! `/api/events` pushes a server-sent `changed` event whenever it moves,
//! plus one on connect so the page knows it is live.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::routing::get;
use axum::Router;
use futures_util::stream::{self, Stream};
use gg_module::durable::inspect::StateView;
use tokio::sync::watch;

const POLL: Duration = Duration::from_millis(250);

/// Starts the poller; the receiver sees each new fingerprint.
pub fn watch(view: StateView) -> watch::Receiver<u64> {
    let first = view.fingerprint();
    let (tx, rx) = watch::channel(first);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(POLL);
        loop {
            ticks.tick().await;
            let v = view.clone();
            let Ok(now) = tokio::task::spawn_blocking(move || v.fingerprint()).await else {
                continue;
            };
            tx.send_if_modified(|seen| {
                let moved = *seen != now;
                *seen = now;
                moved
            });
            if tx.is_closed() {
                break;
            }
        }
    });
    rx
}

pub fn router(changes: watch::Receiver<u64>) -> Router {
    Router::new()
        .route("/api/events", get(events))
        .with_state(changes)
}

fn changed(fingerprint: u64) -> Event {
    Event::default()
        .event("changed")
        .data(format!("{{\"fingerprint\":\"{fingerprint}\"}}"))
}

async fn events(
    State(changes): State<watch::Receiver<u64>>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let mut changes = changes.clone();
    let first = *changes.borrow_and_update();
    let stream = stream::unfold((Some(first), changes), |(first, mut changes)| async move {
        if let Some(fingerprint) = first {
            return Some((Ok(changed(fingerprint)), (None, changes)));
        }
        changes.changed().await.ok()?;
        let fingerprint = *changes.borrow_and_update();
        Some((Ok(changed(fingerprint)), (None, changes)))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
