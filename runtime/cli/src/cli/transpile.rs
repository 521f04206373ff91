use std::io::Write;
use std::path::Path;

use crate::screen::{self, tell};

pub fn run(file: &Path, name: Option<&str>) -> i32 {
    let (source, name) = match super::read_program(file, name) {
        Ok(read) => read,
        Err(e) => return super::usage_error(e),
    };
    match gg_transpiler::transpile(&source, &name) {
        Ok(out) => {
            // The JavaScript is exact where it goes to a file or another
            // program; on a terminal it is text a person reads, which the
            // source's author chose, escaped as all such text is.
            let _ = if screen::stdout_is_terminal() {
                write!(screen::stdout(), "{}", out.code)
            } else {
                write!(screen::machine_stdout(), "{}", out.code)
            };
            0
        }
        Err(e) => {
            // Diagnostics quote the source.
            tell!("{e}");
            1
        }
    }
}
