//! Verilog generation for one rust-hdl unit, and the port list of the generated module.
//!
//! rust-hdl names the top module of every design `top` and each submodule instance after its
//! path below it (`top$stack$0`), so two exported units could not be read into one tool
//! together. [`generate`] walks the design with rust-hdl's own [`ModuleDefines`] probe but starts
//! the path at the unit's module name instead of `top`: the unit `pws_swizzle_unit` becomes
//! `module pws_swizzle_unit(...)` with submodules `pws_swizzle_unit$...`, and every exported file
//! has a disjoint set of module names.
//!
//! One more change makes the Verilog behave like the model it comes from: rust-hdl's `RAM`
//! simulates unwritten words, and its registered read port before the first read, as zero
//! (`D::default()`), but its Verilog declares `reg [..] mem[..]` without initial values, so
//! Icarus reads `x` where rust-hdl reads 0. [`generate`] initialises every such memory and read
//! register to zero, inside rust-hdl's own `initial` block when the RAM has initial contents
//! (so those still win). The word-by-word zero fill is for simulators only (`` `ifndef
//! SYNTHESIS ``, which Yosys defines): Yosys 0.23 unrolls such a loop into one memory
//! initialisation cell per word, which took it 32 of its 101 seconds on the compute unit's
//! 8192-word instruction-memory banks, and the memories synthesised for the FPGA flow (iCE40
//! block RAMs) hold zeros after configuration anyway. The read register's zero stays visible to
//! Yosys.
//!
//! rust-hdl also writes one module per submodule *instance*: the 64 lanes of a vector unit
//! become 64 identical modules under 64 names. [`dedupe_modules`] keeps one module per distinct
//! body (children first, so two parents whose children are equal are equal too) and points
//! every instance at it, which is what a hand-written design would instantiate in a loop.
//! Nothing else of rust-hdl's output changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rust_hdl::core::check_error::check_all;
use rust_hdl::core::module_defines::ModuleDefines;
use rust_hdl::core::prelude::Block;
use serde::Serialize;

use crate::ExportError;

/// Generates the Verilog of `uut` with `module` as the name of its top module.
///
/// Connects the design and runs rust-hdl's structural checks first, so an unconnected or
/// looping design is an error here instead of a panic inside rust-hdl.
pub fn generate<U: Block>(uut: &mut U, module: &str) -> Result<String, ExportError> {
    if !is_identifier(module) {
        return Err(ExportError::BadModuleName(module.to_string()));
    }
    uut.connect_all();
    check_all(uut).map_err(|e| ExportError::Check {
        unit: module.to_string(),
        detail: format!("{e:?}"),
    })?;
    let mut defines = ModuleDefines::default();
    uut.accept(module, &mut defines);
    Ok(dedupe_modules(&initialise_memories(&defines.defines())))
}

/// One module of generated Verilog: its name and its lines, `module` to `endmodule`.
struct ModuleText<'a> {
    name: &'a str,
    lines: Vec<&'a str>,
}

/// The name a `module NAME(...)` line declares.
fn declared_module(line: &str) -> Option<&str> {
    line.strip_prefix("module ")?
        .split('(')
        .next()
        .map(str::trim)
}

/// The module an instance line (`KIND INSTANCE(`) instantiates, if `KIND` is one of `names`.
fn instantiated<'a>(line: &'a str, names: &HashMap<&str, usize>) -> Option<&'a str> {
    let (kind, rest) = line.trim_start().split_once(' ')?;
    (names.contains_key(kind) && rest.trim_end().ends_with('(')).then_some(kind)
}

