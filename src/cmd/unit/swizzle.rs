//! (being written in this session)

use crate::cmd::CmdResult;

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> CmdResult {
    Err("not implemented yet".into())
}
