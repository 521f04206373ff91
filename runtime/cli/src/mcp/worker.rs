//! The second wall: an MCP session's agent runs in a worker process that
//! holds nothing worth stealing, so that a bug in the JavaScript engine is
//! not a compromise of the host.
//!
//! The worker is the `gg` executable itself (`gg mcp-worker`, hidden),
//! started with an empty environment. Before it opens the agent it confines
//! itself:
//! - **Landlock**: the workspace read-only, nothing else on the filesystem
//!   (the engine's scripts are compiled into the binary);
//! - **seccomp**: no `execve`/`execveat`, no `fork`/`vfork`, no `ptrace`, no
//!   `process_vm_readv`/`writev`, no sockets.
//!
//! The host talks to it over its standard input and output, one JSON line
//! per request and per reply ([`Request`], [`Reply`]). The agent's state is
//! the host's: it opens the state database, the bound memory store and the
//! event stream, and the worker's agent reads and writes them through
//! [`Reply::State`] calls the host answers for that agent only (see
//! [`super::hosted`]). A worker that dies (a crash, a kill) fails the call
//! it was running with a message that says so; the next call starts a new
//! worker, whose agent reopens from that state: everything acknowledged
//! before is kept.
//!
//! A profile's upstream tool servers run in the host, never in a worker
//! (which could neither start them nor reach them): the host opens them
//! ([`gg_runtime::ToolRelay`]) once per session's agent, the worker offers
//! their tools as host functions, and each call crosses back as a
//! [`Reply::ToolCall`] answered by a [`Request::ToolAnswer`], while the
//! turn that made it runs on.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use gg_runtime::untrusted;
use std::sync::mpsc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::agent_thread::{self, Answer, Description, Job, LiveConsole, SessionAgentOptions};
use super::hosted::protocol::{FromHost, ToHost, WireBinding};
use super::hosted::remote::StateLink;
use super::hosted::serve::{answer_in_transaction, Decider, StateServer};
use gg_runtime::{ToolDescription, ToolError, ToolRelay};
use std::sync::{Arc, Mutex};

/// How the host starts its workers.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// The `gg` executable to run as `gg mcp-worker` (default: this one).
    pub program: PathBuf,
    /// Test-only: give every isolate of the worker an injected engine fault
    /// (see `engine::fault`; needs the `fault-injection` feature).
    pub inject_engine_fault: bool,
}

impl WorkerSettings {
    /// Workers run by this very executable.
    pub fn this_executable() -> Result<Self, String> {
        Ok(WorkerSettings {
            program: std::env::current_exe()
                .map_err(|e| format!("cannot find gg's own executable for its workers: {e}"))?,
            inject_engine_fault: false,
        })
    }
}

/// The first line a worker reads: what agent to serve.
#[derive(Debug, Serialize, Deserialize)]
struct Start {
    options: SessionAgentOptions,
    inject_engine_fault: bool,
    /// The profile's tools, whose servers the host holds.
    tools: Vec<ToolDescription>,
    /// The memory store the host bound the agent to (the host holds it).
    binding: Option<WireBinding>,
}

/// A request from the host to its worker.
#[derive(Debug, Serialize, Deserialize)]
enum Request {
    Describe {
        with_window: bool,
    },
    Call {
        name: String,
        arguments: Value,
    },
    /// The answer to the worker's [`Reply::ToolCall`] `id`.
    ToolAnswer {
        id: u64,
        answer: RelayedAnswer,
    },
    /// For the worker's state call `id` (see [`super::hosted`]).
    State {
        id: u64,
        from: FromHost,
    },
    /// End: close the agent (its last state calls are answered), reply
    /// [`Reply::Closed`] and exit.
    Close,
}

/// A relayed tool call's answer: its result, or a refusal's code and
/// message.
#[derive(Debug, Serialize, Deserialize)]
enum RelayedAnswer {
    Ok(Value),
    Refused { code: String, message: String },
}

