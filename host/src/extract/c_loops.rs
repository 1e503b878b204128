//! The loop statements of a C source (`for`, `while`, `do ... while`): where each starts and
//! ends, and where its controlling expressions are, as clang's line table names positions
//! (1-based line, 1-based byte column); and its function definitions and calls, by name, for
//! the loops that enclose a loop of a function inlined into them.
//!
//! A scan of statements, not a C parser: comments, string and character literals and
//! preprocessor lines are skipped, and a statement is a block, a loop, an `if`, a `switch`, a
//! label before a statement, or anything else up to its `;`. That is enough for what the
//! analysis asks of a source that clang compiled: which loop a `PWS_LOOP_BOUND` is in, and
//! which loops enclose it. A loop that a macro of the source writes is not seen; the analysis
//! then knows less and concludes nothing from it.

use std::collections::BTreeSet;

/// A position in a source file, as clang's `.loc` gives it; column 0 means "somewhere on the
/// line".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// A span of source, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: Pos,
    pub end: Pos,
}

impl Span {
    /// Whether `p` is in the span: None when `p` has no column and shares a line with an end.
    pub fn contains(&self, p: Pos) -> Option<bool> {
        if p.line < self.start.line || p.line > self.end.line {
            return Some(false);
        }
        if p.line > self.start.line && p.line < self.end.line {
            return Some(true);
        }
        if p.col == 0 {
            return None;
        }
        Some(self.start <= p && p <= self.end)
    }

    /// Whether `other` lies inside this span.
    pub fn encloses(&self, other: &Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// One loop statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CLoop {
    /// From its keyword (`for`, `while`, `do`) to the end of its statement.
    pub extent: Span,
    /// Its parenthesised control: a `for`'s init, test and step, a `while`'s or a
    /// `do`'s test.
    pub control: Span,
}

impl CLoop {
    /// Where the keyword is.
    pub fn at(&self) -> Pos {
        self.extent.start
    }
}

/// A function definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CFunction {
    pub name: String,
    /// Its body, from `{` to `}`.
    pub body: Span,
}

/// A name followed by `(` in code: a call, or a function-like macro's use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub name: String,
    pub at: Pos,
}

/// What the scan finds in a source.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scanned {
    /// The loop statements, in the order their statements end (inner loops first).
    pub loops: Vec<CLoop>,
    pub functions: Vec<CFunction>,
    pub calls: Vec<Call>,
}

/// The loops, functions and calls of `text`, whose lines `located` holds code (clang's line
/// table): they tell which branch of a preprocessor conditional was compiled
/// ([`dead_lines`]).
pub fn scan(text: &str, located: &BTreeSet<u32>) -> Scanned {
    let dead = dead_lines(text, located);
    let live: String = text
        .split_inclusive('\n')
        .zip(dead.iter().chain(std::iter::repeat(&false)))
        .map(|(l, &d)| if d { "\n" } else { l })
        .collect();
    let tokens = tokens(&live);
    let calls = tokens
        .windows(2)
        .filter_map(|w| match (&w[0].tok, &w[1].tok) {
            (Tok::Word(name), Tok::Punct(b'(')) if !NOT_CALLS.contains(&name.as_str()) => {
                Some(Call {
                    name: name.clone(),
                    at: w[0].start,
                })
            }
            _ => None,
        })
        .collect();
    let mut scan = Scan {
        tokens,
        i: 0,
        depth: 0,
        loops: Vec::new(),
        functions: Vec::new(),
    };
    while scan.i < scan.tokens.len() {
        if scan.statement().is_none() {
            break;
        }
        // An unmatched `}` at the top level: step over it.
        if scan.peek_punct(b'}') {
            scan.i += 1;
        }
    }
    Scanned {
        loops: scan.loops,
        functions: scan.functions,
        calls,
    }
}

