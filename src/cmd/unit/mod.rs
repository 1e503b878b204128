//! `pws unit ...`: drive one RTL unit on its own, by simulating its rust-hdl design.

use super::CmdResult;

mod split_merge;
mod stack;
mod swizzle;

#[derive(clap::Subcommand)]
pub enum UnitCommand {
    /// BCC/SCC swizzle unit: the pass schedule for an active mask.
    Swizzle(swizzle::Args),
    /// Split/merge datapath driven by a script of split and merge operations.
    SplitMerge(split_merge::Args),
    /// Reconvergence stack (PDOM or dual-path) driven by a script of stack operations.
    Stack(stack::Args),
}

pub fn run(c: UnitCommand) -> CmdResult {
    match c {
        UnitCommand::Swizzle(a) => swizzle::run(a),
        UnitCommand::SplitMerge(a) => split_merge::run(a),
        UnitCommand::Stack(a) => stack::run(a),
    }
}
