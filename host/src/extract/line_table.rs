//! Where each line of a kernel's assembly came from in its C source: clang's line table
//! (`.file N "dir" "name" md5 0x...` and `.loc N line column`, which pws compiles OpenCL C
//! with, docs/opencl.md), and the loops of the files it names ([`super::c_loops`]).
//!
//! A file is read only when its contents still have the MD5 sum clang recorded, so that
//! positions are never looked up in a source that changed since. A file that cannot be read,
//! or a table that is not there (hand-written assembly, `-g0` among the flags), leaves the
//! positions unknown, and the analysis concludes nothing from them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use md5::{Digest, Md5};
use pws_isa::input::{read_text, Kind};

use super::c_loops::{self, Pos, Scanned};

/// A position in one of the table's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    pub file: u32,
    pub pos: Pos,
}

/// A source file of the table, read and scanned.
#[derive(Debug)]
pub struct SourceFile {
    pub path: PathBuf,
    pub code: Scanned,
}

impl SourceFile {
    /// `path:line:col` of a position in this file, for messages.
    pub fn show(&self, p: Pos) -> String {
        format!("{}:{}:{}", self.path.display(), p.line, p.col)
    }
}

#[derive(Debug, Default)]
pub struct LineTable {
    files: HashMap<u32, SourceFile>,
    /// Per 1-based line of the assembly: the `.loc` in force there, if it names a position.
    at: Vec<Option<Loc>>,
}

impl LineTable {
    /// The table of the assembly `source`.
    pub fn new(source: &str) -> LineTable {
        let mut files = HashMap::new();
        let mut at = vec![None];
        let mut current = None;
        for line in source.lines() {
            let t = line.trim_start();
            if let Some(rest) = t.strip_prefix(".file") {
                if let Some((n, file)) = file_directive(rest) {
                    files.insert(n, file);
                }
            } else if let Some(rest) = t.strip_prefix(".loc") {
                current = loc_directive(rest);
            }
            at.push(current);
        }
        LineTable { files, at }
    }

    /// The source position of the assembly's (1-based) `line`, in a file that was read.
    pub fn at(&self, line: u32) -> Option<Loc> {
        self.at
            .get(line as usize)
            .copied()
            .flatten()
            .filter(|l| self.files.contains_key(&l.file))
    }

    pub fn file(&self, n: u32) -> Option<&SourceFile> {
        self.files.get(&n)
    }

    /// The files that were read, by number.
    pub fn files(&self) -> impl Iterator<Item = (u32, &SourceFile)> {
        self.files.iter().map(|(&n, f)| (n, f))
    }
}

/// `.loc FILE LINE [COLUMN] [flags]`: a position, or None for line 0 (code clang places at no
/// line) and what does not parse.
fn loc_directive(rest: &str) -> Option<Loc> {
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let mut words = rest.split_whitespace();
    let file = words.next()?.parse().ok()?;
    let line: u32 = words.next()?.parse().ok()?;
    let col = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
    (line > 0).then_some(Loc {
        file,
        pos: Pos { line, col },
    })
}

/// `.file N ["dir"] "name" md5 0x...`: the file, read and scanned if its sum matches.
fn file_directive(rest: &str) -> Option<(u32, SourceFile)> {
    let rest = rest.strip_prefix(char::is_whitespace)?.trim_start();
    let (n, mut rest) = rest.split_once(char::is_whitespace)?;
    let n: u32 = n.parse().ok()?;
    let mut names = Vec::new();
    while let Some((s, r)) = quoted(rest.trim_start()) {
        names.push(s);
        rest = r;
    }
    let sum = rest.trim().strip_prefix("md5")?.trim().strip_prefix("0x")?;
    let path = match names.as_slice() {
        [name] => PathBuf::from(name),
        [dir, name] => Path::new(dir).join(name),
        _ => return None,
    };
    let text = read_text(&path, Kind::OpenCl).ok()?;
    let digest: String = Md5::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    (digest.trim_start_matches('0') == sum.to_ascii_lowercase().trim_start_matches('0')).then(
        || {
            (
                n,
                SourceFile {
                    code: c_loops::scan(&text),
                    path,
                },
            )
        },
    )
}

/// A string in double quotes at the start of `s`, with the escapes LLVM writes (`\\`, `\"`,
/// octal `\NNN`), and the rest of `s`.
fn quoted(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let mut bytes = Vec::new();
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => return Some((String::from_utf8(bytes).ok()?, &body[i + 1..])),
            b'\\' => {
                let oct = b[i + 1..]
                    .iter()
                    .take(3)
                    .take_while(|c| (b'0'..=b'7').contains(c))
                    .count();
                if oct > 0 {
                    let v = b[i + 1..i + 1 + oct]
                        .iter()
                        .fold(0u32, |v, c| v * 8 + u32::from(c - b'0'));
                    bytes.push(u8::try_from(v).ok()?);
                    i += 1 + oct;
                } else {
                    bytes.push(*b.get(i + 1)?);
                    i += 2;
                }
            }
            c => {
                bytes.push(c);
                i += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "void f() {\n  for (;;) {\n    x++;\n  }\n}\n";

    /// The assembly of a kernel compiled from `dir/name` whose `.file` records `sum`.
    fn asm(dir: &Path, name: &str, sum: &str) -> String {
        format!(
            "\t.file\t0 \"{}\" \"{name}\" md5 0x{sum}\n\t.loc\t0 3 5 prologue_end\n\ts_nop 0\n\t.loc\t0 0 5\n\ts_nop 0\n\t.loc\t0 2 3 is_stmt 0\n\ts_endpgm\n",
            dir.display()
        )
    }

    fn md5_hex(text: &str) -> String {
        Md5::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn positions_come_from_the_loc_in_force() {
        let dir = std::env::temp_dir().join(format!("pws-line-table-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("k.cl"), SOURCE).unwrap();
        let table = LineTable::new(&asm(&dir, "k.cl", &md5_hex(SOURCE)));
        let pos = |line| table.at(line).map(|l| (l.pos.line, l.pos.col));
        assert_eq!(pos(1), None);
        assert_eq!(pos(3), Some((3, 5)));
        // Line 0: code at no line.
        assert_eq!(pos(5), None);
        assert_eq!(pos(7), Some((2, 3)));
        let file = table.file(0).unwrap();
        assert_eq!(file.code.loops.len(), 1);
        assert_eq!(
            file.show(Pos { line: 2, col: 3 }),
            format!("{}:2:3", dir.join("k.cl").display())
        );

        // A source that changed since clang read it is not looked at.
        let stale = LineTable::new(&asm(&dir, "k.cl", &md5_hex("other")));
        assert!(stale.file(0).is_none() && stale.at(3).is_none());
        // Nor one that is not there.
        let gone = LineTable::new(&asm(&dir, "gone.cl", &md5_hex(SOURCE)));
        assert!(gone.file(0).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn quoted_names_unescape() {
        assert_eq!(
            quoted(r#""a\\b\"c\101" rest"#),
            Some(("a\\b\"cA".to_string(), " rest"))
        );
        assert_eq!(quoted(r#""open"#), None);
        assert_eq!(quoted(r#""bad\"#), None);
        assert_eq!(
            loc_directive(" 1 7"),
            Some(Loc {
                file: 1,
                pos: Pos { line: 7, col: 0 }
            })
        );
        assert_eq!(loc_directive("x 1 7"), None);
        assert!(file_directive(" 1 \"k.cl\"").is_none(), "no sum: not read");
    }
}
