//! The agent's workspace root and the only way gg reads files under it.
//!
//! A path is refused when it is absolute, when it climbs out with `..`, or
//! when a symlink on the way leads out of the root. Resolution walks the
//! path one component at a time and reads each symlink's text instead of
//! following it, so a link that leads out is refused the same way whether
//! its target exists or not: a program learns nothing about the host's
//! files outside the root. Only regular files are read, and they are opened
//! without blocking, so a FIFO, a socket or a device cannot stall the host.
//!
//! gg's state folder (every agent's memories, windows and event streams)
//! is never read through a workspace, whatever it is called and however a
//! path reaches it. Folders are told apart by device and inode, not by
//! name: a path that passes through the state folder (or a folder it links
//! to), by its own name, a symlink, `..` or a bind mount, is refused as it
//! is walked, before anything under it is looked at; after the open, the
//! file and each of its ancestors are checked again. A regular file with
//! several names (hard links) may be one of the state folder's files under
//! another name, which no walk can see: it is read only when it is none of
//! the state folder's files, and refused when gg cannot list them to check.
//! Any folder carrying [`STATE_FOLDER_MARK`] is a state folder too, so an
//! agent cannot read another run's state folder that sits in its workspace.

use std::collections::{HashSet, VecDeque};
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

use crate::error::{ConfigError, GgError, GgResult};

/// How many symlinks one resolution may pass through (as Linux's `ELOOP`).
const MAX_SYMLINK_HOPS: usize = 40;

/// The file gg keeps in every state folder it opens, so that a workspace
/// refuses any state folder it finds, not only its own agent's.
pub const STATE_FOLDER_MARK: &str = ".gg-state-folder";

/// What the mark says to a person who finds it.
const STATE_FOLDER_MARK_TEXT: &str = "This folder is gg's state: agents' memories, windows and event streams.\ngg never shows it to an agent through a workspace, whatever the folder is called.\n";

/// Most entries read while listing the state folder's files to check a
/// file with several names against them; past it such a file is refused.
const MAX_STATE_ENTRIES: usize = 200_000;

/// Deepest folder level of the state folder that listing descends to.
const MAX_STATE_DEPTH: usize = 12;

/// `open(2)` flags: never block on a FIFO or device, never follow a final
/// symlink (resolution already replaced every link by what it points to).
const OPEN_FLAGS: i32 = libc_flags::O_NONBLOCK | libc_flags::O_NOFOLLOW;

mod libc_flags {
    // Linux's values on every architecture gg builds for.
    pub const O_NONBLOCK: i32 = 0o4000;
    pub const O_NOFOLLOW: i32 = 0o400000;
}

/// A file's identity: what two names of one file share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    fn of(meta: &std::fs::Metadata) -> Self {
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }
}

/// The state folder a workspace keeps out of its view.
#[derive(Debug, Clone)]
struct Fence {
    /// Its canonical path.
    state: PathBuf,
    /// Its identity when the workspace was made (a folder later replaced
    /// under the same path is fenced off by its own identity as well).
    at_open: FileId,
}

/// What a read must not reach, as it stands at the moment of the read.
#[derive(Default)]
struct Fenced {
    /// The state folder and every folder or file directly in it (followed
    /// through symlinks, so a store kept elsewhere by a link is in it).
    ids: HashSet<FileId>,
}

