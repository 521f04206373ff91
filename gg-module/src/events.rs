//! The agent's event stream: JSON lines in a file under the state folder,
//! and a callback for library users.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use serde_json::Value;

pub type EventCallback = Box<dyn FnMut(&Value)>;

#[derive(Default)]
pub struct EventLog {
    file: Option<File>,
    callback: Option<EventCallback>,
    /// Every event this log emitted, in order (kept for the turn's outcome).
    emitted: Vec<Value>,
}

impl EventLog {
    /// Appends to `path` (creating folders as needed).
    pub fn to_file(path: &Path) -> std::io::Result<Self> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(EventLog {
            file: Some(file),
            callback: None,
            emitted: Vec::new(),
        })
    }

    pub fn set_callback(&mut self, callback: EventCallback) {
        self.callback = Some(callback);
    }

    pub fn emit(&mut self, event: Value) {
        if let Some(file) = &mut self.file {
            let mut line = serde_json::to_string(&event).expect("events serialize");
            line.push('\n');
            if let Err(e) = file.write_all(line.as_bytes()) {
                eprintln!("gg: cannot write the event stream: {e}");
            }
        }
        if let Some(callback) = &mut self.callback {
            callback(&event);
        }
        self.emitted.push(event);
    }

    /// Takes the events emitted since the last call.
    pub fn drain(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.emitted)
    }
}
