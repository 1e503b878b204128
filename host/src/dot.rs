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

use std::collections::HashMap;

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
enum Tok {
    Id(String),
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
struct Token {
    tok: Tok,
    line: usize,
    col: usize,
}

struct Lexer<'a> {
    chars: Vec<char>,
    i: usize,
    line: usize,
    col: usize,
    file: &'a str,
}

impl<'a> Lexer<'a> {
    fn err<T>(&self, line: usize, col: usize, msg: impl Into<String>) -> Result<T> {
        Err(HostError::Syntax {
            file: self.file.to_string(),
            line,
            col,
            msg: pws_isa::diag::message(&msg.into()),
        })
    }

    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.i).copied()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn tokens(mut self) -> Result<Vec<Token>> {
        let mut out = Vec::new();
        let mut line_start = true;
        loop {
            let (line, col) = (self.line, self.col);
            let Some(c) = self.peek(0) else {
                out.push(Token {
                    tok: Tok::Eof,
                    line,
                    col,
                });
                return Ok(out);
            };
            if c == '\n' {
                self.bump();
                line_start = true;
                continue;
            }
            if c.is_whitespace() {
                self.bump();
                continue;
            }
            // `#` lines are C-preprocessor output lines in Graphviz; only at a line start.
            if c == '#' && line_start {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.bump();
                }
                continue;
            }
            line_start = false;
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
                    out.push(Token {
                        tok: Tok::Id(s),
                        line,
                        col,
                    });
                    continue;
                }
                c if c.is_alphanumeric() || c == '_' || c == '.' || c == '-' => {
                    let mut s = String::new();
                    while let Some(ch) = self.peek(0) {
                        if ch.is_alphanumeric()
                            || ch == '_'
                            || ch == '.'
                            || (ch == '-' && s.is_empty())
                        {
                            s.push(ch);
                            self.bump();
                        } else {
                            break;
                        }
                    }
                    out.push(Token {
                        tok: Tok::Id(s),
                        line,
                        col,
                    });
                    continue;
                }
                other => return self.err(line, col, format!("unexpected character {other:?}")),
            };
            self.bump();
            out.push(Token { tok, line, col });
        }
    }
}

/// A node as written in the file, before the CFG is checked.
#[derive(Debug, Default)]
struct RawNode {
    attrs: HashMap<String, (String, usize, usize)>,
    line: usize,
    col: usize,
}

struct Parser<'a> {
    toks: Vec<Token>,
    i: usize,
    file: &'a str,
    nodes: Vec<(String, RawNode)>,
    index: HashMap<String, usize>,
    edges: Vec<(usize, usize)>,
}

impl<'a> Parser<'a> {
    fn err<T>(&self, t: &Token, msg: impl Into<String>) -> Result<T> {
        Err(HostError::Syntax {
            file: self.file.to_string(),
            line: t.line,
            col: t.col,
            msg: pws_isa::diag::message(&msg.into()),
        })
    }

    fn peek(&self) -> &Token {
        &self.toks[self.i]
    }

    fn next(&mut self) -> Token {
        let t = self.toks[self.i].clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }

    fn describe(t: &Tok) -> String {
        match t {
            Tok::Id(s) => format!("'{s}'"),
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

    fn expect(&mut self, want: Tok) -> Result<Token> {
        let t = self.next();
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

    fn id(&mut self, what: &str) -> Result<(String, Token)> {
        let t = self.next();
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

    fn node(&mut self, name: &str, at: &Token) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.nodes.len();
        self.nodes.push((
            name.to_string(),
            RawNode {
                attrs: HashMap::new(),
                line: at.line,
                col: at.col,
            },
        ));
        self.index.insert(name.to_string(), i);
        i
    }

    /// `[a=b, c=d; ...]` lists; several lists may follow each other.
    fn attr_lists(&mut self) -> Result<Vec<(String, String, Token)>> {
        let mut out = Vec::new();
        while self.peek().tok == Tok::LBracket {
            self.next();
            loop {
                if self.peek().tok == Tok::RBracket {
                    self.next();
                    break;
                }
                let (key, kt) = self.id("an attribute name")?;
                self.expect(Tok::Eq)?;
                let (value, _) = self.id("an attribute value")?;
                out.push((key, value, kt));
                if matches!(self.peek().tok, Tok::Comma | Tok::Semi) {
                    self.next();
                }
            }
        }
        Ok(out)
    }

    fn check_display_only(&self, attrs: &[(String, String, Token)], what: &str) -> Result<()> {
        for (k, _, t) in attrs {
            if !DISPLAY_ATTRS.contains(&k.as_str()) {
                return self.err(
                    t,
                    format!("attribute '{k}' is not allowed on {what} (CFG attributes belong on node statements)"),
                );
            }
        }
        Ok(())
    }

    fn graph(&mut self) -> Result<()> {
        let mut t = self.next();
        if Self::keyword(&t.tok, "strict") {
            t = self.next();
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
            self.next();
        }
        self.expect(Tok::LBrace)?;
        loop {
            let t = self.peek().clone();
            match &t.tok {
                Tok::RBrace => {
                    self.next();
                    break;
                }
                Tok::Semi => {
                    self.next();
                }
                Tok::Eof => return self.err(&t, "missing '}' at end of graph"),
                Tok::LBrace => return self.err(&t, "subgraphs are not supported"),
                Tok::Id(word) => {
                    let word = word.clone();
                    if word.eq_ignore_ascii_case("subgraph") {
                        return self.err(&t, "subgraphs are not supported");
                    }
                    self.next();
                    let lower = word.to_ascii_lowercase();
                    if matches!(lower.as_str(), "graph" | "node" | "edge")
                        && self.peek().tok == Tok::LBracket
                    {
                        let attrs = self.attr_lists()?;
                        self.check_display_only(&attrs, &format!("'{lower}' defaults"))?;
                    } else if self.peek().tok == Tok::Eq {
                        self.next();
                        self.id("a value")?;
                        if !DISPLAY_ATTRS.contains(&word.as_str()) {
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

    fn statement(&mut self, first: String, first_tok: Token) -> Result<()> {
        if self.peek().tok == Tok::Colon {
            let t = self.peek().clone();
            return self.err(&t, "ports (node:port) are not supported");
        }
        let mut chain = vec![self.node(&first, &first_tok)];
        loop {
            let t = self.peek().clone();
            match t.tok {
                Tok::Arrow => {
                    self.next();
                    let nt = self.peek().clone();
                    if nt.tok == Tok::LBrace || Self::keyword(&nt.tok, "subgraph") {
                        return self.err(&nt, "subgraphs are not supported");
                    }
                    let (name, tok) = self.id("a node id after '->'")?;
                    if self.peek().tok == Tok::Colon {
                        let t = self.peek().clone();
                        return self.err(&t, "ports (node:port) are not supported");
                    }
                    chain.push(self.node(&name, &tok));
                }
                Tok::UndirectedEdge => return self.err(&t, "'--' edge in a digraph: use '->'"),
                _ => break,
            }
        }
        let attrs = self.attr_lists()?;
        if chain.len() > 1 {
            if let Some((k, _, t)) = attrs.first() {
                return self.err(t, format!("edges carry no attributes (found '{k}')"));
            }
            for w in chain.windows(2) {
                self.edges.push((w[0], w[1]));
            }
            return Ok(());
        }
        let idx = chain[0];
        for (k, v, t) in attrs {
            if DISPLAY_ATTRS.contains(&k.as_str()) {
                continue;
            }
            if !matches!(k.as_str(), "wcet" | "kind" | "split" | "loop_bound") {
                return self.err(
                    &t,
                    format!("unknown node attribute '{k}' (expected wcet, kind, split, loop_bound or a Graphviz display attribute)"),
                );
            }
            if let Some((old, _, _)) = self.nodes[idx].1.attrs.get(&k) {
                if *old != v {
                    let name = &self.nodes[idx].0;
                    return self.err(
                        &t,
                        format!("node '{name}': attribute '{k}' given twice ({old} and {v})"),
                    );
                }
            }
            self.nodes[idx].1.attrs.insert(k, (v, t.line, t.col));
        }
        Ok(())
    }
}

fn syntax<T>(file: &str, line: usize, col: usize, msg: String) -> Result<T> {
    Err(HostError::Syntax {
        file: file.to_string(),
        line,
        col,
        msg,
    })
}

fn parse_u64(file: &str, node: &str, key: &str, v: &(String, usize, usize)) -> Result<u64> {
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
    let toks = Lexer {
        chars: text.chars().collect(),
        i: 0,
        line: 1,
        col: 1,
        file,
    }
    .tokens()?;
    let mut p = Parser {
        toks,
        i: 0,
        file,
        nodes: Vec::new(),
        index: HashMap::new(),
        edges: Vec::new(),
    };
    p.graph()?;
    if p.nodes.is_empty() {
        return syntax(file, 1, 1, "the graph has no nodes".into());
    }
    let mut blocks = Vec::with_capacity(p.nodes.len());
    for (name, raw) in &p.nodes {
        let wcet = match raw.attrs.get("wcet") {
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
        let kind = match raw.attrs.get("kind") {
            None => BlockKind::Block,
            Some((v, l, c)) => match v.as_str() {
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
        let split = match raw.attrs.get("split") {
            None => false,
            Some((v, l, c)) => match v.as_str() {
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
            let (_, l, c) = &raw.attrs["split"];
            return syntax(
                file,
                *l,
                *c,
                format!("node '{name}': split=true is only allowed on kind=branch"),
            );
        }
        let loop_bound = match raw.attrs.get("loop_bound") {
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
            name: name.clone(),
            wcet,
            kind,
            split,
            loop_bound,
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
    fn entry_must_be_unique() {
        assert!(err("digraph { a [wcet=1] b [wcet=1] }")
            .contains("several nodes without predecessors (a, b)"));
        assert!(err("digraph { a [wcet=1] b [wcet=1] a -> b -> a }").contains("no entry node"));
    }
}