/// A worker's reply, one per request (and one, `Ready` or `StartFailed`,
/// after the [`Start`] line); a call's console lines come before its
/// answer, each as the program prints it.
#[derive(Debug, Serialize, Deserialize)]
enum Reply {
    Ready,
    StartFailed(String),
    Description(Description),
    ConsoleLine(gg_module::ConsoleLine),
    /// A tool call the running turn made, for the host to run; answered by
    /// a [`Request::ToolAnswer`] with the same `id`.
    ToolCall {
        id: u64,
        server: String,
        tool: String,
        argument: Value,
    },
    Answer(Result<Answer, String>),
    /// A run (the program, an onUse hook) starts with this limit: the host
    /// gives the call until twice the limit and a margin to answer.
    Armed {
        limit_ms: u64,
    },
    /// A run told to stop at its limit did not: the worker ends itself.
    Wedged {
        limit_ms: u64,
    },
    /// A call on, or a line of, the agent's state, which the host keeps.
    State(ToHost),
    /// The agent is closed; the worker exits next.
    Closed,
}

/// [`Reply::State`] serialized from a borrowed message.
#[derive(Serialize)]
enum StateReply<'a> {
    State(&'a ToHost),
}

/// Longest line of a worker's standard error relayed whole, in bytes; the
/// rest of a longer line is dropped.
const RELAYED_LINE_BYTES: usize = 16 * 1024;

/// Relays what a worker writes on standard error into the server's log,
/// one escaped line an event: the worker runs programs, and what its
/// engine or a library under it prints there may carry a program's text and
/// must not reach the operator's log as raw lines.
fn relay_stderr(pid: u32, stderr: std::process::ChildStderr) {
    let relay = move || {
        let mut reader = BufReader::new(stderr);
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = (&mut reader)
                .take(RELAYED_LINE_BYTES as u64)
                .read_until(b'\n', &mut line);
            match read {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line.last() != Some(&b'\n') && line.len() == RELAYED_LINE_BYTES {
                // Skip the rest of an over-long line, keeping none of it.
                while let Ok(buffered) = reader.fill_buf() {
                    if buffered.is_empty() {
                        break;
                    }
                    match buffered.iter().position(|&b| b == b'\n') {
                        Some(at) => {
                            reader.consume(at + 1);
                            break;
                        }
                        None => {
                            let n = buffered.len();
                            reader.consume(n);
                        }
                    }
                }
            }
            let text = String::from_utf8_lossy(&line);
            tracing::info!(worker = pid, "{}", untrusted(text.trim_end_matches('\n')));
        }
    };
    let _ = std::thread::Builder::new()
        .name(format!("gg-worker-{pid}-stderr"))
        .spawn(relay);
}

/// One running worker process, its two pipes and its agent's state.
struct Worker {
    child: Child,
    link: Link,
    /// The agent's stores and event stream, which the worker reaches only
    /// through calls.
    state: StateServer,
}

/// The host's end of a worker's channel.
struct Link {
    /// The worker's input; closed (taken) when the worker is told to end.
    /// Shared: relayed tool answers are written from gg's tool runtime
    /// while a turn's request is waiting for its reply.
    input: SharedInput,
    /// The worker's replies, one per line, read by a thread of their own so
    /// that waiting for one has a deadline; closed when the worker's output
    /// ends.
    replies: mpsc::Receiver<Result<Reply, String>>,
    /// The profile's tool servers, held here for the worker.
    relay: Option<Arc<ToolRelay>>,
    /// The time and CPU the worker's calls may take.
    limits: super::worker_limits::CallLimits,
    pid: u32,
}

/// Why an exchange with a worker ended without its reply; the worker has
/// been ended and reaped in every case.
enum Stopped {
    /// The worker's process ended (a crash, a kill, a signal): why.
    Ended(String),
    /// A run went past its limit and its worker was ended: the run's limit.
    Overran(std::time::Duration),
    /// Whoever asked stopped waiting for the answer (its session ended).
    Abandoned,
    /// A reply line that was not understood.
    Garbled(String),
}

impl Stopped {
    /// The answer a call gets.
    fn describe(&self) -> String {
        match self {
            Stopped::Ended(why) => format!(
                "the agent's worker process stopped while it ran this call ({why}). A new one starts with the next call and reopens the agent: everything acknowledged before this call is kept."
            ),
            Stopped::Overran(limit) => format!(
                "the program ran past its time limit of {} ms and did not stop when told to, so its worker process was ended. Look for a loop that never ends, or work on the data in smaller pieces. A new worker starts with the next call and reopens the agent: everything acknowledged before this call is kept.",
                limit.as_millis()
            ),
            Stopped::Abandoned => "the call was abandoned: its session ended".to_string(),
            Stopped::Garbled(e) => format!("the worker's reply was not understood: {e}"),
        }
    }
}

type SharedInput = Arc<Mutex<Option<ChildStdin>>>;