/// Keeps one module per distinct body and instantiates it everywhere (module documentation).
/// Modules are compared after their children are replaced by their representatives, so
/// sharing propagates up the hierarchy; the representative is the first module in the file
/// with that body, and the text outside modules stays where it was.
pub fn dedupe_modules(verilog: &str) -> String {
    let mut modules: Vec<ModuleText> = Vec::new();
    let mut outside: Vec<Vec<&str>> = vec![Vec::new()];
    let mut open: Option<ModuleText> = None;
    for line in verilog.split_inclusive('\n') {
        match open.as_mut() {
            Some(m) => {
                m.lines.push(line);
                if line.starts_with("endmodule") {
                    modules.extend(open.take());
                    outside.push(Vec::new());
                }
            }
            None => match declared_module(line) {
                Some(name) => {
                    open = Some(ModuleText {
                        name,
                        lines: vec![line],
                    })
                }
                None => outside
                    .last_mut()
                    .expect("one per module, plus one")
                    .push(line),
            },
        }
    }
    if open.is_some() {
        // An unterminated module: leave the text as it is for the tools to report.
        return verilog.to_string();
    }
    let index: HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name, i))
        .collect();
    let mut representative: Vec<Option<usize>> = vec![None; modules.len()];
    let mut by_body: HashMap<String, usize> = HashMap::new();
    // Children before parents: a post-order walk from every module.
    fn visit(
        i: usize,
        modules: &[ModuleText],
        index: &HashMap<&str, usize>,
        representative: &mut Vec<Option<usize>>,
        by_body: &mut HashMap<String, usize>,
    ) -> usize {
        if let Some(r) = representative[i] {
            return r;
        }
        let mut body = String::new();
        for (n, line) in modules[i].lines.iter().enumerate() {
            if n == 0 {
                body.push_str(line.split_once('(').map_or("", |(_, args)| args));
            } else if line.starts_with("endmodule") {
                body.push_str("endmodule\n");
            } else if let Some(kind) = instantiated(line, index) {
                let child = visit(index[kind], modules, index, representative, by_body);
                body.push_str(&line.replacen(kind, modules[child].name, 1));
            } else {
                body.push_str(line);
            }
        }
        let r = *by_body.entry(body).or_insert(i);
        representative[i] = Some(r);
        r
    }
    for i in 0..modules.len() {
        visit(i, &modules, &index, &mut representative, &mut by_body);
    }
    let mut out = String::with_capacity(verilog.len());
    for (i, m) in modules.iter().enumerate() {
        let kept = representative[i] == Some(i);
        if kept {
            out.extend(outside[i].iter().copied());
            for line in &m.lines {
                match instantiated(line, &index) {
                    Some(kind) => out.push_str(&line.replacen(
                        kind,
                        modules[representative[index[kind]].expect("visited")].name,
                        1,
                    )),
                    None => out.push_str(line),
                }
            }
        }
    }
    out.extend(outside[modules.len()].iter().copied());
    out
}

/// Zero-initialises every `reg [W:0] mem[N:0];` and, in RAM modules, the `read_data` register
/// (see the module documentation).
pub fn initialise_memories(verilog: &str) -> String {
    let mut out = String::with_capacity(verilog.len());
    for chunk in verilog.split_inclusive("endmodule") {
        let has_read_port = chunk.contains("read_data <= mem[");
        let lines: Vec<&str> = chunk.split_inclusive('\n').collect();
        let mut i = 0;
        while i < lines.len() {
            out.push_str(lines[i]);
            if let Some(words) = memory_words(lines[i]) {
                let mut body =
                    String::from("       // pws-export: rust-hdl simulates these as 0\n");
                if has_read_port {
                    body.push_str("       read_data = 0;\n");
                }
                body.push_str(&format!(
                    "`ifndef SYNTHESIS\n       for (pws_word = 0; pws_word < {words}; \
                     pws_word = pws_word + 1) mem[pws_word] = 0;\n`endif\n"
                ));
                out.push_str("    integer pws_word;\n");
                // rust-hdl's own initial contents, if any, follow after blank lines: put the
                // zero fill first in that block so the given contents override it.
                let next = (i + 1..lines.len()).find(|&j| !lines[j].trim().is_empty());
                match next {
                    Some(j) if lines[j].trim() == "initial begin" => {
                        out.extend(lines[i + 1..=j].iter().copied());
                        out.push_str(&body);
                        i = j;
                    }
                    _ => out.push_str(&format!("    initial begin\n{body}    end\n")),
                }
            }
            i += 1;
        }
    }
    out
}

/// Number of words of a `reg[W:0] mem[N:0];` declaration.
fn memory_words(line: &str) -> Option<u64> {
    let rest = line.trim().strip_prefix("reg")?;
    let (_, rest) = rest.split_once(']')?;
    let rest = rest.trim().strip_prefix("mem[")?;
    let (high, rest) = rest.split_once(':')?;
    (rest.trim() == "0];").then_some(())?;
    high.trim().parse::<u64>().ok().map(|h| h + 1)
}

