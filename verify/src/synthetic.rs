//! The PWS paper's synthetic benchmark (§5.3, Figure 10, Table 3) as a generator: a kernel of
//! three parts, (1) non-divergent instructions every work-item runs, (2) `depth` levels of
//! nested if/else keyed on bits of the work-item id, so that with depth log2(64) = 6 every
//! work-item of a wavefront takes its own path, and (3) divergent instructions in the leaves,
//! each leaf a different sequence. Parts 1 and 3 mix arithmetic and memory instructions. The
//! knobs are the paper's: the share of divergent instructions, the share of memory instructions
//! in the divergent part, the nesting depth and a loop count around the whole body (a uniform
//! loop, bounded for the WCET analysis). The conditionals of the first `split_levels` levels
//! carry `PWS_SPLIT()`, so that (as in Table 3) the split points equal the SpSIMDs:
//! split_levels = log2(S + 1) for S = 1, 3, 7.
//!
//! An instruction here is one C statement that clang turns into one ALU operation or one memory
//! access (plus address arithmetic): the counts are those of the source, which is what the
//! paper's knobs count. [`Synthetic::render`] writes the OpenCL C kernel, its launch manifest
//! and its input, and computes the expected output by evaluating the same statements in Rust,
//! independently of the golden model and the RTL.

use std::fmt::Write as _;

/// The knobs of one synthetic kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Synthetic {
    /// Levels of nested if/else (0..=6): 2^depth leaves.
    pub depth: u32,
    /// Share of the instructions (conditionals excluded) in the leaves, in percent.
    pub divergent_pct: u32,
    /// Share of memory instructions among the divergent ones, in percent.
    pub memory_pct: u32,
    /// Share of memory instructions among the non-divergent ones, in percent.
    pub uniform_memory_pct: u32,
    /// Instructions per work-item and loop iteration, conditionals excluded.
    pub instructions: u32,
    /// Trips of the loop around the body (1: no loop).
    pub loops: u32,
    /// Nesting levels whose conditionals carry `PWS_SPLIT()`.
    pub split_levels: u32,
    /// Work-items (a multiple of 64: whole wavefronts).
    pub grid: u32,
}

impl Default for Synthetic {
    fn default() -> Self {
        Synthetic {
            depth: 6,
            divergent_pct: 100,
            memory_pct: 0,
            uniform_memory_pct: 25,
            instructions: 32,
            loops: 1,
            split_levels: 1,
            grid: 64,
        }
    }
}

/// Words of input the kernel reads from: a power of two, so loads index it with a mask, and
/// not 256, whose byte mask clang folds into an SDWA operand select (outside the pws subset).
const INPUT_WORDS: u32 = 512;
/// Scratch words each work-item owns for its stores.
const SCRATCH_PER_ITEM: u32 = 4;

/// One statement on the work-item's variables `a`, `b`, `c`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// `v = v * k + w` (k odd).
    MulAdd(usize, u32, usize),
    /// `v ^= w + k`.
    XorAdd(usize, usize, u32),
    /// `v = (v << s) | (v >> (32 - s))`.
    Rotate(usize, u32),
    /// `v -= w & k`.
    SubAnd(usize, usize, u32),
    /// `v += in[(v + k) & (INPUT_WORDS - 1)]`.
    Load(usize, u32),
    /// `scratch[i * SCRATCH_PER_ITEM + slot] = v`.
    Store(usize, u32),
}

/// A small deterministic mixer, so that every (leaf, position) gets its own statement.
fn mix(x: u32) -> u32 {
    let mut h = x.wrapping_mul(0x9E37_79B9) ^ 0x85EB_CA6B;
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^ (h >> 12)
}

impl Synthetic {
    /// Checks the knobs; the message names the one that is out of range.
    pub fn validate(&self) -> Result<(), String> {
        if self.depth > 6 {
            return Err(format!("depth {} is above log2(64) = 6", self.depth));
        }
        for (name, v) in [
            ("divergent", self.divergent_pct),
            ("memory", self.memory_pct),
            ("uniform-memory", self.uniform_memory_pct),
        ] {
            if v > 100 {
                return Err(format!("{name} share {v}% is above 100%"));
            }
        }
        if self.instructions == 0 || self.instructions > 4096 {
            return Err(format!(
                "instructions {} is not in 1..=4096",
                self.instructions
            ));
        }
        if self.loops == 0 || self.loops > 1024 {
            return Err(format!("loops {} is not in 1..=1024", self.loops));
        }
        if self.split_levels > self.depth {
            return Err(format!(
                "split levels {} exceed the depth {}",
                self.split_levels, self.depth
            ));
        }
        if self.grid == 0 || self.grid % 64 != 0 || self.grid > 64 * 64 {
            return Err(format!(
                "grid {} is not a multiple of 64 up to 4096",
                self.grid
            ));
        }
        Ok(())
    }

