fn main() -> std::process::ExitCode {
    teebatch::cli::main()
}
