//! The agents of `gg mcp --http`'s sessions: a new session gets a new agent
//! and a resume token for it; a session whose `initialize` request carries
//! that token in the `Gg-Resume` header gets the same agent back, in this
//! process or after a restart on the same state folder. An agent serves one
//! session at a time.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex};

use sha2::{Digest, Sha256};

use super::agent_thread::{Job, SessionAgentOptions};
use super::Isolation;

/// The request header a client resumes an earlier session's agent with.
pub const RESUME_HEADER: &str = "gg-resume";

/// Starts the agents of one server's HTTP sessions.
pub struct SessionAgents {
    /// The options every session's agent starts from; its id is the prefix
    /// of theirs.
    template: SessionAgentOptions,
    isolation: Isolation,
    /// Agents a live session of this server holds.
    live: Mutex<HashSet<String>>,
}

/// A session's agent: its id, the token that resumes it, its job channel.
/// Dropping it (the session ended) frees the agent for a later resume.
pub struct SessionAgent {
    /// The agent's id.
    pub id: String,
    /// The token that gives this agent to a later session.
    pub resume_token: String,
    /// The agent's job channel.
    pub jobs: mpsc::Sender<Job>,
    agents: Arc<SessionAgents>,
}

impl Drop for SessionAgent {
    fn drop(&mut self) {
        self.agents
            .live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.id);
    }
}

impl SessionAgents {
    /// Agents started from `template` where `isolation` says.
    pub fn new(template: SessionAgentOptions, isolation: Isolation) -> Arc<Self> {
        Arc::new(SessionAgents {
            template,
            isolation,
            live: Mutex::new(HashSet::new()),
        })
    }

    /// A new agent (`<agent>-<12 random hex digits>`, never an id an
    /// earlier session had) with a new resume token.
    pub fn fresh(self: &Arc<Self>) -> Result<SessionAgent, String> {
        let id = format!("{}-{}", self.template.agent_id, random_hex(6)?);
        let token = format!("{id}.{}", random_hex(16)?);
        let path = self.token_path(&id);
        std::fs::create_dir_all(path.parent().unwrap_or(&path))
            .and_then(|()| std::fs::write(&path, digest(&token)))
            .map_err(|e| format!("cannot record the session's resume token: {e}"))?;
        self.start(id, token)
    }

    /// The agent `token` was issued for, if this state folder issued it and
    /// no live session holds that agent now.
    pub fn resume(self: &Arc<Self>, token: &str) -> Result<SessionAgent, String> {
        const REFUSED: &str = "the Gg-Resume token was not issued by this server's state folder; connect without it for a new agent";
        let Some((id, _)) = token.rsplit_once('.') else {
            return Err(REFUSED.into());
        };
        let recorded = std::fs::read_to_string(self.token_path(id)).unwrap_or_default();
        if recorded.is_empty()
            || !crate::http_guard::same_secret(digest(token).as_bytes(), recorded.trim().as_bytes())
        {
            return Err(REFUSED.into());
        }
        self.start(id.to_string(), token.to_string())
    }

    fn start(self: &Arc<Self>, id: String, token: String) -> Result<SessionAgent, String> {
        if !self
            .live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone())
        {
            return Err(format!(
                "agent {id} is held by another live session; end that session first"
            ));
        }
        let options = SessionAgentOptions {
            agent_id: id.clone(),
            ..self.template.clone()
        };
        match self.isolation.spawn(options) {
            Ok(jobs) => Ok(SessionAgent {
                id,
                resume_token: token,
                jobs,
                agents: self.clone(),
            }),
            Err(why) => {
                self.live
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id);
                Err(why)
            }
        }
    }

    /// Where the digest of agent `id`'s resume token is kept.
    fn token_path(&self, id: &str) -> PathBuf {
        self.template
            .state
            .join("agents")
            .join(gg_module::run::file_safe(id))
            .join("resume-token.sha256")
    }
}

/// SHA-256 of `token`, in hex: what is kept of a resume token.
fn digest(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `bytes` random bytes from the operating system, in hex.
fn random_hex(bytes: usize) -> Result<String, String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| format!("no randomness for a session: {e}"))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}
