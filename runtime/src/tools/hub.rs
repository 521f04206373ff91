//! The process's tool thread: one tokio runtime, with I/O, on which every
//! upstream MCP connection and every host function's handler runs, apart
//! from the isolates' own event loops (which have no I/O driver and block
//! their thread while a program runs). A call crosses over as a task and
//! comes back through its join handle, which any runtime can await.
//!
//! Upstream servers are shared by the whole process: agents whose profiles
//! name the same server (same name, command, arguments, environment and
//! folder, or the same URL and headers) reach one connection. A host of
//! thousands of agents cannot run a server process per agent, and MCP tool
//! calls are independent requests. A server lives while some agent holds
//! it, and stops (its process is shut down) when the last one drops.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use gg_module::tools::ServerConfig;

use super::upstream::Upstream;

struct Hub {
    handle: tokio::runtime::Handle,
    upstreams: Mutex<HashMap<String, Weak<Upstream>>>,
}

/// The tool runtime runs on one thread of its own: a call's answer comes
/// from a server task and goes to the call's task without crossing
/// threads (a tool call is an I/O wait, and one thread serves every agent
/// of a host). A host function that computes rather than waits should use
/// `tokio::task::spawn_blocking`.
static HUB: OnceLock<Hub> = OnceLock::new();

fn hub() -> &'static Hub {
    HUB.get_or_init(|| {
        // https:// servers: rustls with ring, for the whole process (an
        // embedder that installed a provider first keeps its own).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("the tool runtime starts");
        let handle = runtime.handle().clone();
        std::thread::Builder::new()
            .name("gg-tools".into())
            .spawn(move || runtime.block_on(std::future::pending::<()>()))
            .expect("the tool runtime's thread starts");
        Hub {
            handle,
            upstreams: Mutex::new(HashMap::new()),
        }
    })
}

/// Starts gg's tool runtime now, if it is not running yet. A process that
/// confines itself (no sockets) calls this first: the runtime's signal
/// driver needs a socket pair, made once per process when it starts.
pub fn start_tool_runtime() {
    hub();
}

/// The tool runtime's handle, to spawn calls on.
pub(crate) fn handle() -> tokio::runtime::Handle {
    hub().handle.clone()
}

/// Runs `future` on the tool runtime and waits for it on this thread
/// (which must not be one of the tool runtime's own).
pub(crate) fn block_on<T: Send + 'static>(
    future: impl std::future::Future<Output = T> + Send + 'static,
) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    handle().spawn(async move {
        let _ = tx.send(future.await);
    });
    rx.recv().ok()
}

/// The shared connection to `config`'s server, made (not yet connected)
/// when no live agent holds one.
pub(crate) fn upstream(config: &ServerConfig) -> Arc<Upstream> {
    let key = format!("{}\u{0}{:?}", config.name, config.transport);
    let hub = hub();
    let mut upstreams = hub.upstreams.lock().unwrap_or_else(|p| p.into_inner());
    upstreams.retain(|_, weak| weak.strong_count() > 0);
    if let Some(live) = upstreams.get(&key).and_then(Weak::upgrade) {
        return live;
    }
    let made = Arc::new(Upstream::new(config.clone()));
    upstreams.insert(key, Arc::downgrade(&made));
    made
}

/// Stops every upstream server this process started, waiting at most
/// `grace` for each to exit before it is killed. Agents that still hold
/// one restart it on their next call.
pub fn shutdown_tool_servers(grace: Duration) {
    // A process that never used a tool has no runtime to start now (and
    // a confined one could not start it).
    let Some(hub) = HUB.get() else {
        return;
    };
    let live: Vec<Arc<Upstream>> = {
        let upstreams = hub.upstreams.lock().unwrap_or_else(|p| p.into_inner());
        upstreams.values().filter_map(Weak::upgrade).collect()
    };
    if live.is_empty() {
        return;
    }
    block_on(async move {
        let stops = live.iter().map(|u| u.stop(grace));
        futures_util::future::join_all(stops).await;
    });
}