/// Per 0-based line of `text`: in a branch of a preprocessor conditional that was not
/// compiled. Of the branches of one `#if` ... `#endif`, one is compiled: the one that holds a
/// line of code, where one does; else a branch of `#if 0` is not, and the `#else` of `#if 1`
/// is not. Other branches are kept (the scan may then see loops of both).
fn dead_lines(text: &str, located: &BTreeSet<u32>) -> Vec<bool> {
    let lines: Vec<&str> = text.lines().collect();
    let mut dead = vec![false; lines.len()];
    // Open groups: each branch's (directive line, condition).
    let mut open: Vec<Vec<(usize, String)>> = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        let Some(d) = l.trim_start().strip_prefix('#') else {
            continue;
        };
        let d = d.trim_start();
        let word = d
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("");
        let cond = d[word.len()..].trim().to_string();
        match word {
            "if" | "ifdef" | "ifndef" => open.push(vec![(k, format!("{word} {cond}"))]),
            "elif" | "else" => {
                if let Some(g) = open.last_mut() {
                    g.push((k, word.to_string()));
                }
            }
            "endif" => {
                let Some(g) = open.pop() else { continue };
                let ends: Vec<usize> = g.iter().skip(1).map(|&(at, _)| at).chain([k]).collect();
                let bodies: Vec<(usize, usize)> = g
                    .iter()
                    .zip(&ends)
                    .map(|(&(at, _), &end)| (at + 1, end))
                    .collect();
                let has_code = |&(a, b): &(usize, usize)| {
                    located.range(a as u32 + 1..=b as u32).next().is_some()
                };
                let compiled: Vec<usize> = (0..bodies.len())
                    .filter(|&i| has_code(&bodies[i]))
                    .collect();
                let gone: Vec<usize> = match (compiled.as_slice(), g[0].1.as_str()) {
                    ([one], _) => (0..bodies.len()).filter(|i| i != one).collect(),
                    ([], "if 0") => vec![0],
                    ([], "if 1") => (1..bodies.len()).collect(),
                    _ => Vec::new(),
                };
                for i in gone {
                    let (a, b) = bodies[i];
                    dead[a..b].iter_mut().for_each(|x| *x = true);
                }
            }
            _ => {}
        }
    }
    dead
}

/// The keywords that start a statement the scan follows.
const STATEMENTS: &[&str] = &["for", "while", "do", "if", "switch"];

/// Words before a `(` that are no call.
const NOT_CALLS: &[&str] = &[
    "if",
    "for",
    "while",
    "switch",
    "return",
    "sizeof",
    "__attribute__",
    "__attribute",
    "__asm__",
    "asm",
    "__asm",
    "_Pragma",
    "defined",
];

/// Nesting deeper than this ends the scan (clang's own limit on brackets is 256).
const MAX_DEPTH: usize = 1024;

#[derive(Debug, PartialEq, Eq)]
enum Tok {
    Word(String),
    Punct(u8),
}

#[derive(Debug)]
struct Token {
    tok: Tok,
    start: Pos,
    end: Pos,
}

fn tokens(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let mut line_start = true;
    // Advances over `n` bytes, counting lines.
    let step = |i: &mut usize, line: &mut u32, col: &mut u32, n: usize| {
        for _ in 0..n {
            if *i < b.len() && b[*i] == b'\n' {
                *line += 1;
                *col = 1;
            } else {
                *col += 1;
            }
            *i += 1;
        }
    };
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = true;
            step(&mut i, &mut line, &mut col, 1);
            continue;
        }
        if c.is_ascii_whitespace() {
            step(&mut i, &mut line, &mut col, 1);
            continue;
        }
        if c == b'#' && line_start {
            // A preprocessor line, with its continuations.
            while i < b.len() && b[i] != b'\n' {
                let n = if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                step(&mut i, &mut line, &mut col, n);
            }
            continue;
        }
        line_start = false;
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                step(&mut i, &mut line, &mut col, 1);
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            step(&mut i, &mut line, &mut col, 2);
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                step(&mut i, &mut line, &mut col, 1);
            }
            let n = 2.min(b.len() - i);
            step(&mut i, &mut line, &mut col, n);
            continue;
        }
        let start = Pos { line, col };
        if c == b'"' || c == b'\'' {
            step(&mut i, &mut line, &mut col, 1);
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                let n = if b[i] == b'\\' { 2.min(b.len() - i) } else { 1 };
                step(&mut i, &mut line, &mut col, n);
            }
            let end = Pos { line, col };
            let n = usize::from(i < b.len());
            step(&mut i, &mut line, &mut col, n);
            out.push(Token {
                tok: Tok::Word(String::new()),
                start,
                end,
            });
            continue;
        }
        if c.is_ascii_alphanumeric()
            || c == b'_'
            || c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)
        {
            let from = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                step(&mut i, &mut line, &mut col, 1);
            }
            out.push(Token {
                tok: Tok::Word(text[from..i].to_string()),
                start,
                end: Pos { line, col: col - 1 },
            });
            continue;
        }
        // Bytes of a multi-byte character are punctuation the scan does not look at.
        step(&mut i, &mut line, &mut col, 1);
        out.push(Token {
            tok: Tok::Punct(c),
            start,
            end: start,
        });
    }
    out
}