/// How long one line to a worker may take to be written: a worker that
/// stops reading its input (only an escaped program would) is not let
/// hold the thread that writes to it.
const SEND_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// Writes one line to a worker's input (non-blocking, see
/// [`Worker::start`]); false when it is closed or the worker did not take
/// the line within [`SEND_WITHIN`].
fn send_line(input: &SharedInput, message: &impl Serialize) -> bool {
    use std::os::fd::AsRawFd;
    let Ok(mut line) = serde_json::to_string(message) else {
        return false;
    };
    line.push('\n');
    let mut input = input.lock().unwrap_or_else(|p| p.into_inner());
    let Some(input) = input.as_mut() else {
        return false;
    };
    let deadline = std::time::Instant::now() + SEND_WITHIN;
    let mut rest = line.as_bytes();
    while !rest.is_empty() {
        match input.write(rest) {
            Ok(0) => return false,
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    return false;
                }
                let mut ready = libc::pollfd {
                    fd: input.as_raw_fd(),
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one valid pollfd for the duration of the call.
                unsafe { libc::poll(&mut ready, 1, left.as_millis().min(i32::MAX as u128) as i32) };
            }
            Err(_) => return false,
        }
    }
    true
}

/// Makes writes to `input` return at once when the pipe is full, so that
/// [`send_line`] can give up on a worker that stopped reading.
fn set_nonblocking(input: &ChildStdin) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = input.as_raw_fd();
    // SAFETY: fcntl on a descriptor this process owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// How often a worker's host checks, while it waits for an answer, whether
/// the caller is still waiting for it.
const ABANDON_CHECK: std::time::Duration = std::time::Duration::from_millis(250);

/// Why a worker that went past its CPU budget ended.
const CPU_LIMIT_SIGNAL: &str = "ended by SIGXCPU: it used more CPU time than its call allows";

/// Longest reply line a host reads from its worker, in bytes: a whole
/// window's rows after a compaction, or the agent's memories listed,
/// fit many times over; a worker that writes a longer one (only an
/// escaped program would) is ended rather than let fill the server's
/// memory. 256 MiB.
const REPLY_LINE_BYTES: usize = 256 << 20;

/// Reply lines read ahead of the host's use of them.
const REPLIES_QUEUED: usize = 4;

/// Reads a worker's reply lines on a thread of its own, into the channel
/// returned; the channel closes when the worker's output does.
fn read_replies(
    pid: u32,
    output: ChildStdout,
) -> Result<mpsc::Receiver<Result<Reply, String>>, String> {
    // Bounded: a worker that writes faster than its host reads (between
    // calls, or only an escaped program would) waits on its own output
    // rather than filling the server's memory.
    let (tx, rx) = mpsc::sync_channel(REPLIES_QUEUED);
    let read = move || {
        let mut output = BufReader::new(output);
        let mut line = Vec::new();
        loop {
            line.clear();
            match (&mut output)
                .take(REPLY_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut line)
            {
                Ok(n) if n > 0 => {}
                _ => return,
            }
            let reply = if line.len() > REPLY_LINE_BYTES {
                // Not read further: the worker is ended for it.
                Err(format!("a reply line longer than {REPLY_LINE_BYTES} bytes"))
            } else {
                serde_json::from_slice(&line).map_err(|e| e.to_string())
            };
            let garbled = reply.is_err();
            if tx.send(reply).is_err() || garbled {
                return;
            }
        }
    };
    std::thread::Builder::new()
        .name(format!("gg-worker-{pid}-replies"))
        .spawn(read)
        .map_err(|e| format!("cannot start the thread that reads the worker's replies: {e}"))?;
    Ok(rx)
}

/// How long an ending worker may take to close its agent (persisting it and
/// leaving its memory store) after its input closes, before it is killed.
const WORKER_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

