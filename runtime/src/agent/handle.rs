//! [`AgentHandle`]: an agent on a thread of its own, driven through a
//! channel, so that async code (and any thread) can hold it and await its
//! turns. An [`Agent`] itself stays on the thread that made it: its isolate
//! is bound to that thread.

use std::sync::mpsc;
use std::thread::JoinHandle;

use super::{Agent, AgentError, AgentOptions};
use crate::turn::{Response, TurnOutcome};

type Job = Box<dyn FnOnce(&mut Agent) + Send>;

/// An agent on a thread of its own. `Send` and `Sync`: hold it in async
/// code and await [`turn`](AgentHandle::turn); the agent's calls run one at
/// a time, in the order they were made. Dropping the handle lets the agent
/// finish the call it is in and ends its thread.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), gg_runtime::AgentError> {
/// use gg_runtime::{AgentHandle, AgentOptions, Response};
///
/// let agent = AgentHandle::spawn(AgentOptions::default())?;
/// let outcome = agent.turn(Response::program("export default 6 * 7;")).await?;
/// assert_eq!(outcome.acknowledgement.unwrap().value.as_deref(), Some("42"));
/// let window = agent.with(|agent| agent.render_window()).await?;
/// assert!(window.contains("p1"));
/// # Ok(())
/// # }
/// ```
pub struct AgentHandle {
    id: String,
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl AgentHandle {
    /// Opens the agent `options` describe on a new thread; its errors are
    /// [`Agent::new`]'s.
    pub fn spawn(options: AgentOptions) -> Result<Self, AgentError> {
        let (opened_tx, opened_rx) = mpsc::channel();
        let (jobs, queue) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("gg-agent".into())
            .spawn(move || {
                let mut agent = match Agent::new(options) {
                    Ok(agent) => {
                        let _ = opened_tx.send(Ok(agent.id().to_string()));
                        agent
                    }
                    Err(e) => {
                        let _ = opened_tx.send(Err(e));
                        return;
                    }
                };
                while let Ok(job) = queue.recv() {
                    job(&mut agent);
                }
            })
            .map_err(|e| AgentError::Setup(format!("cannot start the agent's thread: {e}")))?;
        let id = opened_rx.recv().map_err(|_| gone())??;
        Ok(AgentHandle {
            id,
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    /// The agent's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Runs one turn on the agent's thread ([`Agent::turn`]).
    pub async fn turn(&self, response: Response) -> Result<TurnOutcome, AgentError> {
        self.with(move |agent| agent.turn(response)).await?
    }

    /// Runs `call` with the agent on its thread, after the calls before it,
    /// and answers with what it returns: any of [`Agent`]'s methods
    /// (`render_window`, `park`, `compact`, …).
    pub async fn with<R: Send + 'static>(
        &self,
        call: impl FnOnce(&mut Agent) -> R + Send + 'static,
    ) -> Result<R, AgentError> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        self.send(Box::new(move |agent| {
            let _ = answer.send(call(agent));
        }))?;
        answered.await.map_err(|_| gone())
    }

    /// [`with`](AgentHandle::with) for a caller that is not async: blocks
    /// its thread until the call is answered.
    pub fn with_blocking<R: Send + 'static>(
        &self,
        call: impl FnOnce(&mut Agent) -> R + Send + 'static,
    ) -> Result<R, AgentError> {
        let (answer, answered) = mpsc::channel();
        self.send(Box::new(move |agent| {
            let _ = answer.send(call(agent));
        }))?;
        answered.recv().map_err(|_| gone())
    }

    fn send(&self, job: Job) -> Result<(), AgentError> {
        self.jobs
            .as_ref()
            .expect("a live handle has its channel")
            .send(job)
            .map_err(|_| gone())
    }
}

impl Drop for AgentHandle {
    fn drop(&mut self) {
        // The thread ends when its queue closes, after the call it is in.
        self.jobs.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The agent's thread ended (its agent could not open, or a call panicked
/// past the agent's own guard).
fn gone() -> AgentError {
    AgentError::Internal("the agent's thread has ended".to_string())
}