struct Scan {
    tokens: Vec<Token>,
    i: usize,
    depth: usize,
    loops: Vec<CLoop>,
    functions: Vec<CFunction>,
}

impl Scan {
    fn peek_punct(&self, p: u8) -> bool {
        matches!(self.tokens.get(self.i), Some(Token { tok: Tok::Punct(q), .. }) if *q == p)
    }

    fn next_is_paren(&self) -> bool {
        matches!(
            self.tokens.get(self.i + 1).map(|t| &t.tok),
            Some(Tok::Punct(b'('))
        )
    }

    fn peek_word(&self, w: &str) -> bool {
        matches!(self.tokens.get(self.i), Some(Token { tok: Tok::Word(v), .. }) if v == w)
    }

    /// The end of the token before the current one.
    fn last_end(&self) -> Pos {
        self.tokens[self.i.saturating_sub(1).min(self.tokens.len() - 1)].end
    }

    /// One statement from the current token; None when the scan must stop (too deep).
    fn statement(&mut self) -> Option<()> {
        self.nested(Scan::statement_inner)
    }

    /// `scan` one level deeper; None past [`MAX_DEPTH`].
    fn nested(&mut self, scan: fn(&mut Scan) -> Option<()>) -> Option<()> {
        self.depth += 1;
        let r = if self.depth > MAX_DEPTH {
            None
        } else {
            scan(self)
        };
        self.depth -= 1;
        r
    }

    fn statement_inner(&mut self) -> Option<()> {
        let Some(t) = self.tokens.get(self.i) else {
            return Some(());
        };
        let start = t.start;
        let word = match &t.tok {
            Tok::Word(w) => Ok(w.clone()),
            Tok::Punct(p) => Err(*p),
        };
        match word {
            Err(b'{') => {
                self.i += 1;
                self.block_rest()
            }
            Err(b';') => {
                self.i += 1;
                Some(())
            }
            Err(b'}') => Some(()),
            Ok(w) => match w.as_str() {
                "for" | "while" => {
                    self.i += 1;
                    let control = self.parens()?;
                    self.statement()?;
                    if let Some(control) = control {
                        self.push(start, control);
                    }
                    Some(())
                }
                "do" => {
                    self.i += 1;
                    self.statement()?;
                    if self.peek_word("while") {
                        self.i += 1;
                        let control = self.parens()?;
                        if self.peek_punct(b';') {
                            self.i += 1;
                        }
                        if let Some(control) = control {
                            self.push(start, control);
                        }
                    }
                    Some(())
                }
                "if" | "switch" => {
                    self.i += 1;
                    self.parens()?;
                    self.statement()?;
                    if w == "if" && self.peek_word("else") {
                        self.i += 1;
                        self.statement()?;
                    }
                    Some(())
                }
                "else" => {
                    self.i += 1;
                    self.statement()
                }
                // `__attribute__((opencl_unroll_hint)) for ...`, `_Pragma("unroll") for ...`.
                "__attribute__" | "__attribute" | "_Pragma" if self.next_is_paren() => {
                    self.i += 1;
                    self.parens()?;
                    self.statement()
                }
                "case" | "default" => {
                    while self.i < self.tokens.len() && !self.peek_punct(b':') {
                        self.i += 1;
                    }
                    self.i += 1;
                    self.statement()
                }
                // A macro before a statement (`UNROLL for ...`, `#define UNROLL _Pragma(...)`):
                // no C statement has a name right before a keyword.
                _ if matches!(
                    self.tokens.get(self.i + 1).map(|t| &t.tok),
                    Some(Tok::Word(k)) if STATEMENTS.contains(&k.as_str())
                ) =>
                {
                    self.i += 1;
                    self.statement()
                }
                _ if matches!(
                    self.tokens.get(self.i + 1),
                    Some(Token {
                        tok: Tok::Punct(b':'),
                        ..
                    })
                ) =>
                {
                    self.i += 2;
                    self.statement()
                }
                _ => self.simple(),
            },
            Err(_) => self.simple(),
        }
    }