impl Worker {
    /// Starts a worker and waits until its agent is open: the host opens
    /// the agent's state first, and answers the worker's calls on it.
    fn start(
        options: &SessionAgentOptions,
        settings: &WorkerSettings,
        relay: Option<Arc<ToolRelay>>,
    ) -> Result<Worker, String> {
        let (state, binding) = StateServer::open(options)?;
        let limits = super::worker_limits::CallLimits::of(&options.profile);
        let mut command = Command::new(&settings.program);
        command
            .arg("mcp-worker")
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        super::worker_limits::bind_to_this_thread(&mut command, &limits);
        let mut child = command.spawn().map_err(|e| {
            format!(
                "cannot start a worker process ({}): {e}",
                settings.program.display()
            )
        })?;
        if let Some(stderr) = child.stderr.take() {
            relay_stderr(child.id(), stderr);
        }
        let input = child
            .stdin
            .take()
            .ok_or("the worker has no standard input")?;
        set_nonblocking(&input).map_err(|e| format!("cannot set up the worker's input: {e}"))?;
        let output = child
            .stdout
            .take()
            .ok_or("the worker has no standard output")?;
        let replies = read_replies(child.id(), output)?;
        let tools = relay.as_ref().map(|r| r.descriptions()).unwrap_or_default();
        let pid = child.id();
        let mut worker = Worker {
            child,
            link: Link {
                input: Arc::new(Mutex::new(Some(input))),
                replies,
                relay,
                limits,
                pid,
            },
            state,
        };
        // The database's URL (and whatever credentials it carries) stays
        // with the host, which holds the connection.
        let mut sent = options.clone();
        sent.database_url = None;
        // So do the profile's tool servers' settings (headers, tokens in
        // their environment): the worker gets their tools' descriptions.
        sent.profile = gg_runtime::without_tools(&sent.profile);
        let start = Start {
            options: sent,
            inject_engine_fault: settings.inject_engine_fault,
            tools,
            binding,
        };
        match worker.exchange(&start, None, &|| false) {
            Ok(Reply::Ready) => Ok(worker),
            Ok(Reply::StartFailed(why)) => Err(why),
            Ok(other) => Err(format!("the worker answered its start with {other:?}")),
            Err(stopped) => Err(stopped.describe()),
        }
    }

    /// Sends one line and waits for its reply; the console lines that come
    /// first go to `console`, relayed tool calls to the host's servers,
    /// state calls to the agent's state.
    ///
    /// The wait has a deadline: each run the worker starts (its `Armed`
    /// line) must answer within twice its limit and a margin, and so must
    /// the work around runs; the worker's CPU time is held to the same
    /// budget by `RLIMIT_CPU`. A worker past either, or one whose caller
    /// stopped waiting (`abandoned`), is killed and reaped.
    fn exchange(
        &mut self,
        message: &impl Serialize,
        console: Option<&LiveConsole>,
        abandoned: &dyn Fn() -> bool,
    ) -> Result<Reply, Stopped> {
        let limit = self.link.limits.time;
        let deadline = std::time::Instant::now() + self.link.limits.answer_within(limit);
        let mut wait = Wait {
            limit,
            deadline,
            wedged: None,
            halted: None,
            console,
            abandoned,
        };
        self.link.limits.hold_cpu(self.link.pid, limit);
        if !send_line(&self.link.input, message) {
            return Err(Stopped::Ended(self.end()));
        }
        let halt = loop {
            match self.link.next(&mut wait) {
                Ok(Reply::State(ToHost::Call { id, call })) => {
                    let mut decider = WorkerDecides {
                        link: &self.link,
                        wait: &mut wait,
                    };
                    let from = self.state.answer(id, call, &mut decider);
                    if let Some(halt) = wait.halted.take() {
                        break halt;
                    }
                    if !send_line(&self.link.input, &Request::State { id, from }) {
                        break Halt::Disconnected;
                    }
                }
                Ok(Reply::State(ToHost::Event { line })) => self.state.append_event(&line),
                Ok(Reply::State(ToHost::EventsCheckpoint)) => self.state.checkpoint_events(),
                Ok(Reply::State(ToHost::Decided { .. })) => {
                    break Halt::Garbled("a decision no mutation asked for".into())
                }
                Ok(reply) => return Ok(reply),
                Err(halt) => break halt,
            }
        };
        Err(self.halt(halt, &wait))
    }

    /// Ends the worker for `halt`; why, as the call's answer says it.
    fn halt(&mut self, halt: Halt, wait: &Wait<'_>) -> Stopped {
        match halt {
            Halt::Overran => {
                self.end();
                Stopped::Overran(wait.limit)
            }
            Halt::Abandoned => {
                self.end();
                Stopped::Abandoned
            }
            Halt::Garbled(e) => {
                self.end();
                Stopped::Garbled(e)
            }
            Halt::Disconnected => {
                let why = self.end();
                match wait.wedged {
                    Some(limit) => Stopped::Overran(limit),
                    None if why == CPU_LIMIT_SIGNAL => Stopped::Overran(wait.limit),
                    None => Stopped::Ended(why),
                }
            }
        }
    }