    fn divergent_count(&self) -> u32 {
        (self.instructions * self.divergent_pct + 50) / 100
    }

    /// The statements of one part: `n` statements, `memory_pct` of them memory accesses,
    /// spread evenly, drawn from `seed`.
    fn part(n: u32, memory_pct: u32, seed: u32) -> Vec<Op> {
        let memory = (n * memory_pct + 50) / 100;
        let mut stores = 0;
        (0..n)
            .map(|j| {
                let h = mix(seed.wrapping_mul(4099).wrapping_add(j));
                let v = (h % 3) as usize;
                let w = ((h >> 4) % 3) as usize;
                // Memory statements at positions j where the running share crosses a whole one.
                if memory > 0 && (j + 1) * memory / n > j * memory / n {
                    if (h >> 8) & 1 == 0 {
                        Op::Load(v, (h >> 12) % INPUT_WORDS)
                    } else {
                        stores += 1;
                        Op::Store(v, (stores - 1) % SCRATCH_PER_ITEM)
                    }
                } else {
                    match (h >> 20) % 4 {
                        0 => Op::MulAdd(v, (h >> 8) | 1, w),
                        1 => Op::XorAdd(v, w, h >> 9),
                        2 => Op::Rotate(v, 1 + (h >> 10) % 31),
                        _ => Op::SubAnd(v, w, h >> 11),
                    }
                }
            })
            .collect()
    }

    fn uniform(&self) -> Vec<Op> {
        Self::part(
            self.instructions - self.divergent_count(),
            self.uniform_memory_pct,
            0xFFFF,
        )
    }

    fn leaf(&self, leaf: u32) -> Vec<Op> {
        Self::part(self.divergent_count(), self.memory_pct, leaf)
    }

    fn c_stmt(op: Op) -> String {
        const V: [&str; 3] = ["a", "b", "c"];
        match op {
            Op::MulAdd(v, k, w) => format!("{0} = {0} * {k}u + {1};", V[v], V[w]),
            Op::XorAdd(v, w, k) => format!("{} ^= {} + {k}u;", V[v], V[w]),
            Op::Rotate(v, s) => format!("{0} = ({0} << {s}) | ({0} >> {1});", V[v], 32 - s),
            Op::SubAnd(v, w, k) => format!("{} -= {} & {k}u;", V[v], V[w]),
            Op::Load(v, k) => format!("{0} += in[({0} + {k}u) & {1}u];", V[v], INPUT_WORDS - 1),
            Op::Store(v, slot) => format!("scratch[i * {SCRATCH_PER_ITEM}u + {slot}u] = {};", V[v]),
        }
    }

    fn eval(op: Op, vars: &mut [u32; 3], input: &[u32], scratch: &mut [u32], i: u32) {
        match op {
            Op::MulAdd(v, k, w) => vars[v] = vars[v].wrapping_mul(k).wrapping_add(vars[w]),
            Op::XorAdd(v, w, k) => vars[v] ^= vars[w].wrapping_add(k),
            Op::Rotate(v, s) => vars[v] = vars[v].rotate_left(s),
            Op::SubAnd(v, w, k) => vars[v] = vars[v].wrapping_sub(vars[w] & k),
            Op::Load(v, k) => {
                let at = (vars[v].wrapping_add(k) & (INPUT_WORDS - 1)) as usize;
                vars[v] = vars[v].wrapping_add(input[at]);
            }
            Op::Store(v, slot) => scratch[(i * SCRATCH_PER_ITEM + slot) as usize] = vars[v],
        }
    }