/// Writes `text` to `dir/<module>.v`, creating `dir` if needed, and returns the path.
pub fn write(dir: &Path, module: &str, text: &str) -> Result<PathBuf, ExportError> {
    std::fs::create_dir_all(dir).map_err(|e| ExportError::io(dir, e))?;
    // Absolute, because the tools that read the file run in their own working directories.
    let path = std::path::absolute(dir.join(format!("{module}.v")))
        .map_err(|e| ExportError::io(dir, e))?;
    std::fs::write(&path, text).map_err(|e| ExportError::io(&path, e))?;
    Ok(path)
}

/// Direction of a module port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Input,
    Output,
    Inout,
}

/// One port of a generated module, as declared in its Verilog.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Port {
    pub name: String,
    pub direction: Direction,
    pub width: usize,
}

/// The ports of `module` in `verilog`, in the order of its port list.
///
/// rust-hdl declares every port on its own line after the header
/// (`input wire [31:0] data;`, `output reg  valid;`); this reads those declarations, so test
/// benches are built from what the tools will actually see.
pub fn ports(verilog: &str, module: &str) -> Result<Vec<Port>, ExportError> {
    let not_found = || ExportError::Parse {
        what: format!("the port list of module {module}"),
        text: String::new(),
    };
    let header = format!("module {module}(");
    let start = verilog.find(&header).ok_or_else(not_found)?;
    let body = &verilog[start + header.len()..];
    let close = body.find(");").ok_or_else(not_found)?;
    let names: Vec<&str> = body[..close]
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    let end = body.find("endmodule").unwrap_or(body.len());
    let mut declared = Vec::new();
    for line in body[close + 2..end].lines() {
        let mut tokens = line.split_whitespace().peekable();
        let direction = match tokens.next() {
            Some("input") => Direction::Input,
            Some("output") => Direction::Output,
            Some("inout") => Direction::Inout,
            _ => continue,
        };
        let mut width = 1;
        let mut name = None;
        for token in tokens {
            match token {
                "wire" | "reg" | "signed" => {}
                range if range.starts_with('[') => {
                    width = parse_range(range).ok_or_else(|| ExportError::Parse {
                        what: format!("a port range of module {module}"),
                        text: line.to_string(),
                    })?;
                }
                n => name = Some(n.trim_end_matches(';').to_string()),
            }
        }
        if let Some(name) = name {
            declared.push(Port {
                name,
                direction,
                width,
            });
        }
    }
    names
        .iter()
        .map(|n| {
            declared
                .iter()
                .find(|p| p.name == *n)
                .cloned()
                .ok_or_else(|| ExportError::Parse {
                    what: format!("the declaration of port {n} of module {module}"),
                    text: String::new(),
                })
        })
        .collect()
}

/// Width of a `[H:L]` range.
fn parse_range(range: &str) -> Option<usize> {
    let inner = range.strip_prefix('[')?.strip_suffix(']')?;
    let (high, low) = inner.split_once(':')?;
    let (high, low): (usize, usize) = (high.trim().parse().ok()?, low.trim().parse().ok()?);
    high.checked_sub(low).map(|w| w + 1)
}

