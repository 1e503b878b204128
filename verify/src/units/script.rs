//! The scripts `pws unit split-merge` and `pws unit stack` drive a unit with: one operation per
//! line, `#` starts a comment, words separated by blanks (docs/rtl-units.md). Errors name the
//! line and the column of the offending word (`file:line:col: what is wrong` once the caller
//! adds the file) and show the word escaped and shortened (`pws_isa::diag`).
//!
//! ```text
//! # split-merge                            # stack (the path l|r only on the dual-path stack)
//! launch [EXEC] [SGPRS]                    init PC END MASK
//! split CTX MASK [PC]                      advance [l|r] PC
//! merge CTX                                branch [l|r] TARGET FALLTHROUGH TAKEN IPDOM
//! end                                      nop
//! sgpr CTX REG VALUE
//! ```
//!
//! Numbers are decimal or `0x` hexadecimal; masks are hexadecimal with or without `0x`, `_`
//! allowed.

use std::fmt;

use pws_hdl::config::{HwConfig, SGPR_ADDR_BITS};
use pws_isa::diag;

use super::reconvergence::{Op, Side};
use super::split_merge::Request;

/// A script error at a line and column (1-based; the column counts characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ScriptError {}

/// One operation of a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line<T> {
    /// 1-based line number.
    pub line: usize,
    /// The operation as written, without its comment (escaped, shortened).
    pub text: String,
    pub op: T,
}

/// A word of a line and its column.
#[derive(Clone, Copy)]
struct Word<'a> {
    column: usize,
    text: &'a str,
}

/// The comment-free words of every non-empty line: (line number, text, words).
fn lines(source: &str) -> impl Iterator<Item = (usize, &str, Vec<Word<'_>>)> {
    source.lines().enumerate().filter_map(|(i, raw)| {
        let text = raw.split('#').next().unwrap_or("");
        let mut words = Vec::new();
        let mut column = 1;
        let mut start = None;
        for (offset, c) in text.char_indices() {
            match (c.is_whitespace(), start) {
                (false, None) => start = Some((offset, column)),
                (true, Some((s, col))) => {
                    words.push(Word {
                        column: col,
                        text: &text[s..offset],
                    });
                    start = None;
                }
                _ => {}
            }
            column += 1;
        }
        if let Some((s, col)) = start {
            words.push(Word {
                column: col,
                text: &text[s..],
            });
        }
        (!words.is_empty()).then_some((i + 1, text.trim(), words))
    })
}

/// What a parser function fails with: the column of the word it is about, and the message.
type Failure = (usize, String);

fn number(w: Word<'_>) -> Result<u64, Failure> {
    let parsed = match w.text.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16),
        None => w.text.parse(),
    };
    parsed.map_err(|_| (w.column, format!("`{}` is not a number", w.text)))
}

fn mask(w: Word<'_>) -> Result<u64, Failure> {
    let digits = w.text.trim_start_matches("0x").replace('_', "");
    u64::from_str_radix(&digits, 16).map_err(|_| {
        (
            w.column,
            format!("mask `{}` is not a 64-bit hex number", w.text),
        )
    })
}

fn pc(w: Word<'_>) -> Result<u32, Failure> {
    u32::try_from(number(w)?)
        .map_err(|_| (w.column, format!("PC `{}` does not fit 32 bits", w.text)))
}

/// A context number: 0 = the WF context, 1..=7 = SpSIMD k (numbers above S reach the hardware,
/// which rejects them).
fn context(w: Word<'_>) -> Result<usize, Failure> {
    match w.text.parse::<usize>() {
        Ok(k) if k <= 7 => Ok(k),
        _ => Err((
            w.column,
            format!("context `{}` is not a number in 0..=7", w.text),
        )),
    }
}