    /// The nest of conditionals below `level` for the leaves `prefix` (bits of the lane id
    /// chosen so far), indented by `indent`.
    fn c_nest(&self, out: &mut String, level: u32, prefix: u32, indent: usize) {
        let pad = " ".repeat(indent);
        if level == self.depth {
            for op in self.leaf(prefix) {
                let _ = writeln!(out, "{pad}{}", Self::c_stmt(op));
            }
            return;
        }
        if level < self.split_levels {
            let _ = writeln!(out, "{pad}PWS_SPLIT();");
        }
        let _ = writeln!(out, "{pad}if (lane & {}u) {{", 1u32 << level);
        self.c_nest(out, level + 1, prefix | 1 << level, indent + 2);
        let _ = writeln!(out, "{pad}}} else {{");
        self.c_nest(out, level + 1, prefix, indent + 2);
        let _ = writeln!(out, "{pad}}}");
    }

    /// The OpenCL C kernel.
    pub fn kernel_source(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// PWS synthetic benchmark: depth {}, {}% divergent, {}% memory in the divergent part,\n\
             // {}% memory in the uniform part, {} instructions per iteration, {} loop trip(s),\n\
             // PWS_SPLIT on the first {} level(s). Generated by `pws synthetic`.",
            self.depth,
            self.divergent_pct,
            self.memory_pct,
            self.uniform_memory_pct,
            self.instructions,
            self.loops,
            self.split_levels
        );
        s.push_str(
            "__kernel void synthetic(__global const uint *in, __global uint *out,\n\
             \x20                       __global uint *scratch) {\n\
             \x20 uint i = get_global_id(0);\n\
             \x20 uint lane = get_local_id(0) & 63u;\n\
             \x20 uint a = in[i & 511u], b = i * 2654435761u, c = lane + 1u;\n",
        );
        let _ = writeln!(s, "  for (uint t = 0; t < {}u; t++) {{", self.loops);
        let _ = writeln!(s, "    PWS_LOOP_BOUND({});", self.loops);
        for op in self.uniform() {
            let _ = writeln!(s, "    {}", Self::c_stmt(op));
        }
        self.c_nest(&mut s, 0, 0, 4);
        s.push_str(
            "  }\n  out[i * 3u] = a;\n  out[i * 3u + 1u] = b;\n  out[i * 3u + 2u] = c;\n}\n",
        );
        s
    }

    /// The input words (deterministic).
    pub fn input(&self) -> Vec<u32> {
        (0..INPUT_WORDS).map(|k| mix(k ^ 0x5EED)).collect()
    }

    /// The expected `out` and `scratch` buffers, evaluated statement by statement.
    pub fn expected(&self) -> (Vec<u32>, Vec<u32>) {
        let input = self.input();
        let mut out = vec![0; 3 * self.grid as usize];
        let mut scratch = vec![0; (SCRATCH_PER_ITEM * self.grid) as usize];
        let uniform = self.uniform();
        for i in 0..self.grid {
            let lane = i & 63;
            let mut vars = [
                input[(i & 511) as usize],
                i.wrapping_mul(2_654_435_761),
                lane + 1,
            ];
            let leaf = lane & ((1 << self.depth) - 1);
            let body = self.leaf(leaf);
            for _ in 0..self.loops {
                for &op in uniform.iter().chain(body.iter()) {
                    Self::eval(op, &mut vars, &input, &mut scratch, i);
                }
            }
            out[3 * i as usize..3 * i as usize + 3].copy_from_slice(&vars);
        }
        (out, scratch)
    }

    /// The launch manifest for the kernel at `kernel` with its data files `in_file`,
    /// `out_file` and `scratch_file` (paths relative to the manifest).
    pub fn manifest(
        &self,
        kernel: &str,
        in_file: &str,
        out_file: &str,
        scratch_file: &str,
    ) -> String {
        format!(
            "# PWS synthetic benchmark (pws synthetic): see the kernel's header for its knobs.\n\
             kernel = \"{kernel}\"\n\
             grid = {}\n\
             workgroup = 64\n\
             args = [\"in\", \"out\", \"scratch\"]\n\n\
             [[buffer]]\nname = \"in\"\ntype = \"u32\"\nfile = \"{in_file}\"\n\n\
             [[buffer]]\nname = \"out\"\ntype = \"u32\"\nlen = {}\nexpect = \"{out_file}\"\n\n\
             [[buffer]]\nname = \"scratch\"\ntype = \"u32\"\nlen = {}\nexpect = \"{scratch_file}\"\n",
            self.grid,
            3 * self.grid,
            SCRATCH_PER_ITEM * self.grid
        )
    }
}

