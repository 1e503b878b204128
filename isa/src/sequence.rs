//! Launch sequences: multi-kernel programs as a host runs them. A manifest with `[[launch]]`
//! tables lists launches that run one after another on one set of buffers, each starting on
//! the memory the previous one left (Rodinia's bfs: visit, then update); a `[repeat]` table
//! runs the list again until a buffer holds only zeros (bfs's `over` flag), zeroing the
//! buffers it names before each pass, at most `max` times. Every executor (golden model, RTL,
//! WCET analysis) runs a sequence through [`LaunchSequence::run`], so they chain the same
//! launches in the same order. A plain manifest is a sequence of one launch. docs/manifest.md
//! has the format.

use std::path::{Path, PathBuf};

use crate::diag;
use crate::manifest::{Buffer, Manifest, ManifestError};

/// How a sequence repeats: the launches run as one pass, again and again until `until_zero`
/// holds only zeros after a pass, at most `max` passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repeat {
    /// The buffer that ends the repetition when a pass leaves it all zeros.
    pub until_zero: String,
    /// Buffers zeroed before each pass (the host's `over = 0`).
    pub reset: Vec<String>,
    /// The most passes; the WCET bound assumes this many.
    pub max: u32,
}

/// A manifest's launches, in order, on one set of buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchSequence {
    pub path: PathBuf,
    /// Each launch's manifest; all hold the same buffers, with their initial contents and
    /// expected final values (the values after the whole sequence).
    pub launches: Vec<Manifest>,
    pub repeat: Option<Repeat>,
}

/// Which launch of which pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Step {
    /// 0-based pass of a `[repeat]`ed sequence (always 0 without one).
    pub pass: u32,
    /// 0-based index into [`LaunchSequence::launches`].
    pub launch: usize,
}

/// A finished run of a sequence: every launch's result, in order, and the memory the last
/// launch left (one word vector per buffer, in manifest order).
#[derive(Debug)]
pub struct Ran<R> {
    pub steps: Vec<(Step, R)>,
    pub memory: Vec<Vec<u32>>,
}

impl<R> Ran<R> {
    /// The last launch's result.
    pub fn last(&self) -> &R {
        &self
            .steps
            .last()
            .expect("a sequence runs at least one launch")
            .1
    }
}

/// A repeated sequence whose `until_zero` buffer still held a non-zero word after `max`
/// passes.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}: the launch sequence did not finish: after {max} passes buffer `{}` still holds {nonzero} non-zero word(s) (`repeat.max` is {max})",
    diag::path(path),
    diag::value(buffer)
)]
pub struct Unfinished {
    pub path: PathBuf,
    pub buffer: String,
    pub max: u32,
    pub nonzero: usize,
}

impl LaunchSequence {
    /// Reads and checks the manifest at `path` (any manifest: a plain one is one launch).
    pub fn load(path: impl AsRef<Path>) -> Result<LaunchSequence, ManifestError> {
        let path = path.as_ref();
        LaunchSequence::parse(&Manifest::read(path)?, path)
    }

    /// Parses manifest `text` as if it were the file `path` (see [`Manifest::parse`]).
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<LaunchSequence, ManifestError> {
        let path = path.as_ref();
        let (launches, repeat) = Manifest::parse_launches(text, path)?;
        Ok(LaunchSequence {
            path: path.to_path_buf(),
            launches,
            repeat,
        })
    }

    /// The one launch of a plain manifest (one launch, no `[repeat]`).
    pub fn single(&self) -> Option<&Manifest> {
        match (&self.launches[..], &self.repeat) {
            ([only], None) => Some(only),
            _ => None,
        }
    }

    /// The buffers: initial contents, and expected values after the whole sequence.
    pub fn buffers(&self) -> &[Buffer] {
        &self.launches[0].buffers
    }

    /// The most passes the sequence may run: `repeat.max`, or 1.
    pub fn max_passes(&self) -> u32 {
        self.repeat.as_ref().map_or(1, |r| r.max)
    }

    /// The WCET bound of the sequence from its launches' bounds, in order: the launches of a
    /// pass run one after another, and a launch's bound does not depend on the memory it
    /// starts on, so the bound is the most passes times their sum.
    pub fn bound(&self, launch_bounds: impl IntoIterator<Item = u64>) -> u64 {
        u64::from(self.max_passes()) * launch_bounds.into_iter().sum::<u64>()
    }

    /// Runs the sequence: `launch` executes one launch on its manifest, whose buffers start
    /// with the contents the previous launch left, and returns what it measured and the
    /// buffers' final contents in manifest order. Returns every step's result in order and
    /// the memory the last one left, or the first error (an unfinished repetition is
    /// [`Unfinished`]).
    pub fn run<R, E: From<Unfinished>>(
        &self,
        launch: impl FnMut(Step, &Manifest) -> Result<(R, Vec<Vec<u32>>), E>,
    ) -> Result<Ran<R>, E> {
        self.run_until(launch, |_| false)
    }

