//! One module per subcommand: argument parsing and output formatting only.

pub mod asm;
pub mod bench;
pub mod compare;
pub mod compile;
pub mod disasm;
pub mod export;
pub mod golden;
pub mod run;
pub mod unit;
pub mod wcet;

/// What every subcommand returns; `main` prints the error and exits with status 1.
pub type CmdResult = Result<(), Box<dyn std::error::Error>>;
