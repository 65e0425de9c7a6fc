//! The `teebatch` binary: the command line over the library's public API
//! (see `cli`).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
