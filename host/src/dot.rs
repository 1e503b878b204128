//! Strict reader for the DOT subset that `pws wcet` takes as CFG input (design.md decision 8),
//! and the matching writer.
//!
//! We parse DOT ourselves instead of using a crate: the available parsers are GPL-licensed
//! (dot-parser) or pull in a PEG runtime plus Graphviz process spawning (graphviz-rust), and
//! neither reports line:column positions for the semantic errors we care about (a missing
//! `wcet`, an unknown attribute, an attribute on an edge).
//!
//! Accepted: `[strict] digraph [ID] { stmt* }` with node statements `ID [attrs]`, edge chains
//! `ID -> ID -> ...`, graph/node/edge attribute statements and `ID = ID` graph attributes whose
//! keys are Graphviz display attributes, `//`, `/* */` and `#`-line comments. IDs are bare
//! identifiers, numerals or double-quoted strings. Rejected with a positioned error: undirected
//! graphs, subgraphs, ports, HTML strings, attributes on edges, unknown node attributes.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::cfg::{Block, BlockKind, Cfg};
use crate::error::{HostError, Result};

/// Graphviz attributes that only change the drawing; we accept and ignore them so that a CFG
/// written for Graphviz can be analysed unchanged.
const DISPLAY_ATTRS: &[&str] = &[
    "label",
    "xlabel",
    "shape",
    "style",
    "color",
    "fillcolor",
    "fontcolor",
    "fontname",
    "fontsize",
    "penwidth",
    "width",
    "height",
    "tooltip",
    "pos",
    "rankdir",
    "rank",
    "splines",
    "nodesep",
    "ranksep",
    "bgcolor",
    "margin",
    "comment",
];

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    /// An id, borrowed from the text unless a quoted string had escapes.
    Id(Cow<'a, str>),
    Arrow,
    UndirectedEdge,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Eq,
    Semi,
    Comma,
    Colon,
    Eof,
}

#[derive(Debug, Clone)]
struct Token<'a> {
    tok: Tok<'a>,
    line: usize,
    col: usize,
}

/// Tokens of a DOT text, borrowing the ids (a CFG of 10^5 nodes is megabytes of DOT).
struct Lexer<'a> {
    text: &'a str,
    /// Byte offset of the next character.
    i: usize,
    /// Nothing but blanks since the last newline (`#` lines are comments only there).
    line_start: bool,
    line: usize,
    col: usize,
    file: &'a str,
}

impl<'a> Lexer<'a> {
    fn err<T>(&self, line: usize, col: usize, msg: impl Into<String>) -> Result<T> {
        syntax(self.file, line, col, msg.into())
    }

