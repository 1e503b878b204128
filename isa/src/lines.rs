//! clang's line table in assembly: `.file N "dir" "name" md5 0x...` and `.loc N LINE COLUMN`,
//! which pws compiles OpenCL C with ([`crate::opencl`]). The assembler names the C position of
//! an assembly line in its errors; the host reads the sources the table names.

/// A `.file` directive: one source file of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    pub number: u32,
    /// The compilation's directory, when the directive gives one.
    pub dir: Option<String>,
    /// The file as clang was given it (relative to `dir`, or absolute).
    pub name: String,
    /// Its contents' MD5 sum as clang read it, in lowercase hexadecimal.
    pub md5: Option<String>,
}

impl FileEntry {
    /// Where the file is: `name` in `dir`, and a relative `dir` in `comp_dir`, the
    /// compilation's directory (file 0's), as DWARF 5 says.
    pub fn path(&self, comp_dir: Option<&str>) -> std::path::PathBuf {
        let base = std::path::Path::new(comp_dir.unwrap_or(""));
        match &self.dir {
            Some(dir) => base.join(dir).join(&self.name),
            None => base.join(&self.name),
        }
    }
}

/// A `.loc` directive: the source position of the instructions after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    /// 0: somewhere on the line.
    pub col: u32,
}

/// `.file`'s operands (the text after the directive's name).
pub fn file_directive(rest: &str) -> Option<FileEntry> {
    let rest = rest.strip_prefix(char::is_whitespace)?.trim_start();
    let (n, mut rest) = rest.split_once(char::is_whitespace)?;
    let number = n.parse().ok()?;
    let mut names = Vec::new();
    while let Ok((s, r)) = crate::asm::parse_string(rest.trim_start()) {
        names.push(String::from_utf8(s).ok()?);
        rest = r;
    }
    let md5 = rest
        .trim()
        .strip_prefix("md5")
        .and_then(|r| r.trim().strip_prefix("0x"))
        .map(|h| format!("{:0>32}", h.to_ascii_lowercase()));
    let (dir, name) = match names.len() {
        1 => (None, names.pop()?),
        2 => {
            let name = names.pop()?;
            (names.pop(), name)
        }
        _ => return None,
    };
    Some(FileEntry {
        number,
        dir,
        name,
        md5,
    })
}

/// `.loc`'s operands; None for line 0 (code clang places at no line) and what does not parse.
pub fn loc_directive(rest: &str) -> Option<Loc> {
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let mut words = rest.split_whitespace();
    let file = words.next()?.parse().ok()?;
    let line = words.next()?.parse().ok()?;
    let col = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
    (line > 0).then_some(Loc { file, line, col })
}

/// The directive a line of assembly holds, if it is `.file` or `.loc`.
pub enum Directive {
    File(FileEntry),
    Loc(Option<Loc>),
}

/// Reads `.file` and `.loc` off one line of assembly.
pub fn directive(line: &str) -> Option<Directive> {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix(".file") {
        file_directive(rest).map(Directive::File)
    } else {
        t.strip_prefix(".loc")
            .filter(|r| r.starts_with(char::is_whitespace))
            .map(|r| Directive::Loc(loc_directive(r)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_read_as_clang_writes_them() {
        let f = file_directive(" 0 \"/tmp/a b\" \"k\\\\.cl\" md5 0xab01").unwrap();
        assert_eq!(f.number, 0);
        assert_eq!(
            f.path(None),
            std::path::Path::new("/tmp/a b").join("k\\.cl")
        );
        let h = file_directive(" 2 \".\" \"h.h\"").unwrap();
        assert_eq!(h.path(Some("/src")), std::path::Path::new("/src/./h.h"));
        assert_eq!(f.md5.as_deref(), Some("0000000000000000000000000000ab01"));
        let g = file_directive("\t1 \"pws.h\"").unwrap();
        assert_eq!((g.dir, g.name.as_str(), g.md5), (None, "pws.h", None));
        assert!(file_directive(" x \"a\"").is_none());
        assert!(file_directive(" 1").is_none());
        assert_eq!(
            loc_directive("\t0 12 7 prologue_end"),
            Some(Loc {
                file: 0,
                line: 12,
                col: 7
            })
        );
        assert_eq!(loc_directive(" 0 0 7"), None);
        assert_eq!(loc_directive(" 0 9").map(|l| l.col), Some(0));
        assert!(matches!(
            directive("\t.loc\t0 0 3"),
            Some(Directive::Loc(None))
        ));
        assert!(directive("\t.local x").is_none());
    }
}
