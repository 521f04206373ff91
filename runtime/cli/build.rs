//! Links the `gg` binary with packed relative relocations (DT_RELR) where the
//! linker and C library support them.
//!
//! `gg` is a position-independent executable with about 100 000 relative
//! relocations (vtables and static tables of the engine, the compiler and
//! the store). In the classic format each costs a 24-byte entry the dynamic
//! loader reads at every start: 2.5 MB, about 5 ms of a 50 ms cold run. The
//! packed format keeps the same relocations in a bitmap of a few kilobytes,
//! so the start is shorter and address-space randomisation stays.

use std::path::PathBuf;
use std::process::Command;

const FLAG: &str = "-Wl,-z,pack-relative-relocs";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" && linker_accepts(FLAG) {
        println!("cargo:rustc-link-arg-bins={FLAG}");
    }
}

/// Whether the system's C compiler driver links a trivial program with
/// `flag`: an older linker refuses the option, and then the binary is linked
/// as before.
fn linker_accepts(flag: &str) -> bool {
    let Some(out_dir) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return false;
    };
    let source = out_dir.join("relr_probe.c");
    let binary = out_dir.join("relr_probe");
    if std::fs::write(&source, "int main(void) { return 0; }\n").is_err() {
        return false;
    }
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    Command::new(compiler)
        .arg(&source)
        .arg("-o")
        .arg(&binary)
        .arg("-pie")
        .arg("-fPIE")
        .arg(flag)
        .output()
        .is_ok_and(|output| output.status.success())
}
