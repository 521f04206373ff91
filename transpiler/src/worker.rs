//! The compiler's own thread. swc's transforms and printer recurse once per
//! level of nesting, and 32 768 characters of `[[[[…` or `1+1+1+…` nest that
//! deep: on an ordinary thread's stack that is a stack overflow, which
//! aborts the whole host. Each calling thread therefore gets one long-lived
//! worker with a stack deep enough for the worst source the guard admits,
//! reached over a channel (a few microseconds a call).

use std::sync::mpsc::{channel, Sender};

use crate::{TranspileError, Transpiled};

/// Enough for 32 768 levels of nesting in a debug build; it is reserved
/// address space, and only the pages a compile touches are ever mapped.
const WORKER_STACK: usize = 1 << 30;

type Reply = Result<Transpiled, TranspileError>;
struct Job {
    source: String,
    file_name: String,
    crash: bool,
    reply: Sender<Reply>,
}

thread_local! {
    static WORKER: Sender<Job> = spawn_worker();
}

fn spawn_worker() -> Sender<Job> {
    let (tx, rx) = channel::<Job>();
    std::thread::Builder::new()
        .name("gg-transpiler".into())
        .stack_size(WORKER_STACK)
        .spawn(move || {
            for job in rx {
                let result = crate::strip::run_guarded(&job.source, &job.file_name, job.crash);
                let _ = job.reply.send(result);
            }
        })
        .expect("spawning the transpiler thread");
    tx
}

pub(crate) fn run_on_worker(source: &str, file_name: &str, crash: bool) -> Reply {
    let (reply, answer) = channel();
    let job = Job {
        source: source.to_string(),
        file_name: file_name.to_string(),
        crash,
        reply,
    };
    let sent = WORKER.with(|worker| worker.send(job));
    if sent.is_err() {
        return Err(TranspileError::Internal(
            "the transpiler thread is gone".into(),
        ));
    }
    answer.recv().unwrap_or_else(|_| {
        Err(TranspileError::Internal(
            "the transpiler thread died mid-compile".into(),
        ))
    })
}
