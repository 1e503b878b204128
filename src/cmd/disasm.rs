//! `pws disasm`: decodes a little-endian program image and prints it in llvm-mc syntax, one
//! instruction per line, branch targets as labels, each line commented with its byte offset
//! and encoding. The listing assembles back to the same image.

use std::path::PathBuf;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Program image (as written by `pws asm`).
    pub file: PathBuf,
}

pub fn run(args: Args) -> CmdResult {
    let bytes = pws_isa::input::read_bytes(&args.file, pws_isa::input::Kind::Image)?;
    let program = pws_isa::Program::from_bytes(&bytes)
        .map_err(|e| format!("{}: {e}", args.file.display()))?;
    print!("{}", program.listing());
    Ok(())
}