    /// Kills the worker (if it still runs) and reaps it; why it ended.
    fn end(&mut self) -> String {
        let _ = self.child.kill();
        match self.child.wait() {
            Ok(status) => {
                use std::os::unix::process::ExitStatusExt;
                match (status.code(), status.signal()) {
                    (_, Some(signal)) if signal == libc::SIGSYS => format!(
                        "ended by signal {signal}: it made a system call its confinement forbids"
                    ),
                    (_, Some(signal)) if signal == libc::SIGXCPU => CPU_LIMIT_SIGNAL.to_string(),
                    (_, Some(signal)) => format!("ended by signal {signal}"),
                    (Some(code), _) => format!("exited with status {code}"),
                    _ => "ended".to_string(),
                }
            }
            Err(e) => format!("could not be waited for: {e}"),
        }
    }
}

/// One wait for a worker's reply: the limit of the run it is in, when the
/// wait ends, and what happened on the way.
struct Wait<'a> {
    limit: std::time::Duration,
    deadline: std::time::Instant,
    /// The limit of a run the worker said was stuck.
    wedged: Option<std::time::Duration>,
    /// Why the wait ended while a mutation was being decided.
    halted: Option<Halt>,
    console: Option<&'a LiveConsole>,
    abandoned: &'a dyn Fn() -> bool,
}

/// Why a wait ended without a reply.
enum Halt {
    /// The deadline passed.
    Overran,
    /// The caller stopped waiting.
    Abandoned,
    /// A line was not understood.
    Garbled(String),
    /// The worker's output ended.
    Disconnected,
}

impl Link {
    /// The worker's next reply that is not a console line, a relayed tool
    /// call or a run's start (each handled here), within the wait.
    fn next(&self, wait: &mut Wait<'_>) -> Result<Reply, Halt> {
        use std::time::Instant;
        loop {
            let now = Instant::now();
            if now >= wait.deadline {
                return Err(Halt::Overran);
            }
            let pause = (wait.deadline - now).min(ABANDON_CHECK);
            match self.replies.recv_timeout(pause) {
                Ok(Ok(Reply::ConsoleLine(line))) => {
                    if let Some(console) = wait.console {
                        let _ = console.send(line);
                    }
                }
                Ok(Ok(Reply::ToolCall {
                    id,
                    server,
                    tool,
                    argument,
                })) => self.relay_call(id, &server, &tool, argument),
                Ok(Ok(Reply::Armed { limit_ms })) => {
                    // The worker says how long its run may take; never
                    // longer than the profile lets any run take.
                    wait.limit =
                        std::time::Duration::from_millis(limit_ms).min(self.limits.longest_run);
                    wait.deadline = Instant::now() + self.limits.answer_within(wait.limit);
                    self.limits.hold_cpu(self.pid, wait.limit);
                }
                Ok(Ok(Reply::Wedged { limit_ms })) => {
                    wait.wedged = Some(std::time::Duration::from_millis(limit_ms));
                }
                Ok(Ok(reply)) => return Ok(reply),
                Ok(Err(e)) => return Err(Halt::Garbled(e)),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if (wait.abandoned)() {
                        return Err(Halt::Abandoned);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(Halt::Disconnected),
            }
        }
    }

    /// Runs a tool call the worker relayed, on the host's servers; its
    /// answer is written to the worker when it comes, while the turn runs on.
    fn relay_call(&self, id: u64, server: &str, tool: &str, argument: Value) {
        let input = self.input.clone();
        let answered = move |answer: Result<Value, ToolError>| {
            let answer = match answer {
                Ok(value) => RelayedAnswer::Ok(value),
                Err(e) => RelayedAnswer::Refused {
                    code: e.code.as_str().to_string(),
                    message: e.message,
                },
            };
            send_line(&input, &Request::ToolAnswer { id, answer });
        };
        match &self.relay {
            Some(relay) => relay.call(server, tool, argument, answered),
            None => answered(Err(ToolError::unavailable(format!(
                "there is no tool server {server:?}: this agent has no tools."
            )))),
        }
    }
}

/// A mutation's decision, asked of the worker while the host holds the
/// transaction: the worker's reads inside it are answered from `view`.
struct WorkerDecides<'l, 'w, 'c> {
    link: &'l Link,
    wait: &'w mut Wait<'c>,
}

