//! `pws unit ...`: drive one RTL unit on its own (being written in this session).

use super::CmdResult;

#[derive(clap::Subcommand)]
pub enum UnitCommand {}

pub fn run(c: UnitCommand) -> CmdResult {
    match c {}
}
