//! The process's tool thread: one tokio runtime, with I/O, on which every
//! upstream MCP connection and every host function's handler runs, apart
//! from the isolates' own event loops (which have no I/O driver and block
//! their thread while a program runs). A call crosses over as a task and
//! comes back through its join handle, which any runtime can await.
//!
//! Upstream servers follow the memory scopes: a server (its process, or
//! its HTTP connection and session) is its agent's own unless the profile
//! shares it (`share: "profile"`), since a server keeps state (a
//! knowledge graph, open files, a session) that one isolated agent must
//! not see of another's. Each server also has a folder of its own for
//! what it keeps on disk, under the state folder (`tools/<holder>/<name>`,
//! where the holder is `agent.<id>` or `profile.<id>`, as memory stores
//! are named), named to it as `GG_SERVER_STATE`. A server lives while some
//! agent holds it, and stops (its process is shut down) when the last one
//! drops.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use gg_module::tools::{ServerConfig, Share};

use super::upstream::{ServerHome, Upstream};

/// Whose tools are being opened: what decides which server instance, and
/// which folder, each of the profile's servers is.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolOwner {
    /// The agent's id; `None` when it has none that names it alone (an
    /// agent with no state folder, whose id any other may also use).
    pub agent: Option<String>,
    /// The agent's profile.
    pub profile: String,
    /// The state folder the servers' own folders are kept in; `None`: a
    /// temporary folder each, removed when the server instance ends.
    pub state: Option<PathBuf>,
}

impl ToolOwner {
    /// Who holds `share`'s instance of a server, as memory stores are
    /// named (`agent.<id>`, `profile.<id>`); `None`: no one else can hold
    /// it.
    fn holder(&self, share: Share) -> Option<String> {
        match share {
            Share::Agent => match (&self.agent, &self.state) {
                (Some(agent), Some(_)) => Some(format!("agent.{agent}")),
                _ => None,
            },
            Share::Profile => Some(format!("profile.{}", self.profile)),
        }
    }
}

/// Tells instances no one else may hold apart.
static UNSHARED: AtomicU64 = AtomicU64::new(0);

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

/// `owner`'s instance of `config`'s server: the one its holder (the agent,
/// or the profile under `share: "profile"`) already has live in this
/// process, else a new one (not yet connected).
pub(crate) fn upstream(config: &ServerConfig, owner: &ToolOwner) -> Arc<Upstream> {
    let holder = owner.holder(config.share);
    // A server runs in a folder of its own: a relative state folder names
    // the one this process sees, and names it once whichever way it came.
    let state_folder = owner
        .state
        .as_ref()
        .map(|s| std::path::absolute(s).unwrap_or_else(|_| s.clone()));
    let state = state_folder
        .as_ref()
        .map(|s| s.display().to_string())
        .unwrap_or_default();
    let key = match &holder {
        Some(holder) => format!(
            "{state}\u{0}{holder}\u{0}{}\u{0}{:?}",
            config.name, config.transport
        ),
        None => format!(
            "\u{0}unshared\u{0}{}",
            UNSHARED.fetch_add(1, Ordering::Relaxed)
        ),
    };
    let home = match (&state_folder, &holder) {
        (Some(state), Some(holder)) => ServerHome::Kept(
            state
                .join("tools")
                .join(gg_module::run::file_safe(holder))
                .join(&config.name),
        ),
        _ => ServerHome::Temporary,
    };
    let hub = hub();
    let mut upstreams = hub.upstreams.lock().unwrap_or_else(|p| p.into_inner());
    upstreams.retain(|_, weak| weak.strong_count() > 0);
    if let Some(live) = upstreams.get(&key).and_then(Weak::upgrade) {
        return live;
    }
    let made = Arc::new(Upstream::new(config.clone(), home));
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
