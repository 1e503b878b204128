//! Where each line of a kernel's assembly came from in its C source: clang's line table
//! (`.file N "dir" "name" md5 0x...` and `.loc N line column`, [`pws_isa::lines`], which pws
//! compiles OpenCL C with, docs/opencl.md), and the loops of the files it names
//! ([`super::c_loops`]).
//!
//! A file is read only when its contents still have the MD5 sum clang recorded, so that
//! positions are never looked up in a source that changed since. A file that cannot be read,
//! or a table that is not there (hand-written assembly, `-g0` among the flags), leaves the
//! positions unknown, and the analysis concludes nothing from them.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use md5::{Digest, Md5};
use pws_isa::input::{read_text, Kind};
use pws_isa::lines::{directive, Directive, FileEntry};

use super::c_loops::{self, CLoop, Call, Pos, Scanned};

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

    /// The file `.file` names, read and scanned if its contents have the MD5 sum it records;
    /// `located`: its lines that hold code.
    fn read(
        entry: &FileEntry,
        comp_dir: Option<&str>,
        located: &BTreeSet<u32>,
    ) -> Option<SourceFile> {
        let path = entry.path(comp_dir);
        let text = read_text(&path, Kind::OpenCl).ok()?;
        let sum: String = Md5::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        (entry.md5.as_deref() == Some(sum.as_str())).then(|| SourceFile {
            code: c_loops::scan(&text, located),
            path,
        })
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
        let mut entries = Vec::new();
        let mut at = vec![None];
        let mut current = None;
        for line in source.lines() {
            match directive(line) {
                Some(Directive::File(entry)) => entries.push(entry),
                Some(Directive::Loc(loc)) => {
                    current = loc.map(|l| Loc {
                        file: l.file,
                        pos: Pos {
                            line: l.line,
                            col: l.col,
                        },
                    })
                }
                None => {}
            }
            at.push(current);
        }
        let comp_dir = entries
            .iter()
            .find(|e| e.number == 0)
            .and_then(|e| e.dir.clone());
        let files = entries
            .iter()
            .filter_map(|entry| {
                let located: BTreeSet<u32> = at
                    .iter()
                    .flatten()
                    .filter(|l| l.file == entry.number)
                    .map(|l| l.pos.line)
                    .collect();
                let file = SourceFile::read(entry, comp_dir.as_deref(), &located)?;
                Some((entry.number, file))
            })
            .collect();
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

    /// The innermost loop statement of file `f` around position `pos`.
    pub fn loop_at(&self, f: u32, pos: Pos) -> Option<&CLoop> {
        (self.file(f)?.code.loops.iter())
            .filter(|c| c.extent.contains(pos) == Some(true))
            .max_by_key(|c| c.at())
    }

    /// The name of the function whose body holds position `pos` of file `f`.
    pub fn function_at(&self, f: u32, pos: Pos) -> Option<&str> {
        (self.file(f)?.code.functions.iter())
            .find(|g| g.body.contains(pos) == Some(true))
            .map(|g| g.name.as_str())
    }

    /// The calls of the function `name` in every file read, with their file.
    pub fn calls_to<'a>(&'a self, name: &'a str) -> impl Iterator<Item = (u32, &'a Call)> + 'a {
        self.files().flat_map(move |(f, sf)| {
            (sf.code.calls.iter())
                .filter(move |c| c.name == name)
                .map(move |c| (f, c))
        })
    }

    /// The functions that call `name`, directly or through others, and `name` itself.
    pub fn callers_of<'a>(&'a self, name: &'a str) -> BTreeSet<&'a str> {
        let mut callers = BTreeSet::from([name]);
        let mut work = vec![name];
        while let Some(g) = work.pop() {
            for (f, call) in self.calls_to(g) {
                if let Some(h) = self.function_at(f, call.at) {
                    if callers.insert(h) {
                        work.push(h);
                    }
                }
            }
        }
        callers
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

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
}
