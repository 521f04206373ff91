//! The agent's workspace root and the only way gg reads files under it.
//!
//! A path is refused when it is absolute, when it climbs out with `..`, or
//! when a symlink on the way leads out of the root. Resolution walks the
//! path one component at a time and reads each symlink's text instead of
//! following it, so a link that leads out is refused the same way whether
//! its target exists or not: a program learns nothing about the host's
//! files outside the root. Only regular files are read, and they are opened
//! without blocking, so a FIFO, a socket or a device cannot stall the host.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

use crate::error::{GgError, GgResult};

/// How many symlinks one resolution may pass through (as Linux's `ELOOP`).
const MAX_SYMLINK_HOPS: usize = 40;

/// `open(2)` flags: never block on a FIFO or device, never follow a final
/// symlink (resolution already replaced every link by what it points to).
const OPEN_FLAGS: i32 = libc_flags::O_NONBLOCK | libc_flags::O_NOFOLLOW;

mod libc_flags {
    // Linux's values on every architecture gg builds for.
    pub const O_NONBLOCK: i32 = 0o4000;
    pub const O_NOFOLLOW: i32 = 0o400000;
}

/// The agent's workspace: a canonical root every read stays inside.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// `root` must exist; it is canonicalized once here.
    pub fn new(root: impl AsRef<Path>) -> std::io::Result<Self> {
        Ok(Workspace {
            root: root.as_ref().canonicalize()?,
        })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a workspace-relative path to a path inside the root with no
    /// symlink left on it, or refuses it saying why.
    pub fn resolve(&self, path: &str) -> GgResult<PathBuf> {
        if path.is_empty() {
            return Err(GgError::invalid(
                "openFile needs a path relative to the workspace root, e.g. \"src/main.rs\".",
            ));
        }
        if path.contains('\0') {
            return Err(GgError::invalid(format!(
                "the path {path:?} contains a NUL character."
            )));
        }
        let relative = Path::new(path);
        if relative.is_absolute() {
            return Err(GgError::invalid(format!(
                "the path {path:?} is absolute; views open files under the workspace root only, so give it relative to the root (e.g. \"src/main.rs\")."
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
                    "the path {path:?} climbs out of the workspace with \"..\"; only files under the workspace root can be opened."
                )));
            }
        }
        self.walk(path, relative)
    }

    /// Follows `relative` from the root one component at a time, replacing
    /// each symlink by its text; leaving the root by any route is the same
    /// refusal, decided before anything outside is looked at.
    fn walk(&self, path: &str, relative: &Path) -> GgResult<PathBuf> {
        let leads_out = || {
            GgError::invalid(format!(
                "the path {path:?} is a symlink that leads out of the workspace; only files under the workspace root can be opened."
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
                    GgError::not_found(format!("no file at {path:?} in the workspace."))
                }
                std::io::ErrorKind::NotADirectory => {
                    GgError::not_found(format!("no file at {path:?} in the workspace."))
                }
                _ => GgError::io(format!("cannot read {path:?}: {e}")),
            })?;
            if !meta.file_type().is_symlink() {
                current = next;
                continue;
            }
            hops += 1;
            if hops > MAX_SYMLINK_HOPS {
                return Err(GgError::invalid(format!(
                    "the path {path:?} passes through more than {MAX_SYMLINK_HOPS} symlinks."
                )));
            }
            let target = std::fs::read_link(&next)
                .map_err(|e| GgError::io(format!("cannot read {path:?}: {e}")))?;
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
        let resolved = self.resolve(path)?;
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(OPEN_FLAGS)
            .open(&resolved)
            .map_err(|e| GgError::io(format!("cannot read {path:?}: {e}")))?;
        let meta = file
            .metadata()
            .map_err(|e| GgError::io(format!("cannot read {path:?}: {e}")))?;
        if meta.is_dir() {
            return Err(GgError::invalid(format!(
                "{path:?} is a folder, not a file."
            )));
        }
        if !meta.is_file() {
            return Err(GgError::invalid(format!(
                "{path:?} is not a regular file (a pipe, socket or device); views show text files only."
            )));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.read_to_end(&mut bytes)
            .map_err(|e| GgError::io(format!("cannot read {path:?}: {e}")))?;
        String::from_utf8(bytes).map_err(|_| {
            GgError::invalid(format!(
                "{path:?} is not UTF-8 text; views show text files only."
            ))
        })
    }
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

    extern "C" {
        fn mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
    }
}
