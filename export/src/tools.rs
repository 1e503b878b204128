//! The open EDA tools the export is checked with, run as child processes.
//!
//! Every function runs one documented command line (docs/verilog.md shows them) in a directory
//! of the caller's choosing and turns its output into numbers or an error that carries the
//! tool's own messages. A tool that is not installed is reported with the Debian package that
//! provides it; `make deps` installs them all.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use serde::Serialize;

use crate::ExportError;

/// An external program the flows call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Verilator,
    Iverilog,
    Vvp,
    Yosys,
    NextpnrIce40,
}

impl Tool {
    /// Name of the executable.
    pub fn binary(self) -> &'static str {
        match self {
            Tool::Verilator => "verilator",
            Tool::Iverilog => "iverilog",
            Tool::Vvp => "vvp",
            Tool::Yosys => "yosys",
            Tool::NextpnrIce40 => "nextpnr-ice40",
        }
    }

    /// Debian package that installs it.
    pub fn package(self) -> &'static str {
        match self {
            Tool::Verilator => "verilator",
            Tool::Iverilog | Tool::Vvp => "iverilog",
            Tool::Yosys => "yosys",
            Tool::NextpnrIce40 => "nextpnr-ice40",
        }
    }
}

/// Runs `tool args...` in `dir`; a non-zero exit is an error quoting stdout and stderr.
pub fn run(tool: Tool, args: &[&str], dir: &Path, subject: &str) -> Result<Output, ExportError> {
    run_binary(tool.binary(), tool.package(), args, dir, subject)
}

fn run_binary(
    binary: &'static str,
    package: &'static str,
    args: &[&str],
    dir: &Path,
    subject: &str,
) -> Result<Output, ExportError> {
    // A missing working directory would also surface as NotFound from spawn.
    if !dir.is_dir() {
        return Err(ExportError::io(dir, std::io::ErrorKind::NotFound.into()));
    }
    let output = Command::new(binary)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ExportError::ToolMissing {
                tool: binary,
                package,
            },
            _ => ExportError::io(dir, e),
        })?;
    if output.status.success() {
        Ok(output)
    } else {
        Err(ExportError::ToolFailed {
            tool: binary,
            subject: subject.to_string(),
            status: output
                .status
                .code()
                .map_or_else(|| "killed by a signal".to_string(), |c| c.to_string()),
            output: text(&output),
        })
    }
}

/// stdout followed by stderr, lossily decoded.
fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A class of Verilator warnings the lint accepts, and why.
#[derive(Clone, Copy, Debug)]
pub struct Waiver {
    pub rule: &'static str,
    /// The one exported file the waiver applies to (`None`: every file).
    pub file: Option<&'static str>,
    pub reason: &'static str,
}

/// Verilator `-Wall` warnings waived for rust-hdl output, with the reason for each. Everything
/// else `-Wall` reports fails the lint. docs/verilog.md repeats this table.
pub const LINT_WAIVERS: &[Waiver] = &[
    Waiver {
        rule: "DECLFILENAME",
        file: None,
        reason: "one file holds a unit and all of its submodules (`unit$child`), so only the top \
                 module matches the file name",
    },
    Waiver {
        rule: "WIDTH",
        file: None,
        reason: "rust-hdl writes every literal as 32 bits (`32'h1`; enum DFF resets as `64'h0`) and \
                 relies on Verilog's context-determined widths to extend and truncate, which is \
                 rust-hdl's own modular `Bits<N>` arithmetic; the co-simulation checks it bit for bit",
    },
    Waiver {
        rule: "UNUSEDPARAM",
        file: None,
        reason: "rust-hdl copies an enum's `localparam`s into every module holding a signal of that \
                 type, including DFF submodules that never compare against them",
    },
    Waiver {
        rule: "UNUSEDSIGNAL",
        file: Some("pws_vector_unit.v"),
        reason: "the vector unit drives its crossbars from the swizzle unit's group and lane \
                 outputs, so the schedule's source-lane numbers (`src_o`), pass index and last-pass \
                 flag stay unread; the high words of sources 1 and 2 only exist for port \
                 uniformity (64-bit operands are source 0)",
    },
    Waiver {
        rule: "UNUSEDSIGNAL",
        file: Some("pws_compute_unit.v"),
        reason: "the compute unit instantiates the units as they are exported on their own, and \
                 leaves their observation ports unread (the masks of the split/merge unit's \
                 context read port and its counters, the swizzle unit's `src_o`, the decoder's \
                 and branch unit's status outputs), as well as the high bits of address words \
                 narrower memories ignore",
    },
];