    /// [`Self::run`], ending early, with the steps so far, after the first step whose result
    /// `halt` accepts (a run the user interrupted reports what it simulated).
    pub fn run_until<R, E: From<Unfinished>>(
        &self,
        mut launch: impl FnMut(Step, &Manifest) -> Result<(R, Vec<Vec<u32>>), E>,
        halt: impl Fn(&R) -> bool,
    ) -> Result<Ran<R>, E> {
        let index = |name: &str| {
            self.buffers()
                .iter()
                .position(|b| b.name == name)
                .expect("the manifest checked its repeat's buffer names")
        };
        let mut contents: Vec<Vec<u32>> = self.buffers().iter().map(|b| b.init.clone()).collect();
        let mut done = Vec::new();
        for pass in 0..self.max_passes() {
            for name in self.repeat.iter().flat_map(|r| &r.reset) {
                contents[index(name)].fill(0);
            }
            for (k, manifest) in self.launches.iter().enumerate() {
                let step = Step { pass, launch: k };
                let (result, after) = launch(step, &manifest.on(&contents))?;
                assert_eq!(
                    after.len(),
                    contents.len(),
                    "an executor reports every buffer"
                );
                contents = after;
                let halted = halt(&result);
                done.push((step, result));
                if halted {
                    return Ok(Ran {
                        steps: done,
                        memory: contents,
                    });
                }
            }
            let finished = match &self.repeat {
                None => true,
                Some(r) => contents[index(&r.until_zero)].iter().all(|&w| w == 0),
            };
            if finished {
                return Ok(Ran {
                    steps: done,
                    memory: contents,
                });
            }
        }
        let r = self.repeat.as_ref().expect("only a repetition runs out");
        Err(Unfinished {
            path: self.path.clone(),
            buffer: r.until_zero.clone(),
            max: r.max,
            nonzero: contents[index(&r.until_zero)]
                .iter()
                .filter(|&&w| w != 0)
                .count(),
        }
        .into())
    }

    /// `step` as messages name it (`pass 2 launch 1 (bfs.cl:bfs_update)`); empty for a
    /// plain manifest, whose messages need no such prefix.
    pub fn at(&self, step: Step) -> String {
        if self.single().is_some() {
            return String::new();
        }
        format!(
            "pass {} launch {} ({}): ",
            step.pass,
            step.launch,
            self.launches[step.launch].kernel_label()
        )
    }

    /// The buffers' contents in manifest order, from an executor's report (`words` of a
    /// buffer by name; every executor reports every buffer).
    pub fn contents<'a>(&self, words: impl Fn(&str) -> Option<Vec<u32>> + 'a) -> Vec<Vec<u32>> {
        self.buffers()
            .iter()
            .map(|b| words(&b.name).expect("an executor reports every buffer"))
            .collect()
    }
}

