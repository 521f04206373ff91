//! `gg console` as the test files drive it: started on a free port, its
//! printed address read, its JSON API fetched over plain HTTP.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A process killed and reaped however the test ends.
pub struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `gg console` for `state` (and any `more` arguments) on a free
/// port; returns it and its base URL.
pub fn console(state: &Path, more: &[&str]) -> (Killed, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gg"))
        .args(["console", "--addr", "127.0.0.1:0", "--state"])
        .arg(state)
        .args(more)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let child = Killed(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("gg console: ")
        .unwrap_or_else(|| panic!("gg console printed {line:?}"))
        .to_string();
    (child, url)
}

/// One GET over a fresh connection: (status, body).
pub fn get(base: &str, path: &str) -> (u16, String) {
    let host = base.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(host).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

/// A GET that must answer 200 with JSON.
pub fn get_json(base: &str, path: &str) -> Value {
    let (status, body) = get(base, path);
    assert_eq!(status, 200, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"))
}

/// The string `key` of each element of the JSON array `list`: the ids,
/// agents and slugs a test compares as one list.
pub fn strings<'a>(list: &'a Value, key: &str) -> Vec<&'a str> {
    list.as_array()
        .unwrap_or_else(|| panic!("not an array: {list}"))
        .iter()
        .map(|item| item[key].as_str().unwrap())
        .collect()
}

/// The memory `slug` in a store's memory list.
pub fn memory<'a>(memories: &'a Value, slug: &str) -> &'a Value {
    memories
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["slug"] == slug)
        .unwrap_or_else(|| panic!("no {slug}: {memories}"))
}