    fn push(&mut self, start: Pos, control: Span) {
        self.loops.push(CLoop {
            extent: Span {
                start,
                end: self.last_end(),
            },
            control,
        });
    }

    /// Statements up to and over the `}` that closes a block.
    fn block_rest(&mut self) -> Option<()> {
        while self.i < self.tokens.len() && !self.peek_punct(b'}') {
            let before = self.i;
            self.statement()?;
            if self.i == before {
                self.i += 1;
            }
        }
        self.i += 1;
        Some(())
    }

    /// A parenthesised control from the current `(` to its `)`, stepped over; None in the
    /// inner option when there is none.
    fn parens(&mut self) -> Option<Option<Span>> {
        if !self.peek_punct(b'(') {
            return Some(None);
        }
        let start = self.tokens[self.i].start;
        let mut depth = 0usize;
        while let Some(t) = self.tokens.get(self.i) {
            self.i += 1;
            match t.tok {
                Tok::Punct(b'(' | b'[' | b'{') => depth += 1,
                Tok::Punct(b')' | b']' | b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(Some(Span {
                            start,
                            end: self.last_end(),
                        }));
                    }
                }
                _ => {}
            }
        }
        Some(None)
    }

    /// A declaration or expression statement, over its `;`, or up to a `}` that closes the
    /// enclosing block. A `{` outside brackets opens a block whose statements are scanned
    /// too: an initializer's, a struct's, or a function's body (at the top level, where
    /// the scan then reads the next definition's head as part of this statement, which holds
    /// no loop).
    fn simple(&mut self) -> Option<()> {
        let mut depth = 0usize;
        // The last name before a `(` outside brackets: a function's, when a block follows
        // its parameters.
        let mut name: Option<String> = None;
        while let Some(t) = self.tokens.get(self.i) {
            match &t.tok {
                Tok::Punct(b';') if depth == 0 => {
                    self.i += 1;
                    return Some(());
                }
                Tok::Punct(b'}') if depth == 0 => return Some(()),
                Tok::Punct(b'{') if depth == 0 => {
                    let start = t.start;
                    let after_params = matches!(
                        self.tokens.get(self.i.wrapping_sub(1)).map(|t| &t.tok),
                        Some(Tok::Punct(b')'))
                    );
                    self.i += 1;
                    self.nested(Scan::block_rest)?;
                    if let (true, Some(name)) = (after_params, name.take()) {
                        self.functions.push(CFunction {
                            name,
                            body: Span {
                                start,
                                end: self.last_end(),
                            },
                        });
                    }
                }
                Tok::Word(w) if depth == 0 && !NOT_CALLS.contains(&w.as_str()) => {
                    if self.next_is_paren() {
                        name = Some(w.clone());
                    }
                    self.i += 1;
                }
                Tok::Punct(b'(' | b'[' | b'{') => {
                    depth += 1;
                    self.i += 1;
                }
                Tok::Punct(b')' | b']' | b'}') => {
                    depth = depth.saturating_sub(1);
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }

    /// A position as (line, col).
    type At = (u32, u32);

    /// (keyword, control start, control end, statement end) of each loop.
    fn summary(text: &str) -> Vec<(At, At, At, At)> {
        let p = |p: Pos| (p.line, p.col);
        scan(text, &BTreeSet::new())
            .loops
            .iter()
            .map(|l| {
                (
                    p(l.extent.start),
                    p(l.control.start),
                    p(l.control.end),
                    p(l.extent.end),
                )
            })
            .collect()
    }

    #[test]
    fn nested_loops_with_and_without_braces() {
        let src = "__kernel void k(int n) {\n  for (int i = 0; i < n; i++)\n    for (int j = 0; j < i; j++) { s += j; }\n  while (x > 1) x >>= 1;\n  do { y++; } while (y < 9);\n}\n";
        assert_eq!(
            summary(src),
            vec![
                ((3, 5), (3, 9), (3, 31), (3, 43)),
                ((2, 3), (2, 7), (2, 29), (3, 43)),
                ((4, 3), (4, 9), (4, 15), (4, 24)),
                ((5, 3), (5, 21), (5, 27), (5, 28)),
            ]
        );
    }

    #[test]
    fn comments_strings_and_preprocessor_lines_hold_no_loop() {
        let src = "#define LOOP for (;;) \\\n  { }\n// for (;;) {}\n/* while (1) { */\nvoid f() { char *s = \"for (;;) {\"; char c = '{'; }\nvoid g() {\n  for (;;) { break; }\n}\n";
        assert_eq!(summary(src), vec![((7, 3), (7, 7), (7, 10), (7, 21))]);
    }

    #[test]
    fn statements_around_loops() {
        // if/else, switch with cases, labels, initializers and struct bodies do not end the
        // scan of the function around them.
        let src = "typedef struct { int a; int b; } P;\nint t[2] = {1, 2};\nvoid f(int n) {\n  P p = {1, 2};\n  if (n) x = 1; else for (;;) {}\n  switch (n) { case 1: while (n) n--; break; default: ; }\n  out: do n++; while (n < 4);\n}\n";
        let at: Vec<(u32, u32)> = scan(src, &BTreeSet::new())
            .loops
            .iter()
            .map(|l| (l.at().line, l.at().col))
            .collect();
        assert_eq!(at, vec![(5, 22), (6, 24), (7, 8)]);
    }

    #[test]
    fn functions_and_calls_are_found() {
        let src = "static inline __attribute__((always_inline)) int step(int x) {\n  return x + 1;\n}\nstruct S { int a; } s = { 1 };\n__kernel void k(__global int *o) {\n  for (int i = 0; i < 3; i++) o[i] = step((int)i) + sizeof(int);\n}\n";
        let found = scan(src, &BTreeSet::new());
        let functions: Vec<(&str, u32, u32)> = found
            .functions
            .iter()
            .map(|f| (f.name.as_str(), f.body.start.line, f.body.end.line))
            .collect();
        assert_eq!(functions, vec![("step", 1, 3), ("k", 5, 7)]);
        let calls: Vec<(&str, u32)> = found
            .calls
            .iter()
            .map(|c| (c.name.as_str(), c.at.line))
            .collect();
        assert_eq!(calls, vec![("step", 1), ("k", 5), ("step", 6)]);
    }

    #[test]
    fn uncompiled_branches_and_statement_prefixes() {
        // Line 4 holds code: the `#ifdef` branch was compiled, the `#else` one was not.
        let src = "void f(int x) {\n  while (x > 9) {\n#ifdef HALVE\n  while (x > 1) {\n#else\n  while (x > 5) {\n#endif\n    x--; }\n#if 0\n  for (;;) {}\n#endif\n  __attribute__((opencl_unroll_hint)) for (int i = 0; i < 4; i++) x++;\n  _Pragma(\"unroll\") UNROLL for (int i = 0; i < 4; i++) x++;\n  x = 0;\n}}\n";
        let at = |located: &[u32]| -> Vec<u32> {
            scan(src, &located.iter().copied().collect())
                .loops
                .iter()
                .map(|l| l.at().line)
                .collect()
        };
        assert_eq!(at(&[2, 4]), vec![4, 12, 13, 2]);
        assert_eq!(at(&[2, 6]), vec![6, 12, 13, 2]);
        // Neither branch holds code: both are kept; `#if 0` never is.
        assert_eq!(at(&[2]), vec![6, 12, 13, 4, 2]);
    }

    #[test]
    fn spans_contain_positions() {
        let l = scan(
            "void f() {\n  for (;;) {\n    x++;\n  }\n}\n",
            &BTreeSet::new(),
        )
        .loops[0];
        assert_eq!(l.extent.contains(pos(3, 5)), Some(true));
        assert_eq!(l.extent.contains(pos(3, 0)), Some(true));
        assert_eq!(l.extent.contains(pos(2, 1)), Some(false));
        assert_eq!(l.extent.contains(pos(2, 3)), Some(true));
        // No column on a line the loop shares with other code: unknown.
        assert_eq!(l.extent.contains(pos(2, 0)), None);
        assert_eq!(l.extent.contains(pos(5, 1)), Some(false));
        assert!(l.extent.encloses(&l.control));
    }

    #[test]
    fn hostile_text_ends_the_scan_without_panicking() {
        let deep = "void f() {".to_string() + &"{".repeat(100_000) + "for (;;) {}";
        assert!(scan(&deep, &BTreeSet::new()).loops.is_empty());
        for s in [
            "for",
            "for (",
            "do",
            "do x; while",
            "}}}} for (;;) x;",
            "\"",
            "/*",
            "'",
            "case",
        ] {
            scan(s, &BTreeSet::new());
        }
        assert_eq!(scan("}}}} for (;;) x;", &BTreeSet::new()).loops.len(), 1);
    }
}