    fn peek(&self, k: usize) -> Option<char> {
        match self.text.as_bytes().get(self.i + k) {
            Some(&b) if b.is_ascii() && (k == 0 || self.text.as_bytes()[self.i].is_ascii()) => {
                Some(char::from(b))
            }
            Some(_) => self.text[self.i..].chars().nth(k),
            None => None,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.i += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    /// The next token (`Eof` at the end, and again after it).
    fn token(&mut self) -> Result<Token<'a>> {
        let bytes = self.text.as_bytes();
        loop {
            // ASCII blanks without decoding characters: most of a large CFG file.
            while let Some(&b) = bytes.get(self.i) {
                match b {
                    b'\n' => {
                        self.i += 1;
                        self.line += 1;
                        self.col = 1;
                        self.line_start = true;
                    }
                    b' ' | b'\t' | b'\r' => {
                        self.i += 1;
                        self.col += 1;
                    }
                    _ => break,
                }
            }
            let (line, col) = (self.line, self.col);
            let Some(c) = self.peek(0) else {
                return Ok(Token {
                    tok: Tok::Eof,
                    line,
                    col,
                });
            };
            if c == '\n' {
                self.bump();
                self.line_start = true;
                continue;
            }
            if c.is_whitespace() {
                self.bump();
                continue;
            }
            // `#` lines are C-preprocessor output lines in Graphviz; only at a line start.
            if c == '#' && self.line_start {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.bump();
                }
                continue;
            }
            self.line_start = false;
            if c == '/' && self.peek(1) == Some('/') {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.bump();
                }
                continue;
            }
            if c == '/' && self.peek(1) == Some('*') {
                self.bump();
                self.bump();
                loop {
                    match self.peek(0) {
                        None => return self.err(line, col, "unterminated /* comment"),
                        Some('*') if self.peek(1) == Some('/') => {
                            self.bump();
                            self.bump();
                            break;
                        }
                        Some(_) => {
                            self.bump();
                        }
                    }
                }
                continue;
            }
            let tok = match c {
                '{' => Tok::LBrace,
                '}' => Tok::RBrace,
                '[' => Tok::LBracket,
                ']' => Tok::RBracket,
                '=' => Tok::Eq,
                ';' => Tok::Semi,
                ',' => Tok::Comma,
                ':' => Tok::Colon,
                '<' => return self.err(line, col, "HTML strings (<...>) are not supported"),
                '-' if self.peek(1) == Some('>') => {
                    self.bump();
                    Tok::Arrow
                }
                '-' if self.peek(1) == Some('-') => {
                    self.bump();
                    Tok::UndirectedEdge
                }
                '"' => {
                    self.bump();
                    let mut s = String::new();
                    loop {
                        match self.bump() {
                            None => return self.err(line, col, "unterminated string"),
                            Some('"') => break,
                            Some('\\') => match self.bump() {
                                Some('"') => s.push('"'),
                                Some('\n') => {}
                                Some(other) => {
                                    s.push('\\');
                                    s.push(other);
                                }
                                None => return self.err(line, col, "unterminated string"),
                            },
                            Some(ch) => s.push(ch),
                        }
                    }
                    return Ok(Token {
                        tok: Tok::Id(Cow::Owned(s)),
                        line,
                        col,
                    });
                }
                c if c.is_alphanumeric() || c == '_' || c == '.' || c == '-' => {
                    let start = self.i;
                    loop {
                        match bytes.get(self.i) {
                            Some(&b)
                                if b.is_ascii_alphanumeric()
                                    || b == b'_'
                                    || b == b'.'
                                    || (b == b'-' && self.i == start) =>
                            {
                                self.i += 1;
                                self.col += 1;
                            }
                            Some(&b) if !b.is_ascii() => match self.peek(0) {
                                Some(ch) if ch.is_alphanumeric() => {
                                    self.bump();
                                }
                                _ => break,
                            },
                            _ => break,
                        }
                    }
                    return Ok(Token {
                        tok: Tok::Id(Cow::Borrowed(&self.text[start..self.i])),
                        line,
                        col,
                    });
                }
                other => return self.err(line, col, format!("unexpected character {other:?}")),
            };
            self.bump();
            return Ok(Token { tok, line, col });
        }
    }
}

/// FxHash (rustc's): node ids are looked up once per mention, hundreds of thousands of times
/// in a large CFG, and SipHash's collision resistance buys nothing for a file the user wrote.
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let word = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// An attribute value with its line and column.
type Value<'a> = (Cow<'a, str>, usize, usize);

/// A node as written in the file, before the CFG is checked.
#[derive(Debug, Default)]
struct RawNode<'a> {
    /// The CFG attributes, in the order of [`CFG_ATTRS`].
    attrs: [Option<Value<'a>>; 4],
    line: usize,
    col: usize,
}

/// The node attributes the analysis reads.
const CFG_ATTRS: [&str; 4] = ["wcet", "kind", "split", "loop_bound"];

impl<'a> RawNode<'a> {
    fn get(&self, key: &str) -> Option<&Value<'a>> {
        let i = CFG_ATTRS.iter().position(|k| *k == key)?;
        self.attrs[i].as_ref()
    }
}

/// A recursive-descent parser with one token of look-ahead, reading the lexer as it goes.
struct Parser<'a> {
    lexer: Lexer<'a>,
    cur: Token<'a>,
    file: &'a str,
    nodes: Vec<(Cow<'a, str>, RawNode<'a>)>,
    index: HashMap<Cow<'a, str>, usize, BuildHasherDefault<Fx>>,
    edges: Vec<(usize, usize)>,
}

impl<'a> Parser<'a> {
    fn err<T>(&self, t: &Token, msg: impl Into<String>) -> Result<T> {
        syntax(self.file, t.line, t.col, msg.into())
    }

