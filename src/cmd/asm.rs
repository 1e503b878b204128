//! `pws asm`: assembles a GCN3 (+ split/merge) kernel into a little-endian program image, or
//! lists each instruction's bytes in memory order (`--hex`, the order llvm-mc's
//! `-show-encoding` prints them in).

use std::fmt::Write as _;
use std::path::PathBuf;

use super::CmdResult;

#[derive(clap::Args)]
pub struct Args {
    /// Assembly source (llvm-mc syntax; clang-14 `-S` output is accepted).
    pub file: PathBuf,
    /// Print one line per instruction with its bytes as hex instead of writing the image.
    #[arg(long)]
    pub hex: bool,
    /// Output file (default: FILE with the extension `.bin`; with --hex: standard output).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    let source = std::fs::read_to_string(&args.file)
        .map_err(|e| format!("cannot read {}: {e}", args.file.display()))?;
    let program = match pws_isa::assemble(&source, &args.file.display().to_string()) {
        Ok(p) => p,
        Err(e) => {
            // The diagnostic in the usual compiler form; main adds the summary line.
            eprintln!("{e}");
            return Err(
                format!("{}: assembly failed, nothing written", args.file.display()).into(),
            );
        }
    };
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
            Some(path) => std::fs::write(path, text)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
            None => print!("{text}"),
        }
        return Ok(());
    }
    let path = args
        .output
        .clone()
        .unwrap_or_else(|| args.file.with_extension("bin"));
    let bytes = program.bytes();
    std::fs::write(&path, &bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!(
        "wrote {} bytes ({} instructions) to {}",
        bytes.len(),
        program.instructions.len(),
        path.display()
    );
    Ok(())
}
