//! The agent's workspace root and the only way gg reads files under it.
//!
//! A path is refused when it is absolute, when it climbs out with `..`, or
//! when it (or any folder on the way) is a symlink that resolves outside the
//! root. The check is on the canonical path, so a symlink inside the root
//! that points inside the root is fine.

use std::path::{Component, Path, PathBuf};

use crate::error::{GgError, GgResult};

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

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a workspace-relative path to a canonical path inside the
    /// root, or refuses it saying why.
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
        let joined = self.root.join(relative);
        let canonical = joined.canonicalize().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                GgError::not_found(format!("no file at {path:?} in the workspace."))
            }
            _ => GgError::io(format!("cannot read {path:?}: {e}")),
        })?;
        if !canonical.starts_with(&self.root) {
            return Err(GgError::invalid(format!(
                "the path {path:?} is a symlink that leads out of the workspace; only files under the workspace root can be opened."
            )));
        }
        Ok(canonical)
    }

    /// Reads a workspace file as text.
    pub fn read_to_string(&self, path: &str) -> GgResult<String> {
        let resolved = self.resolve(path)?;
        if resolved.is_dir() {
            return Err(GgError::invalid(format!(
                "{path:?} is a folder, not a file."
            )));
        }
        let bytes = std::fs::read(&resolved)
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
}