impl Manifest {
    /// This launch on memory holding `contents` (one word vector per buffer, in manifest
    /// order): the next launch of a sequence. Expected values belong to the whole sequence,
    /// so the launch carries none.
    pub fn on(&self, contents: &[Vec<u32>]) -> Manifest {
        debug_assert_eq!(
            self.buffers.len(),
            contents.len(),
            "one word vector per buffer"
        );
        let buffers = self
            .buffers
            .iter()
            .zip(contents)
            .map(|(b, words)| Buffer {
                name: b.name.clone(),
                ty: b.ty,
                len: b.len,
                init: words.clone(),
                expect: None,
                tolerance_ulp: None,
            })
            .collect();
        Manifest {
            path: self.path.clone(),
            kernel: self.kernel.clone(),
            opencl: self.opencl.clone(),
            cflags: self.cflags.clone(),
            entry: self.entry.clone(),
            loop_bounds: self.loop_bounds.clone(),
            grid: self.grid,
            workgroup: self.workgroup,
            dims: self.dims,
            buffers,
            args: self.args.clone(),
            arg_offsets: self.arg_offsets.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LaunchSequence, String> {
        LaunchSequence::parse(text, "dir/seq.toml").map_err(|e| e.to_string())
    }

    const TWO: &str = r#"
kernel = "k.s"
grid = 64
workgroup = 64
args = ["a"]

[[buffer]]
name = "a"
type = "u32"
data = [3, 0]

[[buffer]]
name = "over"
type = "u32"
len = 1

[[launch]]
entry = "first"

[[launch]]
entry = "second"
grid = 128
args = ["a", 7]

[repeat]
until_zero = "over"
reset = ["over"]
max = 5
"#;

    #[test]
    fn launches_take_the_top_levels_keys_they_omit() {
        let s = parse(TWO).unwrap();
        assert_eq!(s.launches.len(), 2);
        assert!(s.single().is_none());
        let [a, b] = &s.launches[..] else {
            unreachable!()
        };
        assert_eq!((a.entry.as_deref(), a.grid[0]), (Some("first"), 64));
        assert_eq!(
            (b.entry.as_deref(), b.grid[0], b.args.len()),
            (Some("second"), 128, 2)
        );
        assert_eq!(s.max_passes(), 5);
        assert_eq!(s.repeat.as_ref().unwrap().reset, ["over"]);
    }

    #[test]
    fn a_plain_manifest_is_a_sequence_of_one_and_manifest_parse_refuses_sequences() {
        let plain = "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\n";
        let s = parse(plain).unwrap();
        assert_eq!(
            s.single(),
            Some(&Manifest::parse(plain, "dir/seq.toml").unwrap())
        );
        let e = Manifest::parse(TWO, "dir/seq.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("dir/seq.toml:") && e.contains("a launch sequence"),
            "{e}"
        );
    }

    #[test]
    fn bad_sequences_name_the_key() {
        let cases = [
            (
                TWO.replace("until_zero = \"over\"", "until_zero = \"b\""),
                "repeat.until_zero",
            ),
            (
                TWO.replace("reset = [\"over\"]", "reset = [\"over\", \"c\"]"),
                "repeat.reset[1]",
            ),
            (TWO.replace("max = 5", "max = 0"), "repeat.max"),
            (TWO.replace("grid = 128", "grid = 0"), "launch[1].grid"),
            (
                TWO.replace("args = [\"a\", 7]", "args = [\"z\"]"),
                "launch[1].args[0]",
            ),
            (TWO.replace("entry = \"first\"", "colour = 1"), "colour"),
            (TWO.replace("kernel = \"k.s\"\n", ""), "launch[0].kernel"),
        ];
        for (text, key) in cases {
            let e = parse(&text).unwrap_err();
            assert!(e.contains(key), "{key}: {e}");
        }
        let e = parse(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\n[repeat]\nuntil_zero = \"a\"\nmax = 2\n",
        )
        .unwrap_err();
        assert!(e.contains("`[[launch]]`"), "{e}");
        let many = format!(
            "kernel = \"k.s\"\ngrid = 1\nworkgroup = 1\n{}",
            "[[launch]]\n".repeat(crate::manifest::MAX_LAUNCHES + 1)
        );
        assert!(parse(&many).unwrap_err().contains("launches exceed"));
    }

    /// A stand-in executor: launch `first` adds 1 to a[0] and sets `over` while a[0] < 5.
    fn step(m: &Manifest) -> Vec<Vec<u32>> {
        let mut c: Vec<Vec<u32>> = m.buffers.iter().map(|b| b.init.clone()).collect();
        if m.entry.as_deref() == Some("first") && c[0][0] < 5 {
            c[0][0] += 1;
            c[1][0] = 1;
        }
        c
    }

    #[test]
    fn run_chains_memory_resets_and_stops_when_the_flag_stays_zero() {
        let s = parse(TWO).unwrap();
        let ran = s.run(|st, m| Ok::<_, Unfinished>((st, step(m)))).unwrap();
        let steps = &ran.steps;
        assert_eq!(ran.memory, [vec![5, 0], vec![0]]);
        assert_eq!(*ran.last(), Step { pass: 2, launch: 1 });
        // a[0] goes 3 -> 4 -> 5 in passes 0 and 1; pass 2 leaves `over` zero.
        assert_eq!(steps.len(), 6);
        assert_eq!(steps[5].0, Step { pass: 2, launch: 1 });
        let short = parse(&TWO.replace("max = 5", "max = 2")).unwrap();
        let e = short
            .run(|st, m| Ok::<_, Unfinished>((st, step(m))))
            .unwrap_err();
        assert_eq!((e.max, e.nonzero, e.buffer.as_str()), (2, 1, "over"));
        assert!(e.to_string().contains("did not finish"), "{e}");
    }

    #[test]
    fn run_until_ends_after_the_step_it_halts_at() {
        let s = parse(TWO).unwrap();
        let halt_at = Step { pass: 1, launch: 0 };
        let ran = s
            .run_until(
                |st, m| Ok::<_, Unfinished>((st, step(m))),
                |&st| st == halt_at,
            )
            .unwrap();
        assert_eq!(ran.steps.len(), 3);
        assert_eq!(*ran.last(), halt_at);
        // a[0] went 3 -> 4 in pass 0 and 4 -> 5 in pass 1's first launch, which set `over`.
        assert_eq!(ran.memory, [vec![5, 0], vec![1]]);
    }

    #[test]
    fn the_next_launch_starts_on_the_memory_the_last_left_without_expectations() {
        let s = parse(&TWO.replace("len = 1", "len = 1\nexpect = [0]")).unwrap();
        assert!(s.buffers()[1].expect.is_some());
        let next = s.launches[1].on(&[vec![9, 9], vec![1]]);
        assert_eq!(next.buffers[0].init, [9, 9]);
        assert!(next.buffers.iter().all(|b| b.expect.is_none()));
    }
}
