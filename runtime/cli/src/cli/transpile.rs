use std::path::Path;

pub fn run(file: &Path, name: Option<&str>) -> i32 {
    let (source, name) = match super::read_program(file, name) {
        Ok(read) => read,
        Err(e) => return super::usage_error(e),
    };
    match gg_transpiler::transpile(&source, &name) {
        Ok(out) => {
            print!("{}", out.code);
            0
        }
        Err(e) => {
            eprintln!("{e}");
            1
        }
    }
}