/// A plain Verilog identifier (no escaped names: the module name is also a file name).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "\n\nmodule pws_x(clock,data,valid,out);\n\n// Module arguments\n\
        input wire  clock;\ninput wire  [31:0] data;\ninput wire  valid;\noutput reg  [3:0] out;\n\
        \n// Local signals\nreg  [3:0] state;\nendmodule // pws_x\n";

    #[test]
    fn ports_follow_the_header_order_with_declared_widths() {
        let ports = ports(HEADER, "pws_x").unwrap();
        let summary: Vec<_> = ports
            .iter()
            .map(|p| (p.name.as_str(), p.direction, p.width))
            .collect();
        assert_eq!(
            summary,
            [
                ("clock", Direction::Input, 1),
                ("data", Direction::Input, 32),
                ("valid", Direction::Input, 1),
                ("out", Direction::Output, 4)
            ]
        );
    }

    #[test]
    fn a_missing_module_or_declaration_is_an_error() {
        assert!(ports(HEADER, "other").is_err());
        let undeclared = HEADER.replace("output reg  [3:0] out;", "");
        assert!(ports(&undeclared, "pws_x").is_err());
    }

    #[test]
    fn memories_and_read_ports_start_at_zero_before_given_contents() {
        let ram = "module r(read_data);\n    reg[31:0] mem[127:0];\n    \n    \n    always @(posedge c) begin\n       read_data <= mem[a];\n    end\nendmodule // r\n";
        let fixed = initialise_memories(ram);
        assert!(fixed.contains("integer pws_word;\n    initial begin\n"));
        assert!(fixed.contains("read_data = 0;"));
        assert!(fixed.contains(
            "`ifndef SYNTHESIS\n       for (pws_word = 0; pws_word < 128; pws_word = pws_word + 1) \
             mem[pws_word] = 0;\n`endif\n"
        ));
        let rom = "module q(x);\n    reg[7:0] mem[3:0];\n\ninitial begin\nmem[0] = 8'h5;\nend\nendmodule\n";
        let fixed = initialise_memories(rom);
        let zero = fixed.find("mem[pws_word] = 0").unwrap();
        assert!(zero < fixed.find("mem[0] = 8'h5").unwrap());
        assert_eq!(fixed.matches("initial begin").count(), 1);
        assert!(!fixed.contains("read_data = 0"));
        assert_eq!(
            initialise_memories("module n(a);\nendmodule\n"),
            "module n(a);\nendmodule\n"
        );
    }

    #[test]
    fn identical_instances_share_one_module_up_the_hierarchy() {
        let v = "`timescale 1ns/1ps\n\
            module top(a);\nleaf_k top$l$0(\n.x(a)\n);\nmid_k top$m$0(\n.y(a)\n);\nmid_k2 top$m$1(\n.y(a)\n);\nendmodule // top\n\n\
            module leaf_k(x);\nassign x = 1;\nendmodule // leaf_k\n\n\
            module mid_k(y);\nleaf_k m$l(\n.x(y)\n);\nendmodule // mid_k\n\n\
            module leaf_k2(x);\nassign x = 1;\nendmodule // leaf_k2\n\n\
            module mid_k2(y);\nleaf_k2 m$l(\n.x(y)\n);\nendmodule // mid_k2\n\n\
            module odd(x);\nassign x = 0;\nendmodule // odd\n";
        let d = dedupe_modules(v);
        assert!(d.starts_with("`timescale 1ns/1ps\nmodule top(a);"), "{d}");
        assert_eq!(
            d.lines().filter(|l| l.starts_with("module ")).count(),
            4,
            "{d}"
        );
        assert!(!d.contains("leaf_k2") && !d.contains("mid_k2"), "{d}");
        assert!(
            d.contains("mid_k top$m$1(") && d.contains("module odd(x);"),
            "{d}"
        );
        assert_eq!(dedupe_modules(&d), d);
        let open = "module a(x);\nassign x = 1;\n";
        assert_eq!(dedupe_modules(open), open);
    }

    /// A child with a vector port, driven from a nested loop: `self.kids[i].port[k]`.
    mod nested {
        use rust_hdl::prelude::*;

        #[derive(LogicBlock, Default)]
        pub struct Kid {
            pub port: Vec<Signal<In, Bits<4>>>,
            pub sum: Signal<Out, Bits<4>>,
        }

        impl Kid {
            pub fn new() -> Self {
                Kid {
                    port: (0..3).map(|_| Default::default()).collect(),
                    sum: Default::default(),
                }
            }
        }

        impl Logic for Kid {
            #[hdl_gen]
            fn update(&mut self) {
                self.sum.next = self.port[0].val() + self.port[1].val() + self.port[2].val();
            }
        }

        /// Ports per kid, a constant the generator cannot see.
        const PORTS: usize = 3;

        #[derive(LogicBlock)]
        pub struct Parent {
            pub a: Signal<In, Bits<4>>,
            pub out: Signal<Out, Bits<4>>,
            pub kids: Vec<Kid>,
            /// A configuration field (rust-hdl skips fields that start with `_`).
            _first: usize,
        }

        impl Logic for Parent {
            #[hdl_gen]
            fn update(&mut self) {
                for i in 0..2 {
                    for k in 0..3 {
                        self.kids[i].port[k * PORTS / PORTS + self._first - self._first].next =
                            self.a.val();
                    }
                }
                self.out.next = self.kids[0].sum.val() ^ self.kids[1].sum.val();
                if self.a.val().index() == self._first {
                    self.out.next = 0.into();
                }
            }
        }

        pub fn parent() -> Parent {
            Parent {
                a: Default::default(),
                out: Default::default(),
                kids: vec![Kid::new(), Kid::new()],
                _first: 1,
            }
        }
    }

    /// The vendored generator's patches (vendor/rust-hdl-core/PATCH.md, change 4;
    /// vendor/rust-hdl-macros/PATCH.md): both indices of `kids[i]$port[k]` resolve, also with
    /// a constant and a configuration field in the index and a name split across lines, the
    /// field reads as its value, and the two equal children share one module.
    #[test]
    fn nested_indices_resolve_and_equal_children_share_a_module() {
        let v = generate(&mut nested::parent(), "pws_nested").unwrap();
        for i in 0..2 {
            for k in 0..3 {
                assert!(v.contains(&format!("kids${i}$port${k} = a;")), "{v}");
            }
        }
        assert!(
            !v.contains("[i]") && !v.contains("[k") && !v.contains("PORTS"),
            "{v}"
        );
        assert!(
            v.contains("if ((a == 1))") || v.contains("if (a == 1)"),
            "{v}"
        );
        assert_eq!(
            v.lines().filter(|l| l.starts_with("module ")).count(),
            2,
            "{v}"
        );
    }

    /// A parent that feeds one output of its child into another input of the same child
    /// through a local it assigns twice, and a default-then-conditional output.
    mod sliced {
        use rust_hdl::prelude::*;

        /// Two independent combinational paths: `x` from `a`, `y` from `b`.
        #[derive(LogicBlock, Default)]
        pub struct Pair {
            pub a: Signal<In, Bits<8>>,
            pub b: Signal<In, Bits<8>>,
            pub x: Signal<Out, Bits<8>>,
            pub y: Signal<Out, Bits<8>>,
        }

        impl Logic for Pair {
            #[hdl_gen]
            fn update(&mut self) {
                self.x.next = self.a.val() + 1;
                self.y.next = self.b.val() + 2;
            }
        }

        #[derive(LogicBlock, Default)]
        pub struct Top {
            pub i: Signal<In, Bits<8>>,
            pub en: Signal<In, Bit>,
            pub o: Signal<Out, Bits<8>>,
            t: Signal<Local, Bits<8>>,
            pub pair: Pair,
        }

        impl Logic for Top {
            #[hdl_gen]
            fn update(&mut self) {
                self.o.next = 0.into();
                if self.en.val() {
                    self.o.next = self.pair.y.val();
                }
                // `pair.a` reads `t` between its two assignments (`.val()` of a local is the
                // value so far, as in one Verilog block). The `println!` becomes a comment.
                println!("t twice");
                self.t.next = self.i.val();
                self.pair.a.next = self.t.val();
                self.t.next = self.pair.x.val();
                self.pair.b.next = self.t.val();
            }
        }

        /// Only the hardware under test takes these values; Rust never builds `B` or `C`.
        #[allow(dead_code)]
        #[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
        pub enum Kind {
            A,
            B,
            C,
        }

        /// A `match` whose arms assign different signals and whose `_` arm assigns both.
        #[derive(LogicBlock, Default)]
        pub struct Decode {
            pub k: Signal<In, Kind>,
            pub x: Signal<Out, Bits<8>>,
            pub y: Signal<Out, Bit>,
        }

        impl Logic for Decode {
            #[hdl_gen]
            fn update(&mut self) {
                self.x.next = 0.into();
                self.y.next = false;
                match self.k.val() {
                    Kind::A => self.x.next = 1.into(),
                    Kind::B => self.y.next = true,
                    _ => {
                        self.x.next = 3.into();
                        self.y.next = true;
                    }
                }
            }
        }
    }

    /// The always blocks of `module`'s body in `v`, each as its trimmed lines.
    fn always_blocks(v: &str, module: &str) -> Vec<Vec<String>> {
        let start = v.find(&format!("module {module}(")).unwrap();
        let body = &v[start..start + v[start..].find("endmodule").unwrap()];
        let mut blocks: Vec<Vec<String>> = vec![];
        let mut depth = 0;
        for line in body.lines().map(str::trim) {
            if line == "always @(*) begin" {
                blocks.push(vec![]);
                depth = 1;
                continue;
            }
            if depth == 0 {
                continue;
            }
            if line.ends_with("begin") {
                depth += 1;
            } else if line == "end" {
                depth -= 1;
                if depth == 0 {
                    continue;
                }
            }
            blocks.last_mut().unwrap().push(line.to_string());
        }
        blocks
    }

    /// vendor/rust-hdl-core/PATCH.md, change 5: one always block per assigned signal, in
    /// first-assignment order; a default assignment stays before the conditional one; a local
    /// read between two of its assignments gets a copy for the first one. Upstream's single
    /// block trips `UNOPTFLAT` (it writes `pair$a` and reads `pair$x`); the sliced module lints
    /// clean.
    #[test]
    fn one_always_block_per_signal_lints_without_unoptflat() {
        let v = generate(&mut sliced::Top::default(), "pws_sliced").unwrap();
        let blocks = always_blocks(&v, "pws_sliced");
        let expected: [&[&str]; 5] = [
            &["o = 32'h0;", "if (en) begin", "o = pair$y;", "end"],
            &["// println! (\"t twice", "t$seg0 = i;"],
            &["pair$a = t$seg0;"],
            &["t = pair$x;"],
            &["pair$b = t;"],
        ];
        assert_eq!(blocks, expected, "{v}");
        assert!(v.contains("reg  [7:0] t$seg0;"), "{v}");
        assert_eq!(always_blocks(&v, "pws_sliced$pair").len(), 2, "{v}");

        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), "pws_sliced", &v).unwrap();
        // `UNOPTFLAT` is not waived: the lint fails on it.
        crate::tools::lint(&file, "pws_sliced").unwrap_or_else(|e| panic!("{e}"));
        crate::tools::iverilog(&[&file], "pws_sliced", &dir.path().join("s.vvp")).unwrap();

        // Upstream's single block for the same module: Verilator reports the loop.
        use rust_hdl::core::prelude::Logic;
        let rust_hdl::core::ast::Verilog::Combinatorial(code) = sliced::Top::default().hdl() else {
            panic!("not combinatorial")
        };
        let single = rust_hdl::core::verilog_gen::verilog_combinatorial(&code);
        let parent = v.find("module pws_sliced(").unwrap();
        let from = parent + v[parent..].find("// Segments").unwrap();
        let to = parent + v[parent..].find("endmodule").unwrap();
        let upstream = format!("{}{}{}", &v[..from], single, &v[to..]);
        assert_eq!(
            always_blocks(&upstream, "pws_sliced").len(),
            1,
            "{upstream}"
        );
        let file = write(dir.path(), "pws_sliced", &upstream).unwrap();
        match crate::tools::lint(&file, "pws_sliced") {
            Err(ExportError::ToolFailed { output, .. }) => {
                assert!(output.contains("UNOPTFLAT"), "{output}")
            }
            other => panic!("expected UNOPTFLAT from the single block, got {other:?}"),
        }
    }

    /// An arm that assigns nothing to a signal stays in that signal's block, empty, when the
    /// block keeps the `_` arm: dropped, its value would take the default's assignment
    /// (`x = 3` for `B`). Without a default that assigns, such arms go and an empty default
    /// keeps the case complete.
    #[test]
    fn a_sliced_case_keeps_the_arms_its_default_would_take() {
        let v = generate(&mut sliced::Decode::default(), "pws_decode").unwrap();
        let blocks = always_blocks(&v, "pws_decode");
        let empty_b = [
            "Kind$B:",
            "begin",
            "end",
            "default:",
            "begin",
            "x = 32'h3;",
            "end",
        ];
        assert!(
            blocks[0].windows(empty_b.len()).any(|w| w == empty_b),
            "{blocks:?}"
        );
        let y: Vec<&str> = blocks[1].iter().map(String::as_str).collect();
        assert!(y.contains(&"Kind$A:") && !y.contains(&"Kind$C:"), "{y:?}");

        let dir = tempfile::tempdir().unwrap();
        let file = write(dir.path(), "pws_decode", &v).unwrap();
        crate::tools::lint(&file, "pws_decode").unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn module_names_must_be_plain_identifiers() {
        assert!(is_identifier("pws_swizzle_unit"));
        assert!(!is_identifier("9lives"));
        assert!(!is_identifier("a$b"));
        assert!(!is_identifier(""));
    }
}
