//! `pws golden` (being written in this session; see docs/ARCHITECTURE.md).

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err("pws golden is not implemented yet".into())
}