/// Words as a data file (docs/manifest.md: whitespace-separated, `#` comments).
/// The files of one kernel: (name, contents); `synthetic.toml` is the manifest.
pub fn files(k: &Synthetic) -> Vec<(&'static str, String)> {
    let (out, scratch) = k.expected();
    vec![
        ("synthetic.cl", k.kernel_source()),
        ("synthetic_in.txt", data_file(&k.input())),
        ("synthetic_out.expect.txt", data_file(&out)),
        ("synthetic_scratch.expect.txt", data_file(&scratch)),
        (
            "synthetic.toml",
            k.manifest(
                "synthetic.cl",
                "synthetic_in.txt",
                "synthetic_out.expect.txt",
                "synthetic_scratch.expect.txt",
            ),
        ),
    ]
}

/// Writes `k`'s [`files`] into `dir` (created) and returns the manifest's path.
pub fn write(k: &Synthetic, dir: &std::path::Path) -> Result<std::path::PathBuf, String> {
    k.validate()?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, text) in files(k) {
        let path = dir.join(name);
        // A file that is already there with these contents stays (sweeps share them).
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            pws_isa::output::write(&path, text.as_bytes(), &[])
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(dir.join("synthetic.toml"))
}

pub fn data_file(words: &[u32]) -> String {
    let mut s = String::from("# generated by pws synthetic\n");
    for row in words.chunks(8) {
        let line: Vec<String> = row.iter().map(u32::to_string).collect();
        s.push_str(&line.join(" "));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_knobs_set_the_statement_counts() {
        let k = Synthetic {
            depth: 3,
            divergent_pct: 75,
            memory_pct: 50,
            uniform_memory_pct: 0,
            instructions: 40,
            ..Synthetic::default()
        };
        assert_eq!(k.uniform().len(), 10);
        assert!(k
            .uniform()
            .iter()
            .all(|op| !matches!(op, Op::Load(..) | Op::Store(..))));
        for leaf in 0..8 {
            let ops = k.leaf(leaf);
            assert_eq!(ops.len(), 30);
            let mem = ops
                .iter()
                .filter(|op| matches!(op, Op::Load(..) | Op::Store(..)))
                .count();
            assert_eq!(mem, 15, "leaf {leaf}");
        }
    }

    #[test]
    fn every_leaf_is_a_different_sequence() {
        let k = Synthetic::default();
        let leaves: Vec<Vec<Op>> = (0..64).map(|l| k.leaf(l)).collect();
        for a in 0..64 {
            for b in a + 1..64 {
                assert_ne!(leaves[a], leaves[b], "leaves {a} and {b}");
            }
        }
    }

    #[test]
    fn the_source_nests_depth_levels_and_marks_the_split_levels() {
        let k = Synthetic {
            depth: 3,
            split_levels: 2,
            ..Synthetic::default()
        };
        let src = k.kernel_source();
        assert_eq!(src.matches("if (lane &").count(), 7);
        assert_eq!(src.matches("PWS_SPLIT();").count(), 3);
        assert!(src.contains("PWS_LOOP_BOUND(1);"));
    }

    #[test]
    fn out_of_range_knobs_are_named() {
        let bad = |k: Synthetic| k.validate().unwrap_err();
        assert!(bad(Synthetic {
            depth: 7,
            ..Synthetic::default()
        })
        .contains("depth 7"));
        assert!(bad(Synthetic {
            memory_pct: 101,
            ..Synthetic::default()
        })
        .contains("memory"));
        assert!(bad(Synthetic {
            grid: 100,
            ..Synthetic::default()
        })
        .contains("grid 100"));
        assert!(bad(Synthetic {
            split_levels: 7,
            depth: 2,
            ..Synthetic::default()
        })
        .contains("split levels"));
        assert!(Synthetic::default().validate().is_ok());
    }

    #[test]
    fn the_expected_output_depends_on_the_leaf() {
        let k = Synthetic {
            depth: 2,
            instructions: 8,
            ..Synthetic::default()
        };
        let (out, _) = k.expected();
        let lanes: Vec<&[u32]> = out.chunks(3).take(4).collect();
        for a in 0..4 {
            for b in a + 1..4 {
                assert_ne!(lanes[a], lanes[b]);
            }
        }
    }
}