/// Writes [`STATE_FOLDER_MARK`] into the state folder `dir` unless it is
/// there already.
pub fn mark_state_folder(dir: &Path) -> std::io::Result<()> {
    let mark = dir.join(STATE_FOLDER_MARK);
    if std::fs::symlink_metadata(&mark).is_ok() {
        return Ok(());
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&mark)
    {
        Ok(mut file) => std::io::Write::write_all(&mut file, STATE_FOLDER_MARK_TEXT.as_bytes()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Whether `dir` carries the state folder mark.
fn is_marked(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(STATE_FOLDER_MARK)).is_ok()
}

/// The agent's workspace: a canonical root every read stays inside.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    fence: Option<Fence>,
}

impl Workspace {
    /// `root` must exist; it is canonicalized once here. A root at or
    /// inside a folder carrying [`STATE_FOLDER_MARK`] is refused
    /// (`PermissionDenied`, saying why).
    pub fn new(root: impl AsRef<Path>) -> std::io::Result<Self> {
        let root = root.as_ref().canonicalize()?;
        if let Some(marked) = root.ancestors().find(|dir| is_marked(dir)) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                inside_state_folder(&root, marked),
            ));
        }
        Ok(Workspace { root, fence: None })
    }

    /// A workspace at `root` that keeps the state folder `state` (which
    /// must exist) out of its view. Refused, with a message that says what
    /// to change, when the root is the state folder or inside it: then
    /// everything the agent could read would be state.
    pub fn with_state_folder(
        root: impl AsRef<Path>,
        state: impl AsRef<Path>,
    ) -> Result<Self, ConfigError> {
        let given = root.as_ref();
        let mut workspace = Workspace::new(given).map_err(|e| {
            // Refused by gg itself (another state folder): its own words.
            if e.kind() == std::io::ErrorKind::PermissionDenied {
                ConfigError::Invalid(e.to_string())
            } else {
                ConfigError::Io {
                    context: format!("the workspace {} cannot be opened", given.display()),
                    source: e,
                }
            }
        })?;
        let state = state.as_ref();
        let unreadable = |source| ConfigError::Io {
            context: format!("the state folder {} cannot be read", state.display()),
            source,
        };
        let canonical = state.canonicalize().map_err(unreadable)?;
        let meta = std::fs::metadata(&canonical).map_err(unreadable)?;
        let fence = Fence {
            state: canonical,
            at_open: FileId::of(&meta),
        };
        for dir in workspace.root.ancestors() {
            let Ok(meta) = std::fs::metadata(dir) else {
                continue;
            };
            if FileId::of(&meta) == fence.at_open {
                return Err(ConfigError::Invalid(inside_state_folder(
                    &workspace.root,
                    &fence.state,
                )));
            }
        }
        workspace.fence = Some(fence);
        Ok(workspace)
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The state folder this workspace keeps out of its view, if any.
    pub fn state_folder(&self) -> Option<&Path> {
        self.fence.as_ref().map(|f| f.state.as_path())
    }

    /// What a read must not reach, as the state folder stands now.
    fn fenced(&self) -> Fenced {
        let mut fenced = Fenced::default();
        let Some(fence) = &self.fence else {
            return fenced;
        };
        fenced.ids.insert(fence.at_open);
        if let Ok(meta) = std::fs::metadata(&fence.state) {
            fenced.ids.insert(FileId::of(&meta));
        }
        // What is directly in it, followed through links: a store or a
        // stream folder the operator linked elsewhere is state all the same.
        let names: Vec<PathBuf> = match std::fs::read_dir(&fence.state) {
            Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
            Err(_) => ["state.sqlite", "memories", "events", "agents", "tools"]
                .iter()
                .map(|name| fence.state.join(name))
                .collect(),
        };
        for path in names {
            if let Ok(meta) = std::fs::metadata(&path) {
                fenced.ids.insert(FileId::of(&meta));
            }
        }
        fenced
    }

    /// The longest path a view opens, in bytes of UTF-8 (4096).
    pub const MAX_PATH_BYTES: usize = 4096;

    /// Resolves a workspace-relative path to a path inside the root with no
    /// symlink left on it, or refuses it saying why.
    pub fn resolve(&self, path: &str) -> GgResult<PathBuf> {
        self.resolve_fenced(path, &self.fenced())
    }

    fn resolve_fenced(&self, path: &str, fenced: &Fenced) -> GgResult<PathBuf> {
        let path_q = crate::Quoted(path);
        if path.is_empty() {
            return Err(GgError::invalid(
                "openFile needs a path relative to the workspace root, e.g. \"src/main.rs\".",
            ));
        }
        if path.contains('\0') {
            return Err(GgError::invalid(format!(
                "the path {path_q:?} contains a NUL character."
            )));
        }
        // No file has a longer path (Linux's PATH_MAX): refused before any
        // copy of it is made.
        if path.len() > Self::MAX_PATH_BYTES {
            return Err(GgError::invalid(format!(
                "the path {path_q:?} is {} bytes; a path is at most {} bytes.",
                path.len(),
                Self::MAX_PATH_BYTES
            )));
        }
        let relative = Path::new(path);
        if relative.is_absolute() {
            return Err(GgError::invalid(format!(
                "the path {path_q:?} is absolute; views open files under the workspace root only, so give it relative to the root (e.g. \"src/main.rs\")."
            )));
        }
        let mut depth: i64 = 0;
        for component in relative.components() {
            match component {
                Component::ParentDir => depth -= 1,
                Component::Normal(_) => depth += 1,
                Component::CurDir => {}
                Component::RootDir | Component::Prefix(_) => depth = -1,
            }
            if depth < 0 {
                return Err(GgError::invalid(format!(
                    "the path {path_q:?} climbs out of the workspace with \"..\"; only files under the workspace root can be opened."
                )));
            }
        }
        self.walk(path, relative, fenced)
    }

    /// Follows `relative` from the root one component at a time, replacing
    /// each symlink by its text; leaving the root by any route is the same
    /// refusal, decided before anything outside is looked at, and so is
    /// entering a state folder, before anything inside it is.
    fn walk(&self, path: &str, relative: &Path, fenced: &Fenced) -> GgResult<PathBuf> {
        let path_q = crate::Quoted(path);
        let leads_out = || {
            GgError::invalid(format!(
                "the path {path_q:?} is a symlink that leads out of the workspace; only files under the workspace root can be opened."
            ))
        };
        let mut pending: VecDeque<OsString> = relative
            .components()
            .map(|c| c.as_os_str().to_os_string())
            .collect();
        let mut current = self.root.clone();
        let mut hops = 0;
        while let Some(part) = pending.pop_front() {
            match Path::new(&part).components().next() {
                None | Some(Component::CurDir) => continue,
                Some(Component::ParentDir) => {
                    if current == self.root {
                        return Err(leads_out());
                    }
                    current.pop();
                    continue;
                }
                Some(Component::RootDir) | Some(Component::Prefix(_)) => return Err(leads_out()),
                Some(Component::Normal(_)) => {}
            }
            let next = current.join(&part);
            let meta = std::fs::symlink_metadata(&next).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => {
                    GgError::not_found(format!("no file at {path_q:?} in the workspace."))
                }
                std::io::ErrorKind::NotADirectory => {
                    GgError::not_found(format!("no file at {path_q:?} in the workspace."))
                }
                _ => GgError::io(format!("cannot read {path_q:?}: {e}")),
            })?;
            if !meta.file_type().is_symlink() {
                if fenced.ids.contains(&FileId::of(&meta)) || (meta.is_dir() && is_marked(&next)) {
                    return Err(in_state_folder(path));
                }
                current = next;
                continue;
            }
            hops += 1;
            if hops > MAX_SYMLINK_HOPS {
                return Err(GgError::invalid(format!(
                    "the path {path_q:?} passes through more than {MAX_SYMLINK_HOPS} symlinks."
                )));
            }
            let target = std::fs::read_link(&next)
                .map_err(|e| GgError::io(format!("cannot read {path_q:?}: {e}")))?;
            let rest: Vec<OsString> = if target.is_absolute() {
                // Only a link whose text names a place under the root, as
                // the root's canonical path spells it, stays inside.
                let Ok(inside) = target.strip_prefix(&self.root) else {
                    return Err(leads_out());
                };
                current = self.root.clone();
                inside
                    .components()
                    .map(|c| c.as_os_str().to_os_string())
                    .collect()
            } else {
                target
                    .components()
                    .map(|c| c.as_os_str().to_os_string())
                    .collect()
            };
            for part in rest.into_iter().rev() {
                pending.push_front(part);
            }
        }
        Ok(current)
    }

    /// Reads a workspace file as text: a regular file only, opened without
    /// blocking and without following a link.
    pub fn read_to_string(&self, path: &str) -> GgResult<String> {
        let path_q = crate::Quoted(path);
        let mut file = self.open_file(path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| GgError::io(format!("cannot read {path_q:?}: {e}")))?;
        String::from_utf8(bytes).map_err(|_| not_text(path))
    }

    /// Opens a workspace-relative path for reading, refusing it saying why
    /// as [`Workspace::read_to_string`] does; the caller reads it as it
    /// needs (a view reads a region without holding the whole file).
    pub fn open_file(&self, path: &str) -> GgResult<std::fs::File> {
        let path_q = crate::Quoted(path);
        let fenced = self.fenced();
        let resolved = self.resolve_fenced(path, &fenced)?;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(OPEN_FLAGS)
            .open(&resolved)
            .map_err(|e| GgError::io(format!("cannot read {path_q:?}: {e}")))?;
        let meta = file
            .metadata()
            .map_err(|e| GgError::io(format!("cannot read {path_q:?}: {e}")))?;
        // The file as opened, and every folder above it, checked again:
        // what the walk saw may have been swapped since.
        if fenced.ids.contains(&FileId::of(&meta)) {
            return Err(in_state_folder(path));
        }
        for dir in resolved.ancestors().skip(1) {
            if let Ok(above) = std::fs::metadata(dir) {
                if fenced.ids.contains(&FileId::of(&above)) {
                    return Err(in_state_folder(path));
                }
            }
        }
        if meta.is_dir() {
            return Err(GgError::invalid(format!(
                "{path_q:?} is a folder, not a file."
            )));
        }
        if !meta.is_file() {
            return Err(GgError::invalid(format!(
                "{path_q:?} is not a regular file (a pipe, socket or device); views show text files only."
            )));
        }
        if meta.nlink() > 1 {
            self.check_other_names(path, &meta)?;
        }
        Ok(file)
    }

    /// A regular file with several names: its other names cannot be seen
    /// from here, so it is compared with every file of the state folder
    /// (listed now, as the folder stands), and refused when it is one of
    /// them or when the folder cannot be listed whole.
    fn check_other_names(&self, path: &str, meta: &std::fs::Metadata) -> GgResult<()> {
        let path_q = crate::Quoted(path);
        let Some(fence) = &self.fence else {
            return Ok(());
        };
        let id = FileId::of(meta);
        match state_files(&fence.state) {
            Ok(files) if files.contains(&id) => Err(in_state_folder(path)),
            Ok(_) => Ok(()),
            Err(why) => Err(GgError::invalid(format!(
                "{path_q:?} has {} names (hard links), and gg could not check that none of them is in its state folder ({why}); give the file a single name (copy it over itself: cp --remove-destination) to open it.",
                meta.nlink()
            ))),
        }
    }
}