    fn peek(&self) -> &Token<'a> {
        &self.cur
    }

    fn next(&mut self) -> Result<Token<'a>> {
        if self.cur.tok == Tok::Eof {
            return Ok(self.cur.clone());
        }
        let t = self.lexer.token()?;
        Ok(std::mem::replace(&mut self.cur, t))
    }

    fn describe(t: &Tok) -> String {
        match t {
            Tok::Id(s) => format!("'{}'", pws_isa::diag::value(s)),
            Tok::Arrow => "'->'".into(),
            Tok::UndirectedEdge => "'--'".into(),
            Tok::LBrace => "'{'".into(),
            Tok::RBrace => "'}'".into(),
            Tok::LBracket => "'['".into(),
            Tok::RBracket => "']'".into(),
            Tok::Eq => "'='".into(),
            Tok::Semi => "';'".into(),
            Tok::Comma => "','".into(),
            Tok::Colon => "':'".into(),
            Tok::Eof => "end of file".into(),
        }
    }

    fn expect(&mut self, want: Tok<'a>) -> Result<Token<'a>> {
        let t = self.next()?;
        if t.tok == want {
            Ok(t)
        } else {
            self.err(
                &t,
                format!(
                    "expected {}, found {}",
                    Self::describe(&want),
                    Self::describe(&t.tok)
                ),
            )
        }
    }

    fn id(&mut self, what: &str) -> Result<(Cow<'a, str>, Token<'a>)> {
        let t = self.next()?;
        match &t.tok {
            Tok::Id(s) => Ok((s.clone(), t.clone())),
            other => self.err(
                &t,
                format!("expected {what}, found {}", Self::describe(other)),
            ),
        }
    }

    fn keyword(t: &Tok, kw: &str) -> bool {
        matches!(t, Tok::Id(s) if s.eq_ignore_ascii_case(kw))
    }

    fn node(&mut self, name: &Cow<'a, str>, at: &Token) -> usize {
        if let Some(&i) = self.index.get(name.as_ref()) {
            return i;
        }
        let i = self.nodes.len();
        self.nodes.push((
            name.clone(),
            RawNode {
                attrs: [None, None, None, None],
                line: at.line,
                col: at.col,
            },
        ));
        self.index.insert(name.clone(), i);
        i
    }

    /// `[a=b, c=d; ...]` lists; several lists may follow each other.
    #[allow(clippy::type_complexity)]
    fn attr_lists(&mut self) -> Result<Vec<(Cow<'a, str>, Cow<'a, str>, Token<'a>)>> {
        let mut out = Vec::new();
        while self.peek().tok == Tok::LBracket {
            self.next()?;
            loop {
                if self.peek().tok == Tok::RBracket {
                    self.next()?;
                    break;
                }
                let (key, kt) = self.id("an attribute name")?;
                self.expect(Tok::Eq)?;
                let (value, _) = self.id("an attribute value")?;
                out.push((key, value, kt));
                if matches!(self.peek().tok, Tok::Comma | Tok::Semi) {
                    self.next()?;
                }
            }
        }
        Ok(out)
    }

    fn check_display_only(
        &self,
        attrs: &[(Cow<'a, str>, Cow<'a, str>, Token<'a>)],
        what: &str,
    ) -> Result<()> {
        for (k, _, t) in attrs {
            if !DISPLAY_ATTRS.contains(&k.as_ref()) {
                return self.err(
                    t,
                    format!("attribute '{k}' is not allowed on {what} (CFG attributes belong on node statements)"),
                );
            }
        }
        Ok(())
    }

    fn graph(&mut self) -> Result<()> {
        let mut t = self.next()?;
        if Self::keyword(&t.tok, "strict") {
            t = self.next()?;
        }
        if Self::keyword(&t.tok, "graph") {
            return self.err(&t, "undirected graph: a CFG must be a 'digraph'");
        }
        if !Self::keyword(&t.tok, "digraph") {
            return self.err(
                &t,
                format!("expected 'digraph', found {}", Self::describe(&t.tok)),
            );
        }
        if matches!(self.peek().tok, Tok::Id(_)) {
            self.next()?;
        }
        self.expect(Tok::LBrace)?;
        loop {
            let t = self.peek().clone();
            match &t.tok {
                Tok::RBrace => {
                    self.next()?;
                    break;
                }
                Tok::Semi => {
                    self.next()?;
                }
                Tok::Eof => return self.err(&t, "missing '}' at end of graph"),
                Tok::LBrace => return self.err(&t, "subgraphs are not supported"),
                Tok::Id(word) => {
                    let word = word.clone();
                    if word.eq_ignore_ascii_case("subgraph") {
                        return self.err(&t, "subgraphs are not supported");
                    }
                    self.next()?;
                    let lower = word.to_ascii_lowercase();
                    if matches!(lower.as_str(), "graph" | "node" | "edge")
                        && self.peek().tok == Tok::LBracket
                    {
                        let attrs = self.attr_lists()?;
                        self.check_display_only(&attrs, &format!("'{lower}' defaults"))?;
                    } else if self.peek().tok == Tok::Eq {
                        self.next()?;
                        self.id("a value")?;
                        if !DISPLAY_ATTRS.contains(&word.as_ref()) {
                            return self.err(&t, format!("unknown graph attribute '{word}'"));
                        }
                    } else {
                        self.statement(word, t)?;
                    }
                }
                other => {
                    return self.err(
                        &t,
                        format!("expected a statement, found {}", Self::describe(other)),
                    );
                }
            }
        }
        let t = self.peek().clone();
        if t.tok != Tok::Eof {
            return self.err(
                &t,
                "text after the end of the graph (only one graph per file)",
            );
        }
        Ok(())
    }

    fn statement(&mut self, first: Cow<'a, str>, first_tok: Token<'a>) -> Result<()> {
        if self.peek().tok == Tok::Colon {
            let t = self.peek().clone();
            return self.err(&t, "ports (node:port) are not supported");
        }
        // Edges are recorded as the chain is read; attributes on it are an error below.
        let first = self.node(&first, &first_tok);
        let (mut last, mut edges) = (first, 0);
        loop {
            let t = self.peek().clone();
            match t.tok {
                Tok::Arrow => {
                    self.next()?;
                    let nt = self.peek().clone();
                    if nt.tok == Tok::LBrace || Self::keyword(&nt.tok, "subgraph") {
                        return self.err(&nt, "subgraphs are not supported");
                    }
                    let (name, tok) = self.id("a node id after '->'")?;
                    if self.peek().tok == Tok::Colon {
                        let t = self.peek().clone();
                        return self.err(&t, "ports (node:port) are not supported");
                    }
                    let next = self.node(&name, &tok);
                    self.edges.push((last, next));
                    last = next;
                    edges += 1;
                }
                Tok::UndirectedEdge => return self.err(&t, "'--' edge in a digraph: use '->'"),
                _ => break,
            }
        }
        let attrs = self.attr_lists()?;
        if edges > 0 {
            if let Some((k, _, t)) = attrs.first() {
                return self.err(t, format!("edges carry no attributes (found '{k}')"));
            }
            return Ok(());
        }
        let idx = first;
        for (k, v, t) in attrs {
            if DISPLAY_ATTRS.contains(&k.as_ref()) {
                continue;
            }
            let Some(at) = CFG_ATTRS.iter().position(|a| *a == k.as_ref()) else {
                return self.err(
                    &t,
                    format!("unknown node attribute '{k}' (expected wcet, kind, split, loop_bound or a Graphviz display attribute)"),
                );
            };
            let (name, raw) = &self.nodes[idx];
            match &raw.attrs[at] {
                Some((old, _, _)) => {
                    if *old != v {
                        return self.err(
                            &t,
                            format!("node '{name}': attribute '{k}' given twice ({old} and {v})"),
                        );
                    }
                }
                None => self.nodes[idx].1.attrs[at] = Some((v, t.line, t.col)),
            }
        }
        Ok(())
    }
}

/// Every DOT error: at `file:line:col`, the values it quotes escaped and shortened
/// (`pws_isa::diag`), whether the lexer, the parser or the CFG check finds it.
fn syntax<T>(file: &str, line: usize, col: usize, msg: String) -> Result<T> {
    Err(HostError::Syntax {
        file: file.to_string(),
        line,
        col,
        msg: pws_isa::diag::message(&msg),
    })
}

fn parse_u64(file: &str, node: &str, key: &str, v: &Value) -> Result<u64> {
    v.0.parse::<u64>().or_else(|_| {
        syntax(
            file,
            v.1,
            v.2,
            format!(
                "node '{node}': {key} must be a non-negative integer, found '{}'",
                v.0
            ),
        )
    })
}

/// Parses a DOT CFG. `file` is only used in error messages. The entry is the one node without
/// predecessors; node order is the order of first mention.
pub fn parse_cfg(text: &str, file: &str) -> Result<Cfg> {
    let mut lexer = Lexer {
        text,
        i: 0,
        line_start: true,
        line: 1,
        col: 1,
        file,
    };
    let cur = lexer.token()?;
    let mut p = Parser {
        lexer,
        cur,
        file,
        nodes: Vec::new(),
        index: HashMap::default(),
        edges: Vec::new(),
    };
    p.graph()?;
    if p.nodes.is_empty() {
        return syntax(file, 1, 1, "the graph has no nodes".into());
    }
    let mut blocks = Vec::with_capacity(p.nodes.len());
    for (name, raw) in &p.nodes {
        let wcet = match raw.get("wcet") {
            Some(v) => parse_u64(file, name, "wcet", v)?,
            None => {
                return syntax(
                    file,
                    raw.line,
                    raw.col,
                    format!("node '{name}' has no wcet attribute (every node needs wcet=<cycles>)"),
                )
            }
        };
        let kind = match raw.get("kind") {
            None => BlockKind::Block,
            Some((v, l, c)) => match v.as_ref() {
                "block" => BlockKind::Block,
                "branch" => BlockKind::Branch,
                "bsb" => BlockKind::Bsb,
                other => {
                    return syntax(
                        file,
                        *l,
                        *c,
                        format!(
                            "node '{name}': kind must be block, branch or bsb, found '{other}'"
                        ),
                    )
                }
            },
        };
        let split = match raw.get("split") {
            None => false,
            Some((v, l, c)) => match v.as_ref() {
                "true" => true,
                "false" => false,
                other => {
                    return syntax(
                        file,
                        *l,
                        *c,
                        format!("node '{name}': split must be true or false, found '{other}'"),
                    )
                }
            },
        };
        if split && kind != BlockKind::Branch {
            let (_, l, c) = raw.get("split").expect("split was given");
            return syntax(
                file,
                *l,
                *c,
                format!("node '{name}': split=true is only allowed on kind=branch"),
            );
        }
        let loop_bound = match raw.get("loop_bound") {
            None => None,
            Some(v) => {
                let b = parse_u64(file, name, "loop_bound", v)?;
                if b == 0 {
                    return syntax(
                        file,
                        v.1,
                        v.2,
                        format!("node '{name}': loop_bound must be at least 1"),
                    );
                }
                Some(b)
            }
        };
        blocks.push(Block {
            name: name.to_string(),
            wcet,
            kind,
            split,
            loop_bound,
            line: None,
            source: None,
        });
    }
    let mut edges = p.edges.clone();
    edges.sort_unstable();
    edges.dedup();
    let mut has_pred = vec![false; blocks.len()];
    for &(u, v) in &edges {
        if u == v {
            // A self-loop is a back edge of a one-block loop; it does not make v a non-entry.
            continue;
        }
        has_pred[v] = true;
    }
    let entries: Vec<usize> = (0..blocks.len()).filter(|&v| !has_pred[v]).collect();
    let entry = match entries.as_slice() {
        [e] => *e,
        [] => {
            return Err(HostError::Structure(format!(
                "{file}: no entry node (every node has a predecessor)"
            )))
        }
        many => {
            let names: Vec<&str> = many.iter().map(|&i| blocks[i].name.as_str()).collect();
            return Err(HostError::Structure(format!(
                "{file}: several nodes without predecessors ({}); a CFG has one entry",
                names.join(", ")
            )));
        }
    };
    Ok(Cfg {
        blocks,
        edges,
        entry,
    })
}

/// Writes `cfg` in the syntax [`parse_cfg`] reads, nodes in index order (so that reading it
/// back gives the same node numbers): how generated CFGs become `pws wcet` inputs.
pub fn write_cfg(cfg: &Cfg) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(48 * (cfg.blocks.len() + cfg.edges.len()));
    s.push_str("digraph cfg {\n");
    for b in &cfg.blocks {
        let _ = write!(s, "  {} [wcet={}", quote_id(&b.name), b.wcet);
        match b.kind {
            BlockKind::Block => {}
            BlockKind::Branch => s.push_str(", kind=branch"),
            BlockKind::Bsb => s.push_str(", kind=bsb"),
        }
        if b.split {
            s.push_str(", split=true");
        }
        if let Some(k) = b.loop_bound {
            let _ = write!(s, ", loop_bound={k}");
        }
        s.push_str("];\n");
    }
    for &(u, v) in &cfg.edges {
        let _ = writeln!(
            s,
            "  {} -> {};",
            quote_id(&cfg.blocks[u].name),
            quote_id(&cfg.blocks[v].name)
        );
    }
    s.push_str("}\n");
    s
}

/// Quotes a name as a DOT id when it is not a plain identifier or numeral.
pub fn quote_id(s: &str) -> String {
    let plain_ident = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let numeral = !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if plain_ident || numeral {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse_cfg(text, "t.dot").unwrap_err().to_string()
    }

    #[test]
    fn parses_attributes_chains_and_comments() {
        let cfg = parse_cfg(
            "/* c */ digraph g {\n  // x\n  a [wcet=3, kind=branch, split=true]; b [wcet=0]\n c [wcet=1 kind=bsb] d [wcet=2 label=\"D\"] e[wcet=1]\n a -> b -> c -> d -> e; a -> c; c -> e\n}\n",
            "t.dot",
        )
        .unwrap();
        assert_eq!(cfg.blocks.len(), 5);
        assert_eq!(cfg.blocks[0].kind, BlockKind::Branch);
        assert!(cfg.blocks[0].split);
        assert_eq!(cfg.blocks[2].kind, BlockKind::Bsb);
        assert_eq!(cfg.edges.len(), 6);
        assert_eq!(cfg.entry, 0);
    }

    #[test]
    fn quoted_ids_round_trip() {
        let cfg = parse_cfg(
            "digraph { \"bb 1\" [wcet=1]; \"bb 1\" -> x; x [wcet=2] }",
            "t.dot",
        )
        .unwrap();
        assert_eq!(cfg.blocks[0].name, "bb 1");
        assert_eq!(quote_id("bb 1"), "\"bb 1\"");
        assert_eq!(quote_id("BB0_1"), "BB0_1");
        assert_eq!(quote_id("12"), "12");
    }

    #[test]
    fn errors_have_positions() {
        assert_eq!(
            err("digraph {\n  a [wcet=1]\n  a -> b\n}"),
            "t.dot:3:8: node 'b' has no wcet attribute (every node needs wcet=<cycles>)"
        );
        assert_eq!(
            err("digraph {\n a [wcet=x] }"),
            "t.dot:2:5: node 'a': wcet must be a non-negative integer, found 'x'"
        );
        assert_eq!(
            err("graph { a -- b }"),
            "t.dot:1:1: undirected graph: a CFG must be a 'digraph'"
        );
        assert_eq!(
            err("digraph { a [wcet=1] a -> b [color=red] }"),
            "t.dot:1:30: edges carry no attributes (found 'color')"
        );
        assert_eq!(err("digraph { a [wcte=1] }"), "t.dot:1:14: unknown node attribute 'wcte' (expected wcet, kind, split, loop_bound or a Graphviz display attribute)");
        assert_eq!(
            err("digraph { subgraph x { a } }"),
            "t.dot:1:11: subgraphs are not supported"
        );
        assert_eq!(
            err("digraph { a [wcet=1]"),
            "t.dot:1:21: missing '}' at end of graph"
        );
        assert_eq!(
            err("digraph { a [wcet=1 kind=loop] }"),
            "t.dot:1:21: node 'a': kind must be block, branch or bsb, found 'loop'"
        );
        // Values the CFG check quotes are shortened like the lexer's and parser's (found by
        // tests/fuzz_inputs.rs: a 1506-character message).
        let long = err(&format!(
            "digraph {{ a [wcet=1 kind={}] }}",
            "b".repeat(1000)
        ));
        assert!(long.len() < 200, "{long}");
        assert!(
            long.starts_with("t.dot:1:21: node 'a': kind must be block, branch or bsb, found 'bbb"),
            "{long}"
        );
        assert_eq!(
            err("digraph { a [wcet=1 split=true] }"),
            "t.dot:1:21: node 'a': split=true is only allowed on kind=branch"
        );
        assert_eq!(
            err("digraph { a [wcet=1] } digraph {}"),
            "t.dot:1:24: text after the end of the graph (only one graph per file)"
        );
        assert_eq!(
            err("digraph { \"a [wcet=1] }"),
            "t.dot:1:11: unterminated string"
        );
        assert_eq!(
            err("digraph { a:p -> b }"),
            "t.dot:1:12: ports (node:port) are not supported"
        );
    }

    #[test]
    fn generated_cfgs_round_trip() {
        let opts = crate::gen::GenOptions {
            nodes: 200,
            loops: true,
            irregular: true,
            ..Default::default()
        };
        let mut cfg = crate::gen::random_cfg(7, &opts);
        let back = parse_cfg(&write_cfg(&cfg), "g.dot").unwrap();
        cfg.edges.sort_unstable();
        cfg.edges.dedup();
        assert_eq!(back, cfg);
    }

    #[test]
    fn entry_must_be_unique() {
        assert!(err("digraph { a [wcet=1] b [wcet=1] }")
            .contains("several nodes without predecessors (a, b)"));
        assert!(err("digraph { a [wcet=1] b [wcet=1] a -> b -> a }").contains("no entry node"));
    }
}