/// Name of the Verilator configuration file that carries [`LINT_WAIVERS`].
pub const LINT_CONFIG: &str = "pws_lint.vlt";

/// The Verilator configuration file of [`LINT_WAIVERS`] (`lint_off` lines).
pub fn lint_config() -> String {
    let mut text = String::from(
        "`verilator_config\n// Lint waivers of pws-export; reasons in docs/verilog.md.\n",
    );
    for w in LINT_WAIVERS {
        match w.file {
            None => text.push_str(&format!("lint_off -rule {}\n", w.rule)),
            Some(file) => text.push_str(&format!("lint_off -rule {} -file \"*{file}\"\n", w.rule)),
        }
    }
    text
}

/// Writes [`lint_config`] to `dir/`[`LINT_CONFIG`] and returns its path.
pub fn write_lint_config(dir: &Path) -> Result<std::path::PathBuf, ExportError> {
    let path = dir.join(LINT_CONFIG);
    std::fs::write(&path, lint_config()).map_err(|e| ExportError::io(&path, e))?;
    Ok(path)
}

/// Outcome of a passing lint.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LintReport {
    /// How many warnings of each waived class `-Wall` raises on the file.
    pub waived: BTreeMap<String, usize>,
}

/// The lint a user runs as `verilator --lint-only -Wall --top-module TOP pws_lint.vlt FILE` (the
/// waiver file is written beside `file`), in one Verilator run: `-Wall -Wno-fatal` without the
/// waivers, then every warning is either one of [`LINT_WAIVERS`] (counted for the report) or
/// fails the lint. One run instead of a checking and a counting one halves the time on the
/// compute unit (a minute per run).
pub fn lint(file: &Path, top: &str) -> Result<LintReport, ExportError> {
    let (dir, name) = split(file)?;
    write_lint_config(dir)?;
    let output = run(
        Tool::Verilator,
        &[
            "--lint-only",
            "-Wall",
            "-Wno-fatal",
            "--top-module",
            top,
            &name,
        ],
        dir,
        &name,
    )?;
    let (waived, rejected) = classify_lint(&text(&output));
    if rejected.is_empty() {
        Ok(LintReport { waived })
    } else {
        Err(ExportError::ToolFailed {
            tool: Tool::Verilator.binary(),
            subject: name,
            status: format!("{} warnings outside the waivers", rejected.len()),
            output: rejected.join("\n"),
        })
    }
}

/// Splits Verilator's warnings into the waived ones, counted per rule, and the others, each with
/// the indented lines that follow it.
fn classify_lint(log: &str) -> (BTreeMap<String, usize>, Vec<String>) {
    let mut waived = BTreeMap::new();
    let mut rejected: Vec<String> = Vec::new();
    let mut in_rejected = false;
    for line in log.lines() {
        let Some(rest) = line.strip_prefix("%Warning-") else {
            if in_rejected && line.starts_with(' ') {
                if let Some(last) = rejected.last_mut() {
                    last.push('\n');
                    last.push_str(line);
                }
            } else {
                in_rejected = false;
            }
            continue;
        };
        let (rule, location) = rest.split_once(": ").unwrap_or((rest, ""));
        let file = location.split(':').next().unwrap_or("");
        let is_waived = LINT_WAIVERS
            .iter()
            .any(|w| w.rule == rule && w.file.is_none_or(|f| file.ends_with(f)));
        in_rejected = !is_waived;
        if is_waived {
            *waived.entry(rule.to_string()).or_insert(0) += 1;
        } else {
            rejected.push(line.to_string());
        }
    }
    (waived, rejected)
}

/// `iverilog -g2005 -s TOP -o OUT FILES...`: the files must compile as plain Verilog-2005.
pub fn iverilog(files: &[&Path], top: &str, out: &Path) -> Result<(), ExportError> {
    let dir = out
        .parent()
        .ok_or_else(|| ExportError::BadArgument(out.display().to_string()))?;
    let mut args = vec!["-g2005".to_string(), "-s".into(), top.into(), "-o".into()];
    args.push(out.display().to_string());
    args.extend(files.iter().map(|f| f.display().to_string()));
    let subject = files
        .iter()
        .map(|f| f.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    run(Tool::Iverilog, &strs(&args), dir, &subject).map(drop)
}

/// Cell counts of a synthesised design, by cell type.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CellStat {
    pub cells: u64,
    pub by_type: BTreeMap<String, u64>,
}

