//! `pws asm`: assembles a GCN3 (+ split/merge) kernel into a little-endian program image, or
//! lists each instruction's bytes in memory order (`--hex`, the order llvm-mc's
//! `-show-encoding` prints them in). An OpenCL C kernel is compiled by clang-14 first.

use std::fmt::Write as _;
use std::path::PathBuf;

use pws_isa::input::{read_text, Kind};
use pws_isa::output;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Assembly source (llvm-mc syntax; clang-14 `-S` output is accepted), or an OpenCL C
    /// kernel (.cl), compiled by clang-14 first.
    pub file: PathBuf,
    #[command(flatten)]
    pub cl: super::ClArgs,
    /// Print one line per instruction with its bytes as hex instead of writing the image.
    #[arg(long)]
    pub hex: bool,
    /// Output file (default: FILE with the extension `.bin`; with --hex: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    let asm = args.cl.assembly(&args.file, "asm")?;
    let source = read_text(&asm, Kind::Assembly)?;
    let program = pws_isa::assemble(&source, &asm.display().to_string())?;
    if args.hex {
        let mut text = String::new();
        for inst in &program.instructions {
            let bytes: Vec<String> = inst
                .words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .map(|b| format!("{b:02x}"))
                .collect();
            let _ = writeln!(text, "{}", bytes.join(" "));
        }
        match &args.output {
            Some(path) => output::write(path, text.as_bytes(), &[&args.file])?,
            None => print!("{text}"),
        }
        return Ok(());
    }
    let path = args
        .output
        .clone()
        .unwrap_or_else(|| args.file.with_extension("bin"));
    let bytes = program.bytes();
    output::write(&path, &bytes, &[&args.file])?;
    println!(
        "wrote {} bytes ({} instructions) to {}",
        bytes.len(),
        program.instructions.len(),
        path.display()
    );
    let rodata = &program.rodata;
    if !rodata.bytes.is_empty() {
        // The image is the code alone (`pws disasm` reads it back); the loader places the
        // data after it.
        println!(
            "its .rodata ({} bytes: {}) is not in the image; a launch places it at code + {:#x}",
            rodata.bytes.len(),
            rodata
                .symbols
                .iter()
                .map(|(name, offset)| format!("{name} +{offset:#x}"))
                .collect::<Vec<_>>()
                .join(", "),
            rodata.offset
        );
    }
    Ok(())
}