impl Decider for WorkerDecides<'_, '_, '_> {
    fn decide(
        &mut self,
        id: u64,
        view: &gg_module::durable::memory_store::TxView<'_>,
    ) -> gg_module::GgResult<gg_module::durable::memory_store::Change> {
        let stopped = || gg_module::GgError::io("the agent's worker stopped during the mutation.");
        if self.wait.halted.is_some() {
            return Err(stopped());
        }
        let decide = Request::State {
            id,
            from: FromHost::Decide {
                totals: view.totals,
            },
        };
        if !send_line(&self.link.input, &decide) {
            self.wait.halted = Some(Halt::Disconnected);
            return Err(stopped());
        }
        loop {
            match self.link.next(self.wait) {
                Ok(Reply::State(ToHost::Call { id: read, call })) => {
                    let from = answer_in_transaction(call, view);
                    if !send_line(&self.link.input, &Request::State { id: read, from }) {
                        self.wait.halted = Some(Halt::Disconnected);
                        return Err(stopped());
                    }
                }
                Ok(Reply::State(ToHost::Decided {
                    id: decided,
                    change,
                })) if decided == id => {
                    return change;
                }
                Ok(other) => {
                    self.wait.halted = Some(Halt::Garbled(format!(
                        "{other:?} while a mutation was being decided"
                    )));
                    return Err(stopped());
                }
                Err(halt) => {
                    self.wait.halted = Some(halt);
                    return Err(stopped());
                }
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Told to close, the worker drops its agent, whose last calls on
        // its state (leaving its memory store) are answered here; then its
        // input is closed. A worker that does not finish within the grace
        // period is killed.
        let closed = {
            let never = || false;
            let mut wait = Wait {
                limit: WORKER_GRACE,
                deadline: std::time::Instant::now() + WORKER_GRACE,
                wedged: None,
                halted: None,
                console: None,
                abandoned: &never,
            };
            send_line(&self.link.input, &Request::Close) && self.serve_until_closed(&mut wait)
        };
        drop(
            self.link
                .input
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take(),
        );
        let deadline = std::time::Instant::now()
            + if closed {
                WORKER_GRACE
            } else {
                std::time::Duration::ZERO
            };
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return,
                Ok(None) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                _ => break,
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Worker {
    /// Answers the closing worker's state calls until it says it is closed;
    /// false when it stopped or overran first.
    fn serve_until_closed(&mut self, wait: &mut Wait<'_>) -> bool {
        loop {
            match self.link.next(wait) {
                Ok(Reply::State(ToHost::Call { id, call })) => {
                    let mut decider = WorkerDecides {
                        link: &self.link,
                        wait,
                    };
                    let from = self.state.answer(id, call, &mut decider);
                    if wait.halted.is_some()
                        || !send_line(&self.link.input, &Request::State { id, from })
                    {
                        return false;
                    }
                }
                Ok(Reply::State(ToHost::Event { line })) => self.state.append_event(&line),
                Ok(Reply::State(ToHost::EventsCheckpoint)) => self.state.checkpoint_events(),
                Ok(Reply::Closed) => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    }
}

/// Starts the agent in a worker process; returns the job channel (as
/// [`agent_thread::spawn`] does for the in-process agent) or why the first
/// worker could not start.
pub fn spawn(
    options: SessionAgentOptions,
    settings: WorkerSettings,
) -> Result<mpsc::Sender<Job>, String> {
    // The servers are the host's: opened once for this agent, before its
    // first worker, and kept across the workers that replace it, with their
    // folders where the agent's own would keep them in-process.
    let relay = ToolRelay::open_for_agent(&options.profile, &options.agent_id, &options.state)
        .map_err(|e| e.to_string())?
        .map(Arc::new);
    let (tx, rx) = mpsc::channel::<Job>();
    let (started_tx, started_rx) = mpsc::channel::<Result<(), String>>();
    // Every worker of the agent is started from this one thread, which
    // lives as long as they may: a worker's parent-death signal follows the
    // thread that started it, so none outlives its host, and none is ended
    // early because a short-lived thread started it.
    std::thread::Builder::new()
        .name("gg-mcp-worker-link".into())
        .spawn(move || {
            let mut worker = match Worker::start(&options, &settings, relay.clone()) {
                Ok(first) => {
                    let _ = started_tx.send(Ok(()));
                    Some(first)
                }
                Err(why) => {
                    let _ = started_tx.send(Err(why));
                    return;
                }
            };
            for job in rx {
                if worker.is_none() {
                    match Worker::start(&options, &settings, relay.clone()) {
                        Ok(started) => worker = Some(started),
                        Err(why) => {
                            answer_failed(
                                job,
                                format!("the agent's worker process could not start again: {why}"),
                            );
                            continue;
                        }
                    }
                }
                let Some(running) = worker.as_mut() else {
                    continue;
                };
                match job {
                    Job::Describe { with_window, reply } => {
                        let abandoned = || reply.is_closed();
                        match running.exchange(&Request::Describe { with_window }, None, &abandoned)
                        {
                            Ok(Reply::Description(description)) => {
                                let _ = reply.send(description);
                            }
                            // Dropping the reply answers "the agent has stopped".
                            _ => worker = None,
                        }
                    }
                    Job::Call(job) => {
                        let request = Request::Call {
                            name: job.name,
                            arguments: job.arguments,
                        };
                        let reply = job.reply;
                        let abandoned = || reply.is_closed();
                        let answer =
                            match running.exchange(&request, job.console.as_ref(), &abandoned) {
                                Ok(Reply::Answer(answer)) => answer,
                                Ok(other) => Err(format!("the worker answered with {other:?}")),
                                Err(stopped) => {
                                    worker = None;
                                    Err(stopped.describe())
                                }
                            };
                        let _ = reply.send(answer);
                    }
                }
            }
        })
        .map_err(|e| format!("cannot start the worker's link thread: {e}"))?;
    started_rx
        .recv()
        .map_err(|_| "the worker's link thread ended while starting".to_string())??;
    Ok(tx)
}

fn answer_failed(job: Job, why: String) {
    if let Job::Call(job) = job {
        let _ = job.reply.send(Err(why));
    }
}

/// Writes one reply line to the worker's standard output, locking it for
/// that line only: relayed tool calls are written from gg's tool runtime
/// while the turn that made them runs.
fn write_reply(reply: &Reply) -> bool {
    write_line(reply)
}

/// Writes one message as a line of the worker's standard output.
fn write_line(message: &impl Serialize) -> bool {
    let Ok(mut line) = serde_json::to_string(message) else {
        return false;
    };
    line.push('\n');
    let mut out = crate::screen::machine_stdout().lock();
    out.write_all(line.as_bytes())
        .and_then(|()| out.flush())
        .is_ok()
}

/// The worker's relayed tool calls waiting for the host's answer.
#[derive(Default)]
struct RelayedCalls {
    next: std::sync::atomic::AtomicU64,
    waiting:
        Mutex<std::collections::HashMap<u64, tokio::sync::oneshot::Sender<gg_runtime::ToolAnswer>>>,
}

impl RelayedCalls {
    /// Asks the host to run a call; resolves to its answer.
    fn ask(
        self: &Arc<Self>,
        server: String,
        tool: String,
        argument: Value,
    ) -> impl std::future::Future<Output = gg_runtime::ToolAnswer> + Send + 'static {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, tx);
        let sent = write_reply(&Reply::ToolCall {
            id,
            server,
            tool,
            argument,
        });
        let calls = self.clone();
        async move {
            if !sent {
                calls
                    .waiting
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id);
                return Err(ToolError::unavailable(
                    "the host could not be asked to run the call.",
                ));
            }
            rx.await.unwrap_or_else(|_| {
                Err(ToolError::unavailable(
                    "the host stopped before it answered the call.",
                ))
            })
        }
    }

    /// Hands the host's answer to the call waiting for it.
    fn answer(&self, id: u64, answer: RelayedAnswer) {
        let waiting = self
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        if let Some(waiting) = waiting {
            let _ = waiting.send(match answer {
                RelayedAnswer::Ok(value) => Ok(value),
                RelayedAnswer::Refused { code, message } => Err(ToolError {
                    code: gg_module::ErrorCode::parse(&code)
                        .unwrap_or(gg_module::ErrorCode::IoError),
                    message,
                }),
            });
        }
    }
}

/// Tells the host of each run, and ends the worker when one is stuck.
struct ReportRunsToHost;

impl gg_runtime::RunSupervisor for ReportRunsToHost {
    fn armed(&self, limit: std::time::Duration) {
        write_reply(&Reply::Armed {
            limit_ms: limit.as_millis() as u64,
        });
    }

    fn wedged(&self, limit: std::time::Duration, _overrun: std::time::Duration) {
        write_reply(&Reply::Wedged {
            limit_ms: limit.as_millis() as u64,
        });
        // SAFETY: ends the process at once, without running destructors on
        // this thread while the stuck one holds the agent.
        unsafe { libc::_exit(1) };
    }
}

/// The worker's side (`gg mcp-worker`): reads its [`Start`] line, confines
/// itself, opens the agent and answers requests until its input closes.
/// Returns the process's exit status.
pub fn serve() -> i32 {
    let reply = write_reply;
    // The host gives each call a deadline from the runs it hears of, and a
    // run that does not stop when told to ends this process: its thread
    // cannot be freed any other way, and the host reopens the agent.
    gg_runtime::supervise_runs(ReportRunsToHost);
    let first = std::io::stdin().lock().lines().next();
    let start: Start = match first.map(|l| l.map(|l| serde_json::from_str(&l))) {
        Some(Ok(Ok(start))) => start,
        _ => {
            reply(&Reply::StartFailed(
                "the worker's start line was missing or not understood".into(),
            ));
            return 2;
        }
    };
    if start.inject_engine_fault && !gg_runtime::probes::enable_injected_fault() {
        reply(&Reply::StartFailed(
            "this gg was built without the fault-injection feature".into(),
        ));
        return 2;
    }
    if !start.tools.is_empty() {
        // Its relayed calls wait on gg's tool runtime, whose start needs
        // what confinement takes away.
        gg_runtime::start_tool_runtime();
    }
    // The agent's state is the host's: the worker needs neither the state
    // folder nor a socket to a database.
    if let Err(why) = gg_confine::confine(start.options.workspace.as_deref()) {
        reply(&Reply::StartFailed(format!(
            "the worker could not confine itself: {why}"
        )));
        return 1;
    }
    // Requests are read apart from the turn: a tool answer, or the answer
    // to a call on the agent's state, must reach the call waiting for it
    // while the turn that made the call is running.
    let relayed = Arc::new(RelayedCalls::default());
    let state = StateLink::new(Box::new(|message| write_line(&StateReply::State(message))));
    let (requests, incoming) = mpsc::channel::<Result<Request, String>>();
    {
        let (relayed, state) = (relayed.clone(), state.clone());
        let reader = move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                match serde_json::from_str::<Request>(&line) {
                    Ok(Request::ToolAnswer { id, answer }) => relayed.answer(id, answer),
                    Ok(Request::State { id, from }) => state.deliver(id, from),
                    Ok(request) => {
                        if requests.send(Ok(request)).is_err() {
                            break;
                        }
                    }
                    Err(e) => {
                        let _ = requests.send(Err(e.to_string()));
                    }
                }
            }
            state.close();
        };
        if std::thread::Builder::new()
            .name("gg-worker-input".into())
            .spawn(reader)
            .is_err()
        {
            return 1;
        }
    }
    // The profile's tools come from the host, as host functions.
    let host_tools = start
        .tools
        .into_iter()
        .map(|description| {
            let calls = relayed.clone();
            let (server, tool) = (description.server.clone(), description.name.clone());
            description
                .into_host_tool(move |argument| calls.ask(server.clone(), tool.clone(), argument))
        })
        .collect();
    let mut options = start.options;
    options.profile = gg_runtime::without_tools(&options.profile);
    let mut agent = match agent_thread::start_hosted(&options, host_tools, start.binding, &state) {
        Ok(agent) => agent,
        Err(why) => {
            reply(&Reply::StartFailed(why));
            return 1;
        }
    };
    if !reply(&Reply::Ready) {
        return 1;
    }
    while let Some(request) = agent_thread::next_job(&incoming, &mut agent, options.park_after) {
        let answer = match request {
            Ok(Request::Describe { with_window }) => {
                Reply::Description(agent_thread::describe(&agent, with_window))
            }
            Ok(Request::Call { name, arguments }) => {
                // Each line goes out as it is printed.
                let live: gg_runtime::ConsoleListener = Box::new(|line| {
                    write_reply(&Reply::ConsoleLine(line.clone()));
                });
                Reply::Answer(agent_thread::call(&mut agent, name, arguments, Some(live)))
            }
            Ok(Request::Close) => break,
            Ok(Request::ToolAnswer { .. } | Request::State { .. }) => continue,
            Err(e) => Reply::Answer(Err(format!("the worker did not understand a request: {e}"))),
        };
        if !reply(&answer) {
            return 1;
        }
    }
    // Closing the agent makes its last calls on its state while the host
    // still answers them.
    drop(agent);
    reply(&Reply::Closed);
    0
}