impl CellStat {
    /// Cells whose type name contains `pattern` (`DFF` counts every flip-flop flavour of the
    /// generic library: `$_DFF_P_`, `$_DFFE_PP_`, `$_SDFF_PP0_`, ...).
    pub fn count(&self, pattern: &str) -> u64 {
        self.by_type
            .iter()
            .filter(|(t, _)| t.contains(pattern))
            .map(|(_, n)| n)
            .sum()
    }
}

/// `yosys -p "read_verilog FILE; hierarchy -check -top TOP; proc; check -assert;
/// select -assert-none t:$dlatch t:$adlatch t:$sr"`: the front end accepts the design, every
/// module is present, no net is undriven or multiply driven and no latch was inferred. Much
/// faster than [`yosys_synth`].
pub fn yosys_check(file: &Path, top: &str) -> Result<(), ExportError> {
    let (dir, name) = split(file)?;
    let script = format!(
        "read_verilog {name}; hierarchy -check -top {top}; proc; check -assert; \
         select -assert-none t:$dlatch t:$adlatch t:$sr"
    );
    run(Tool::Yosys, &["-q", "-p", &script], dir, &name).map(drop)
}

/// `yosys -p "read_verilog FILE; synth -flatten -top TOP; stat"`: generic gate-level cells.
pub fn yosys_synth(file: &Path, top: &str) -> Result<CellStat, ExportError> {
    let (dir, name) = split(file)?;
    let script = format!("read_verilog {name}; synth -flatten -top {top}; stat");
    let out = run(Tool::Yosys, &["-p", &script], dir, &name)?;
    parse_stat(&text(&out))
}

/// iCE40 resources: LUTs, flip-flops, carry cells.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Ice40Stat {
    pub luts: u64,
    pub ffs: u64,
    pub carries: u64,
    pub cells: CellStat,
}

/// `yosys -p "read_verilog FILES; synth_ice40 -top TOP -json JSON; stat"`; the JSON netlist is
/// what [`nextpnr_fmax`] places and routes.
pub fn yosys_ice40(files: &[&Path], top: &str, json: &Path) -> Result<Ice40Stat, ExportError> {
    let first = files
        .first()
        .ok_or_else(|| ExportError::BadArgument("no Verilog files".into()))?;
    let (dir, _) = split(first)?;
    let sources: Vec<String> = files
        .iter()
        .map(|f| format!("\"{}\"", f.display()))
        .collect();
    let script = format!(
        "read_verilog {}; synth_ice40 -top {top} -json \"{}\"; stat",
        sources.join(" "),
        json.display()
    );
    let out = run(Tool::Yosys, &["-p", &script], dir, top)?;
    let cells = parse_stat(&text(&out))?;
    Ok(Ice40Stat {
        luts: cells.count("SB_LUT4"),
        ffs: cells.count("SB_DFF"),
        carries: cells.count("SB_CARRY"),
        cells,
    })
}

/// Reads the last `Number of cells:` block of a Yosys `stat`, with the per-type lines under it.
pub fn parse_stat(log: &str) -> Result<CellStat, ExportError> {
    let start = log
        .rfind("Number of cells:")
        .ok_or_else(|| ExportError::Parse {
            what: "a Yosys `stat` cell count".into(),
            text: tail(log),
        })?;
    let mut lines = log[start..].lines();
    let total = lines
        .next()
        .and_then(|l| l.split(':').nth(1))
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| ExportError::Parse {
            what: "a Yosys cell count".into(),
            text: tail(log),
        })?;
    let mut by_type = BTreeMap::new();
    for line in lines {
        let mut fields = line.split_whitespace();
        match (
            fields.next(),
            fields.next().and_then(|n| n.parse().ok()),
            fields.next(),
        ) {
            (Some(kind), Some(n), None) => {
                by_type.insert(kind.to_string(), n);
            }
            _ => break,
        }
    }
    Ok(CellStat {
        cells: total,
        by_type,
    })
}

/// `nextpnr-ice40 --hx8k --package ct256 --json JSON --freq MHZ`: the maximum clock frequency
/// after routing, in MHz (the last "Max frequency" line nextpnr prints).
pub fn nextpnr_fmax(json: &Path, target_mhz: f64) -> Result<f64, ExportError> {
    let (dir, name) = split(json)?;
    let freq = target_mhz.to_string();
    let out = run(
        Tool::NextpnrIce40,
        &[
            "--hx8k",
            "--package",
            "ct256",
            "--json",
            &name,
            "--freq",
            &freq,
        ],
        dir,
        &name,
    )?;
    parse_fmax(&text(&out))
}

