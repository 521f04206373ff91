fn main() {
    let mut same = 0;
    let mut fell_back = 0;
    for path in std::env::args().skip(1) {
        let src = std::fs::read_to_string(&path).unwrap();
        match gg_transpiler::differential::both(&src, "x.ts") {
            Ok(b) => match b.erased {
                Some(e) if e == b.full => same += 1,
                Some(e) => {
                    println!("DIFF {path}");
                    std::fs::write("/tmp/diff_a.js", &e).unwrap();
                    std::fs::write("/tmp/diff_b.js", &b.full).unwrap();
                    let _ = std::process::Command::new("diff")
                        .args(["/tmp/diff_a.js", "/tmp/diff_b.js"])
                        .status();
                }
                None => fell_back += 1,
            },
            Err(e) => println!("ERR {path}: {e}"),
        }
    }
    println!("same {same}, full pipeline {fell_back}");
}