/// Runs `parse_line` over every operation of `source`, turning failures into positioned,
/// sanitised errors.
fn parse_with<T>(
    source: &str,
    mut parse_line: impl FnMut(&[Word<'_>]) -> Result<T, Failure>,
) -> Result<Vec<Line<T>>, ScriptError> {
    let mut out = Vec::new();
    for (line, text, words) in lines(source) {
        let op = parse_line(&words).map_err(|(column, message)| ScriptError {
            line,
            column,
            message: diag::message(&message),
        })?;
        out.push(Line {
            line,
            text: diag::value(text),
            op,
        });
    }
    Ok(out)
}

/// Parses a split/merge script for the datapath of `cfg`.
pub fn split_merge(source: &str, cfg: &HwConfig) -> Result<Vec<Line<Request>>, ScriptError> {
    // The running wavefront's SGPR allocation, which every split request carries.
    let mut sgprs = 0;
    parse_with(source, |words| {
        let first = words[0];
        let arity = |min: usize, max: usize, usage: &str| {
            if words.len() < min + 1 || words.len() > max + 1 {
                let at = words.get(max + 1).copied().unwrap_or(first);
                Err((at.column, format!("usage: {usage}")))
            } else {
                Ok(())
            }
        };
        Ok(match first.text {
            "launch" => {
                arity(0, 2, "launch [EXEC] [SGPRS]")?;
                let exec = match words.get(1) {
                    Some(&w) => mask(w)?,
                    None => cfg.lane_mask(),
                };
                sgprs = match words.get(2) {
                    Some(&w) => {
                        let limit = (1u64 << SGPR_ADDR_BITS) - 1;
                        match number(w)? {
                            n if n <= limit => n as usize,
                            n => {
                                return Err((
                                    w.column,
                                    format!(
                                    "SGPR count {n} does not fit the split request (0..={limit})"
                                ),
                                ))
                            }
                        }
                    }
                    None => 0,
                };
                Request::Launch { exec, pc: 0 }
            }
            "split" => {
                arity(2, 3, "split CTX MASK [PC]")?;
                Request::Split {
                    ctx: context(words[1])?,
                    mask: mask(words[2])?,
                    pc: match words.get(3) {
                        Some(&w) => pc(w)?,
                        None => 0,
                    },
                    sgprs,
                }
            }
            "merge" => {
                arity(1, 1, "merge CTX")?;
                Request::Merge {
                    ctx: context(words[1])?,
                }
            }
            "end" => {
                arity(0, 0, "end")?;
                Request::End
            }
            "sgpr" => {
                arity(3, 3, "sgpr CTX REG VALUE")?;
                let ctx = context(words[1])?;
                if ctx > cfg.spsimds_per_simd {
                    return Err((
                        words[1].column,
                        format!(
                            "context {ctx} does not exist (S = {})",
                            cfg.spsimds_per_simd
                        ),
                    ));
                }
                let reg = number(words[2])?;
                if reg >= cfg.sgprs_per_context as u64 {
                    return Err((
                        words[2].column,
                        format!("SGPR {reg} is out of range 0..{}", cfg.sgprs_per_context),
                    ));
                }
                let value = u32::try_from(number(words[3])?).map_err(|_| {
                    (
                        words[3].column,
                        format!("value `{}` does not fit 32 bits", words[3].text),
                    )
                })?;
                Request::WriteSgpr {
                    ctx,
                    reg: reg as usize,
                    value,
                }
            }
            other => {
                return Err((
                    first.column,
                    format!("unknown operation `{other}` (launch, split, merge, end, sgpr)"),
                ))
            }
        })
    })
}

/// Parses a reconvergence-stack script; `dual` for the dual-path stack, whose `advance` and
/// `branch` name a path (`l` or `r`).
pub fn stack(source: &str, dual: bool) -> Result<Vec<Line<(Side, Op)>>, ScriptError> {
    parse_with(source, |words| {
        let first = words[0];
        let (side, args) = match (first.text, dual, words.get(1).map(|w| w.text)) {
            ("advance" | "branch", true, Some("l")) => (Side::L, &words[2..]),
            ("advance" | "branch", true, Some("r")) => (Side::R, &words[2..]),
            ("advance" | "branch", true, _) => {
                return Err((
                    words.get(1).copied().unwrap_or(first).column,
                    format!(
                        "`{}` on the dual-path stack needs a path, l or r",
                        first.text
                    ),
                ))
            }
            _ => (Side::L, &words[1..]),
        };
        let op = match (first.text, args) {
            ("nop", []) => Op::Nop,
            ("init", &[p, end, m]) => Op::Init {
                pc: pc(p)?,
                end: pc(end)?,
                mask: mask(m)?,
            },
            ("advance", &[p]) => Op::Advance { pc: pc(p)? },
            ("branch", &[target, fall_through, taken, ipdom]) => Op::Branch {
                target: pc(target)?,
                fall_through: pc(fall_through)?,
                taken: mask(taken)?,
                ipdom: pc(ipdom)?,
            },
            ("nop" | "init" | "advance" | "branch", _) => {
                return Err((
                    first.column,
                    format!("wrong number of operands for `{}`", first.text),
                ))
            }
            (other, _) => return Err((first.column, format!("unknown operation `{other}`"))),
        };
        Ok((side, op))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_merge_scripts_parse_with_positions() {
        let cfg = HwConfig::small();
        let ops = split_merge("launch # go\n\n  split 0 ffff 0x10\nmerge 0\nend\n", &cfg).unwrap();
        assert_eq!(ops.len(), 4);
        assert_eq!(
            (ops[1].line, ops[1].text.as_str()),
            (3, "split 0 ffff 0x10")
        );
        let e = split_merge("launch\nsplit 0 zz\n", &cfg).unwrap_err();
        assert_eq!(e.to_string(), "2:9: mask `zz` is not a 64-bit hex number");
        let e = split_merge("launch\n  merge\n", &cfg).unwrap_err();
        assert_eq!(e.to_string(), "2:3: usage: merge CTX");
        let e = split_merge("end 1 2\n", &cfg).unwrap_err();
        assert_eq!(e.to_string(), "1:5: usage: end");
        let e = split_merge(&format!("launch {}\n", "f".repeat(10_000)), &cfg).unwrap_err();
        assert!(e.to_string().len() < 150, "{e}");
    }

    #[test]
    fn stack_scripts_parse_with_positions() {
        let ops = stack("init 0 100 ff\nbranch l 8 4 0f 20\n", true).unwrap();
        assert_eq!(ops[1].op.0, Side::L);
        let e = stack("init 0 100 ff\nbranch 8 4 0f 20\n", true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "2:8: `branch` on the dual-path stack needs a path, l or r"
        );
        let e = stack("init 0 100\n", false).unwrap_err();
        assert_eq!(e.to_string(), "1:1: wrong number of operands for `init`");
        let e = stack("advance 99999999999\n", false).unwrap_err();
        assert_eq!(e.to_string(), "1:9: PC `99999999999` does not fit 32 bits");
        let e = stack("\u{1b}[2J\n", false).unwrap_err();
        assert_eq!(e.to_string(), "1:1: unknown operation `\\x1b[2J`");
    }
}
