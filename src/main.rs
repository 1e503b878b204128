//! `pws`: the command-line front end. Each subcommand lives in its own module under `cmd/`
//! and only wires a library crate to arguments and output; the work is done in the crates.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd;
mod eval;

#[derive(Parser)]
#[command(
    name = "pws",
    version,
    about = "Predictable wavefront splitting: GCN3 RTL, golden model and WCET analysis"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Raise (or lower) the size limit of one kind of input file, KIND=SIZE with SIZE in bytes
    /// or with K, M, G (e.g. asm=64M). Kinds and defaults: asm 8M, manifest 4M, data 256M,
    /// dot 16M, script 16M, image 4M, config 1M, report 256M, cl 16M. Repeatable.
    #[arg(long, global = true, value_name = "KIND=SIZE")]
    input_limit: Vec<String>,
    /// Memory budget of a launch: its buffers, kernarg segment and the per-wavefront state
    /// the model keeps, checked before anything is allocated (default 1G).
    #[arg(long, global = true, value_name = "SIZE")]
    max_memory: Option<String>,
}

/// Applies the process-wide limits of the global flags.
fn apply_limits(cli: &Cli) -> Result<(), String> {
    for setting in &cli.input_limit {
        pws_isa::input::set_limit_from_flag(setting)?;
    }
    if let Some(size) = &cli.max_memory {
        let bytes = pws_isa::diag::parse_size(size).map_err(|e| format!("--max-memory: {e}"))?;
        if bytes == 0 {
            return Err("--max-memory: the budget must be at least 1 byte".into());
        }
        pws_isa::manifest::set_memory_budget(bytes);
    }
    Ok(())
}

#[derive(Subcommand)]
enum Command {
    /// Assemble a GCN3 kernel (with split/merge) into a program image.
    Asm(cmd::asm::Args),
    /// Disassemble a program image.
    Disasm(cmd::disasm::Args),
    /// Run a launch on the ISA-level golden model.
    Golden(cmd::golden::Args),
    /// Run a launch on the compute-unit RTL, cycle by cycle.
    Run(cmd::run::Args),
    /// Run a launch on the RTL in every mode, S and compaction, beside golden memory and the WCET bound.
    Compare(cmd::compare::Args),
    /// Insert split and merge instructions into a kernel.
    Compile(cmd::compile::Args),
    /// Bound the worst-case execution time of a CFG, kernel or launch.
    Wcet(cmd::wcet::Args),
    /// Drive one RTL unit on its own.
    #[command(subcommand)]
    Unit(cmd::unit::UnitCommand),
    /// Write the RTL as Verilog and check it with Verilator, Icarus and Yosys.
    Export(cmd::export::Args),
    /// Run a sweep of RTL runs (kernels x modes x S x compaction x configs): tables and figures.
    Eval(cmd::eval::Args),
    /// Measure simulation and analysis speed and print the tables.
    Bench(cmd::bench::Args),
    /// Write the PWS paper's synthetic benchmark with the given knobs (kernel and manifest).
    Synthetic(cmd::synthetic::Args),
    /// Write a launch manifest for a kernel from its argument metadata, to fill in with data.
    Manifest(cmd::manifest::Args),
}

/// Restores the default SIGPIPE action, which Rust's runtime sets to ignore: `pws ... | head`
/// then ends quietly when `head` closes the pipe, as a Unix filter should, instead of
/// `println!` panicking on the broken pipe.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = Cli::parse();
    if let Err(e) = apply_limits(&cli) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::Asm(a) => cmd::asm::run(a),
        Command::Disasm(a) => cmd::disasm::run(a),
        Command::Golden(a) => cmd::golden::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Compare(a) => cmd::compare::run(a),
        Command::Compile(a) => cmd::compile::run(a),
        Command::Wcet(a) => cmd::wcet::run(a),
        Command::Unit(c) => cmd::unit::run(c),
        Command::Export(a) => cmd::export::run(a),
        Command::Eval(a) => cmd::eval::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Synthetic(a) => cmd::synthetic::run(a),
        Command::Manifest(a) => cmd::manifest::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Messages escape what they quote; this catches anything that slipped through, so
            // no input can drive the terminal.
            let text: Vec<String> = e.to_string().lines().map(pws_isa::diag::escape).collect();
            eprintln!("error: {}", text.join("\n"));
            ExitCode::FAILURE
        }
    }
}
