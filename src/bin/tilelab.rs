//! The `tilelab` command line.

use std::process::ExitCode;

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    match arguments.first().map(String::as_str) {
        Some("--version") | Some("-V") => {
            println!("tilelab {}", tilelab::VERSION);
            ExitCode::SUCCESS
        }
        Some("--help") | Some("-h") | None => {
            println!("tilelab {}\n\nUsage:\n  tilelab --version    print the version\n  tilelab --help       print this help", tilelab::VERSION);
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("tilelab: unknown argument '{other}' (try --help)");
            ExitCode::from(2)
        }
    }
}