/// The last `Max frequency for clock '...': F MHz` of a nextpnr log.
pub fn parse_fmax(log: &str) -> Result<f64, ExportError> {
    log.lines()
        .rev()
        .filter_map(|l| l.split_once("Max frequency for clock"))
        .filter_map(|(_, rest)| {
            rest.split("': ")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .next()
        .ok_or_else(|| ExportError::Parse {
            what: "nextpnr's max frequency".into(),
            text: tail(log),
        })
}

/// Directory and file name of `file`, for tools that run beside their input.
fn split(file: &Path) -> Result<(&Path, String), ExportError> {
    let bad = || ExportError::BadArgument(format!("not a file path: {}", file.display()));
    let name = file
        .file_name()
        .ok_or_else(bad)?
        .to_string_lossy()
        .into_owned();
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok((dir, name))
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The end of a long log, enough to show the error.
fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_takes_the_last_block_with_its_cell_types() {
        let log = "=== sub ===\n   Number of cells:                 32\n     $_DFF_P_   32\n\n\
                   === top ===\n   Number of cells:                146\n     SB_CARRY   33\n     \
                   SB_DFFE   4\n     SB_DFFESR   34\n     SB_LUT4   75\n\nEnd of script.\n";
        let stat = parse_stat(log).unwrap();
        assert_eq!(stat.cells, 146);
        assert_eq!(stat.count("SB_DFF"), 38);
        assert_eq!(stat.count("SB_LUT4"), 75);
        assert!(parse_stat("no statistics").is_err());
    }

    #[test]
    fn fmax_is_the_last_reported_frequency() {
        let log = "Info: Max frequency for clock 'clock$SB_IO_IN_$glb_clk': 135.37 MHz (PASS at 12.00 MHz)\n\
                   Info: Max frequency for clock 'clock$SB_IO_IN_$glb_clk': 138.41 MHz (PASS at 12.00 MHz)\n";
        assert_eq!(parse_fmax(log).unwrap(), 138.41);
        assert!(parse_fmax("Info: no clocks").is_err());
    }

    #[test]
    fn a_missing_tool_names_its_package_and_a_missing_dir_is_not_a_missing_tool() {
        let here = Path::new(".");
        match run_binary("pws-no-such-tool", "pws-tools", &[], here, "x") {
            Err(ExportError::ToolMissing { tool, package }) => {
                assert_eq!((tool, package), ("pws-no-such-tool", "pws-tools"))
            }
            other => panic!("expected ToolMissing, got {other:?}"),
        }
        let missing_dir = run_binary(
            "pws-no-such-tool",
            "p",
            &[],
            Path::new("/nonexistent/d"),
            "x",
        );
        assert!(matches!(missing_dir, Err(ExportError::Io { .. })));
    }

    #[test]
    fn a_failing_tool_reports_its_status_and_output() {
        match run_binary(
            "sh",
            "dash",
            &["-c", "echo oops; exit 3"],
            Path::new("."),
            "x",
        ) {
            Err(ExportError::ToolFailed { status, output, .. }) => {
                assert_eq!(status, "3");
                assert!(output.contains("oops"));
            }
            other => panic!("expected ToolFailed, got {other:?}"),
        }
    }

    #[test]
    fn a_warning_is_waived_only_by_its_rule_and_file() {
        let log = "%Warning-WIDTH: a.v:1:2: Operator ASSIGN expects 4 bits\n\
                   %Warning-UNUSEDSIGNAL: pws_vector_unit.v:3:4: Signal is not used: 'x'\n\
                   %Warning-UNUSEDSIGNAL: pws_split_merge_unit.v:5:6: Signal is not used: 'y'\n\
                   \x20                  : ... In instance pws_split_merge_unit\n\
                   %Warning-WIDTH: a.v:7:8: again\n\
                   %Error: Exiting due to 3 warning(s)\n";
        let (waived, rejected) = classify_lint(log);
        assert_eq!(waived.get("WIDTH"), Some(&2));
        assert_eq!(waived.get("UNUSEDSIGNAL"), Some(&1));
        assert_eq!(rejected.len(), 1);
        assert!(rejected[0].contains("'y'"));
        assert!(rejected[0].contains("In instance pws_split_merge_unit"));
    }

    #[test]
    fn waiver_file_has_one_lint_off_per_waiver() {
        let config = lint_config();
        assert!(config.starts_with("`verilator_config\n"));
        assert_eq!(
            config.matches("lint_off -rule ").count(),
            LINT_WAIVERS.len()
        );
        assert!(config.contains("lint_off -rule WIDTH\n"));
    }
}