/// The refusal for a file that is not UTF-8 text.
pub fn not_text(path: &str) -> GgError {
    GgError::invalid(format!(
        "{:?} is not UTF-8 text; views show text files only.",
        crate::Quoted(path)
    ))
}

/// The identities of every file under the state folder `state`, links to
/// folders followed (each folder once), or why they cannot all be listed.
fn state_files(state: &Path) -> Result<HashSet<FileId>, ConfigError> {
    let mut files = HashSet::new();
    let mut seen_dirs = HashSet::new();
    let mut entries = 0usize;
    let mut pending = vec![(state.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = pending.pop() {
        let listing_failed = |source| ConfigError::Io {
            context: dir.display().to_string(),
            source,
        };
        let meta = std::fs::metadata(&dir).map_err(listing_failed)?;
        if !seen_dirs.insert(FileId::of(&meta)) {
            continue;
        }
        let listing = std::fs::read_dir(&dir).map_err(listing_failed)?;
        for entry in listing {
            let entry = entry.map_err(listing_failed)?;
            entries += 1;
            if entries > MAX_STATE_ENTRIES {
                return Err(ConfigError::Invalid(format!(
                    "it holds more than {MAX_STATE_ENTRIES} entries"
                )));
            }
            let path = entry.path();
            // A name that vanished while listing was a file being replaced;
            // its successor, if any, is listed under its own name.
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                if depth + 1 > MAX_STATE_DEPTH {
                    return Err(ConfigError::Invalid(format!(
                        "it nests folders more than {MAX_STATE_DEPTH} deep"
                    )));
                }
                pending.push((path, depth + 1));
            } else {
                files.insert(FileId::of(&meta));
            }
        }
    }
    Ok(files)
}

/// The refusal for a path that reaches a state folder: the same whatever
/// is (or is not) at the end of it.
fn in_state_folder(path: &str) -> GgError {
    let path_q = crate::Quoted(path);
    GgError::invalid(format!(
        "the path {path_q:?} is in gg's state folder, which holds the agents' memories, windows and event streams; no agent reads it through its workspace."
    ))
}

/// The launch refusal for a workspace at or inside a state folder.
fn inside_state_folder(root: &Path, state: &Path) -> String {
    let place = if root == state { "is" } else { "is inside" };
    format!(
        "the workspace {} {place} the state folder {}, which holds every agent's memories, windows and event streams, and a program reads anything in its workspace. Give a workspace outside the state folder (gg run, gg mcp: --workspace DIR; a session file: workspace), or keep the state elsewhere (--state DIR).",
        root.display(),
        state.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("root/src")).unwrap();
        std::fs::write(dir.path().join("root/src/a.txt"), "a\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "s\n").unwrap();
        let ws = Workspace::new(dir.path().join("root")).unwrap();
        (dir, ws)
    }

    #[test]
    fn reads_inside_and_refuses_escapes() {
        let (dir, ws) = ws();
        assert_eq!(ws.read_to_string("src/a.txt").unwrap(), "a\n");
        assert_eq!(ws.read_to_string("src/../src/a.txt").unwrap(), "a\n");
        assert_eq!(
            ws.resolve("../secret.txt").unwrap_err().code,
            crate::ErrorCode::InvalidArgument
        );
        assert_eq!(
            ws.resolve("src/../../secret.txt").unwrap_err().code,
            crate::ErrorCode::InvalidArgument
        );
        let abs = dir.path().join("secret.txt");
        assert!(ws
            .resolve(abs.to_str().unwrap())
            .unwrap_err()
            .message
            .contains("absolute"));
        assert_eq!(
            ws.resolve("nope.txt").unwrap_err().code,
            crate::ErrorCode::NotFound
        );
    }

    #[test]
    fn refuses_symlinks_out_of_the_root() {
        let (dir, ws) = ws();
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), dir.path().join("root/link"))
            .unwrap();
        std::os::unix::fs::symlink(
            dir.path().join("root/src/a.txt"),
            dir.path().join("root/inner"),
        )
        .unwrap();
        assert!(ws.resolve("link").unwrap_err().message.contains("symlink"));
        assert_eq!(ws.read_to_string("inner").unwrap(), "a\n");
    }

    #[test]
    fn a_link_out_says_the_same_whether_its_target_exists_or_not() {
        let (dir, ws) = ws();
        let root = dir.path().join("root");
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("there")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("missing.txt"), root.join("absent")).unwrap();
        std::os::unix::fs::symlink("../secret.txt", root.join("relative")).unwrap();
        std::os::unix::fs::symlink("../missing.txt", root.join("relative_absent")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        let answers: Vec<_> = [
            "there",
            "absent",
            "relative",
            "relative_absent",
            "up/secret.txt",
            "up/missing",
        ]
        .iter()
        .map(|p| {
            let e = ws.read_to_string(p).unwrap_err();
            (e.code, e.message.replace(&format!("{p:?}"), "P"))
        })
        .collect();
        assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
        assert_eq!(answers[0].0, crate::ErrorCode::InvalidArgument);
    }

    #[test]
    fn links_that_stay_inside_resolve() {
        let (dir, ws) = ws();
        let root = dir.path().join("root");
        std::os::unix::fs::symlink("src", root.join("srclink")).unwrap();
        std::os::unix::fs::symlink(root.join("src/a.txt"), root.join("abs")).unwrap();
        std::os::unix::fs::symlink("../src/a.txt", root.join("src/up_and_back")).unwrap();
        assert_eq!(ws.read_to_string("srclink/a.txt").unwrap(), "a\n");
        assert_eq!(ws.read_to_string("abs").unwrap(), "a\n");
        assert_eq!(ws.read_to_string("src/up_and_back").unwrap(), "a\n");
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        assert!(ws
            .read_to_string("loop")
            .unwrap_err()
            .message
            .contains("symlinks"));
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let (dir, ws) = ws();
        let fifo = dir.path().join("root/pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = ws.read_to_string("pipe").unwrap_err();
        assert!(e.message.contains("not a regular file"), "{e:?}");
        assert!(ws
            .read_to_string("src")
            .unwrap_err()
            .message
            .contains("folder"));
    }

    /// A workspace `ws/` whose state folder `ws/.gg-state` holds another
    /// agent's event stream and memory store.
    fn with_state() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let state = ws.join(".gg-state");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::create_dir_all(state.join("events")).unwrap();
        std::fs::create_dir_all(state.join("memories")).unwrap();
        std::fs::write(ws.join("src/a.txt"), "a\n").unwrap();
        std::fs::write(state.join("events/bob.jsonl"), "{\"secret\":1}\n").unwrap();
        std::fs::write(state.join("memories/agent.bob.sqlite"), "secret\n").unwrap();
        let workspace = Workspace::with_state_folder(&ws, &state).unwrap();
        (dir, workspace)
    }

    fn refusal(ws: &Workspace, path: &str) -> String {
        let e = ws
            .read_to_string(path)
            .expect_err(&format!("{path} must be refused"));
        assert_eq!(e.code, crate::ErrorCode::InvalidArgument, "{path}: {e:?}");
        e.message
            .replace(&format!("{:?}", crate::Quoted(path)), "P")
    }

    #[test]
    fn the_state_folder_is_out_of_view_by_every_route() {
        let (dir, ws) = with_state();
        let root = dir.path().join("ws");
        assert_eq!(ws.read_to_string("src/a.txt").unwrap(), "a\n");
        std::os::unix::fs::symlink(".gg-state", root.join("link")).unwrap();
        std::os::unix::fs::symlink(root.join(".gg-state/events"), root.join("src/abs")).unwrap();
        std::os::unix::fs::symlink("../.gg-state/events/bob.jsonl", root.join("src/file")).unwrap();
        std::fs::hard_link(
            root.join(".gg-state/events/bob.jsonl"),
            root.join("src/copy.jsonl"),
        )
        .unwrap();
        let answers: Vec<String> = [
            ".gg-state/events/bob.jsonl",
            "./.gg-state/memories/agent.bob.sqlite",
            ".gg-state",
            ".gg-state/missing",
            "src/../.gg-state/events/bob.jsonl",
            "link/events/bob.jsonl",
            "link/nothing/here",
            "src/abs/bob.jsonl",
            "src/file",
            "src/copy.jsonl",
        ]
        .iter()
        .map(|p| refusal(&ws, p))
        .collect();
        assert!(answers[0].contains("state folder"), "{answers:?}");
        // One answer, whether anything is there or not.
        assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
    }

    #[test]
    fn a_file_with_several_names_is_read_unless_it_is_state() {
        let (dir, ws) = with_state();
        let root = dir.path().join("ws");
        std::fs::hard_link(root.join("src/a.txt"), root.join("src/b.txt")).unwrap();
        assert_eq!(ws.read_to_string("src/b.txt").unwrap(), "a\n");
        // A state file linked in after the workspace was made.
        std::fs::create_dir_all(root.join(".gg-state/agents/bob")).unwrap();
        std::fs::write(root.join(".gg-state/agents/bob/deep"), "secret\n").unwrap();
        std::fs::hard_link(root.join(".gg-state/agents/bob/deep"), root.join("deep")).unwrap();
        assert!(refusal(&ws, "deep").contains("state folder"));
    }

    #[test]
    fn a_store_the_state_folder_links_elsewhere_is_state_too() {
        let (dir, ws) = with_state();
        let root = dir.path().join("ws");
        std::fs::create_dir_all(root.join("kept/streams")).unwrap();
        std::fs::write(root.join("kept/streams/carol.jsonl"), "secret\n").unwrap();
        std::os::unix::fs::symlink(root.join("kept/streams"), root.join(".gg-state/streams"))
            .unwrap();
        assert!(refusal(&ws, "kept/streams/carol.jsonl").contains("state folder"));
    }

    #[test]
    fn another_runs_state_folder_is_refused_by_its_mark() {
        let (dir, ws) = ws();
        let other = dir.path().join("root/elsewhere-state");
        std::fs::create_dir_all(other.join("events")).unwrap();
        std::fs::write(other.join("events/x.jsonl"), "secret\n").unwrap();
        assert_eq!(
            ws.read_to_string("elsewhere-state/events/x.jsonl").unwrap(),
            "secret\n"
        );
        mark_state_folder(&other).unwrap();
        mark_state_folder(&other).unwrap();
        assert!(refusal(&ws, "elsewhere-state/events/x.jsonl").contains("state folder"));
        // A workspace inside a marked folder is refused when it is made.
        let e = Workspace::new(other.join("events")).unwrap_err();
        assert!(e.to_string().contains("is inside the state folder"), "{e}");
    }

    #[test]
    fn a_workspace_at_or_inside_its_state_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        std::fs::create_dir_all(state.join("events")).unwrap();
        let e = Workspace::with_state_folder(&state, &state)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("is the state folder") && e.contains("--workspace"),
            "{e}"
        );
        let e = Workspace::with_state_folder(state.join("events"), &state)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is inside the state folder"), "{e}");
        // Named through a link, it is the same folder.
        std::os::unix::fs::symlink(&state, dir.path().join("alias")).unwrap();
        let e = Workspace::with_state_folder(dir.path().join("alias/events"), &state)
            .unwrap_err()
            .to_string();
        assert!(e.contains("is inside the state folder"), "{e}");
        // Beside it is fine.
        std::fs::create_dir_all(dir.path().join("ws")).unwrap();
        assert!(Workspace::with_state_folder(dir.path().join("ws"), &state).is_ok());
    }

    extern "C" {
        fn mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
    }
}
