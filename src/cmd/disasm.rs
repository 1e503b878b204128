//! `pws disasm` (being written in this session; see docs/ARCHITECTURE.md).

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err("pws disasm is not implemented yet".into())
}
