use std::path::Path;

pub fn run(file: &Path) -> i32 {
    let source = match std::fs::read_to_string(file) {
        Ok(source) => source,
        Err(e) => return super::usage_error(format!("cannot read {}: {e}", file.display())),
    };
    match gg_transpiler::transpile(&source, &file.display().to_string()) {
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
