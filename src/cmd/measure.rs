//! One launch measured on the compute-unit RTL: the code path `pws compare` prints as a table
//! and `pws eval` records as the points of a sweep. A [`Launch`] is prepared once (manifest,
//! the program of every mode, the golden model on the unsplit kernel); [`Launch::measure`]
//! then runs one mode and S under each compaction asked for and checks every run three ways:
//! against the golden model on the same program, against the unsplit kernel and against the
//! manifest's `expect` values. [`Launch::bound`] is the WCET bound `pws wcet` gives for it.

use std::path::Path;

use pws_hdl::config::HwConfig;
use pws_hdl::cu::CuMode;
use pws_hdl::swizzle::SwizzleMode;
use pws_host::compile::SplitPolicy;
use pws_host::kernel::DwsBound;
use pws_host::launch::{analyse_launch_with, KernelSource, LaunchKernel, LaunchOptions, ModeBound};
use pws_host::timing::Mode;
use pws_isa::manifest::Buffer;
use pws_isa::sequence::{LaunchSequence, Ran};
use pws_sim::cu::ports::Engine;
use pws_sim::cu::RunOptions;
use pws_verify::golden;
use serde::Serialize;

/// What preparing or measuring a launch can fail with; `Send` so sweeps can run in threads.
pub type MeasureError = Box<dyn std::error::Error + Send + Sync>;

/// One RTL run beside its bound.
#[derive(Clone, Serialize)]
pub struct Row {
    pub mode: Mode,
    #[serde(rename = "S")]
    pub s: usize,
    pub compaction: String,
    pub cycles: u64,
    /// `None` when the analysis could not bound the kernel (the reason is in the notes).
    pub bound: Option<u64>,
    /// bound / cycles.
    pub tightness: Option<f64>,
    pub lane_utilisation: f64,
    /// VALU passes issued: the EU cycles of the BCC/SCC paper.
    pub valu_passes: u64,
    pub passes_skipped: u64,
    /// The final memory equals the golden model's on the same program.
    pub golden_equal: bool,
    /// The final memory equals the golden model's on the unsplit kernel.
    pub unsplit_equal: bool,
    /// The buffers with `expect` values hold them (`None`: the manifest gives none).
    pub expect_equal: Option<bool>,
    /// Where the memory first differs from each reference it differs from, element by
    /// element: "y[3] is 7, the golden model has 9" (empty when it equals them all).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub differences: Vec<String>,
}

impl Row {
    /// Why this run is wrong, if it is: memory unlike a reference, or cycles above the bound.
    pub fn failure(&self) -> Option<String> {
        let mut why = Vec::new();
        if !self.golden_equal {
            why.push("memory differs from the golden model".to_string());
        }
        if !self.unsplit_equal {
            why.push("memory differs from the unsplit kernel".to_string());
        }
        if self.expect_equal == Some(false) {
            why.push("memory differs from the manifest's expected values".to_string());
        }
        why.extend(self.differences.iter().cloned());
        if let Some(b) = self.bound.filter(|&b| self.cycles > b) {
            why.push(format!("{} cycles exceed the WCET bound {b}", self.cycles));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

/// A compaction by the name the CLI and the sweep files use.
pub fn compaction(name: &str) -> Result<SwizzleMode, String> {
    match name {
        "none" => Ok(SwizzleMode::None),
        "bcc" => Ok(SwizzleMode::Bcc),
        "scc" => Ok(SwizzleMode::Scc),
        other => Err(format!(
            "unknown compaction '{}' (expected none, bcc or scc)",
            pws_isa::diag::value(other)
        )),
    }
}

/// One launch of a sequence, ready to run in any mode: the programs do not depend on S, so
/// each mode's is prepared once.
pub struct Prepared {
    pub source: KernelSource,
    kernels: Vec<(Mode, LaunchKernel)>,
}

impl Prepared {
    /// The program `mode` runs.
    pub fn kernel(&self, mode: Mode) -> &LaunchKernel {
        &self
            .kernels
            .iter()
            .find(|(m, _)| *m == mode)
            .expect("every mode is prepared")
            .1
    }
}

/// A launch, or a launch sequence (pws_isa::sequence), ready to run in any mode, with its
/// warnings.
pub struct Launch {
    pub sequence: LaunchSequence,
    /// One per launch of the sequence, in its order.
    pub launches: Vec<Prepared>,
    /// The final memory of the unsplit kernels on the golden model.
    unsplit: Vec<Vec<u32>>,
    /// The compute unit: `--config` as given, or the `cu` preset grown to the kernels'
    /// registers.
    pub base: HwConfig,
    /// The preparation's warnings, each prefixed by its mode.
    pub notes: Vec<String>,
    /// PWS's split points besides the marked ones.
    split: SplitPolicy,
    /// The simulator of the runs.
    pub engine: Engine,
}

impl Launch {
    /// Loads `manifest`, prepares the program of every mode of every launch and runs the
    /// unsplit kernels on the golden model. `config` is a preset name or a TOML file (None:
    /// the `cu` preset); `split` as `pws run --split-all` or `--split-auto` choose it.
    pub fn prepare(
        manifest: &Path,
        config: &Option<String>,
        split: SplitPolicy,
    ) -> Result<Launch, MeasureError> {
        let mut base = super::wcet::hw_config(config.as_deref())?;
        let sequence = LaunchSequence::load(manifest)?;
        let mut launches = Vec::new();
        let mut notes = Vec::new();
        for manifest in &sequence.launches {
            for w in manifest.buffer_type_warnings() {
                if !notes.contains(&w) {
                    notes.push(w);
                }
            }
            let source = KernelSource::load(manifest)?;
            let kernels = Mode::ALL
                .iter()
                .map(|&m| LaunchKernel::new(&source, m, split).map(|k| (m, k)))
                .collect::<Result<Vec<_>, _>>()?;
            for (m, k) in &kernels {
                for w in &k.warnings {
                    let note = format!("{}: {w}", m.name());
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
            }
            // Every mode's program: splits, merges and restored branches add words.
            for (_, k) in &kernels {
                base = super::fit_kernel(base, config, &k.program);
            }
            launches.push(Prepared { source, kernels });
        }
        let config = golden::Config {
            mode: golden::Mode::NoSplit,
            ..golden::Config::default()
        };
        let unsplit = golden_sequence(&sequence, &launches, Mode::NoSplit, &config)?.memory;
        Ok(Launch {
            sequence,
            launches,
            unsplit,
            base,
            notes,
            split,
            engine: Engine::RustHdl,
        })
    }

    /// The compute unit a run in `mode` with `s` SpSIMDs uses: no-split keeps the base's S.
    pub fn hw(&self, mode: Mode, s: usize) -> HwConfig {
        if mode == Mode::NoSplit {
            self.base
        } else {
            self.base.with_spsimds(s)
        }
    }

    /// The analysis of each launch of the sequence in `mode` on `hw`, or why one cannot be
    /// bounded; DWS is bounded by `dws`.
    fn analyses_with(
        &self,
        mode: Mode,
        hw: &HwConfig,
        dws: DwsBound,
    ) -> Result<Vec<ModeBound>, String> {
        let machine = pws_verify::bound::machine(hw);
        let options = LaunchOptions {
            split: self.split,
            dws: Some(dws),
            ..LaunchOptions::default()
        };
        self.sequence
            .launches
            .iter()
            .zip(&self.launches)
            .map(|(manifest, launch)| {
                analyse_launch_with(manifest, &launch.source, &machine, &[mode], &options)
                    .map(|r| r.mode(mode).expect("the analysed mode is reported").clone())
                    .map_err(|e| e.to_string())
            })
            .collect()
    }

    /// [`Launch::analyses_with`] the serialized DWS bound, the one every run is checked against.
    fn analyses(&self, mode: Mode, hw: &HwConfig) -> Result<Vec<ModeBound>, String> {
        self.analyses_with(mode, hw, DwsBound::Serialized)
    }

    /// The DWS bound as [P] writes it (Lemma 5.7: every step charged S + 1 times), for
    /// comparing PWS with the paper's DWS analysis. Runs are checked against the serialized
    /// bound (docs/wcet.md, "DWS").
    pub fn dws_lemma57_bound(&self, hw: &HwConfig) -> Result<u64, String> {
        let launches = self.analyses_with(Mode::Dws, hw, DwsBound::Lemma57)?;
        Ok(self.sequence.bound(launches.iter().map(|b| b.bound)))
    }

    /// The WCET bound of the launch in `mode` on `hw`, or why the analysis cannot give one:
    /// for a sequence, [`LaunchSequence::bound`] of its launches' bounds.
    pub fn bound(&self, mode: Mode, hw: &HwConfig) -> Result<u64, String> {
        self.bound_and_notes(mode, hw).map(|(b, _)| b)
    }

    /// [`Launch::bound`], and how the analysis bounded loops nobody annotated
    /// ([`pws_host::launch::LaunchReport::notes`]).
    pub fn bound_and_notes(&self, mode: Mode, hw: &HwConfig) -> Result<(u64, Vec<String>), String> {
        let launches = self.analyses(mode, hw)?;
        let notes = launches
            .iter()
            .flat_map(|b| b.inferred_notes.clone())
            .collect();
        Ok((self.sequence.bound(launches.iter().map(|b| b.bound)), notes))
    }

    /// The compute unit PWS with `s` SpSIMDs per SIMD runs this launch on when the SpSIMDs no
    /// wavefront of it can use are re-provisioned as SIMDs ([P] Eq 2): with c the most split
    /// contexts Select lets a wavefront hold at once (over the sequence's launches), the
    /// S - c idle SpSIMDs of each SIMD become N(S - c)/(c + 1) more SIMDs, every SIMD with c
    /// SpSIMDs. The slots per SIMD stay as they are.
    pub fn reprovisioned(&self, s: usize) -> Result<HwConfig, String> {
        let hw = self.hw(Mode::Pws, s);
        let peak = self
            .analyses(Mode::Pws, &hw)?
            .iter()
            .map(|b| b.count)
            .max()
            .unwrap_or(0);
        let c = usize::try_from(peak).unwrap_or(usize::MAX).min(s);
        let simds = pws_host::select::simd_total(hw.simds_per_cu as u64, s as u64, c as u64);
        let re = HwConfig {
            simds_per_cu: usize::try_from(simds).unwrap_or(usize::MAX),
            ..hw
        }
        .with_spsimds(c);
        re.validate().map_err(|e| e.to_string())?;
        Ok(re)
    }

    /// Runs `mode` with `s` SpSIMDs under each of `compactions` on the RTL, one row each, with
    /// `bound` set beside the cycles (a sequence's cycles are its launches' sum). Without
    /// `max_cycles` each launch's cap is sized from the golden model's run of the same
    /// program, as `pws run` sizes it.
    pub fn measure(
        &self,
        mode: Mode,
        s: usize,
        compactions: &[(String, SwizzleMode)],
        bound: Option<u64>,
        max_cycles: Option<u64>,
    ) -> Result<Vec<Row>, MeasureError> {
        self.measure_on(self.hw(mode, s), mode, compactions, bound, max_cycles)
    }

    /// [`Launch::measure`] on the compute unit `hw`, whose SpSIMDs are the S of the split
    /// modes.
    pub fn measure_on(
        &self,
        hw: HwConfig,
        mode: Mode,
        compactions: &[(String, SwizzleMode)],
        bound: Option<u64>,
        max_cycles: Option<u64>,
    ) -> Result<Vec<Row>, MeasureError> {
        let s = hw.spsimds_per_simd;
        let config = golden::Config {
            mode: if mode == Mode::NoSplit {
                golden::Mode::NoSplit
            } else {
                golden::Mode::Pws
            },
            s,
            final_registers: false,
            ..golden::Config::default()
        };
        let reference = golden_sequence(&self.sequence, &self.launches, mode, &config)?;
        // Each launch's limits, from the golden model's run of it (a run of the sequence takes
        // the golden model's path: a run that leaves it differs in memory anyway).
        let limits: Vec<_> = reference
            .steps
            .iter()
            .map(|(_, stats)| pws_verify::sizing::from_stats(stats, &hw))
            .collect();
        let per_pass = self.sequence.launches.len();
        let mut rows = Vec::new();
        let engine = super::engine_factory(self.engine);
        for (name, swizzle) in compactions {
            let ran = self.sequence.run(|step, manifest| {
                let index = step.pass as usize * per_pass + step.launch;
                let sized = limits.get(index).or(limits.last()).expect("sized");
                let report = pws_sim::cu::run_on(
                    &self.launches[step.launch].kernel(mode).program,
                    manifest,
                    &RunOptions {
                        compaction: *swizzle,
                        max_cycles: max_cycles.unwrap_or(sized.max_cycles),
                        max_instructions: sized.max_instructions,
                        ..RunOptions::new(
                            hw,
                            match mode {
                                Mode::NoSplit => CuMode::NoSplit,
                                Mode::Dws => CuMode::Dws,
                                Mode::Pws => CuMode::Pws,
                            },
                        )
                    },
                    &*engine,
                )
                .map_err(|e| format!("{}{e}", self.sequence.at(step)))?;
                let contents = self
                    .sequence
                    .contents(|n| report.buffers.get(n).map(<[u32]>::to_vec));
                Ok::<_, MeasureError>((report, contents))
            })?;
            // Compared as each buffer says: bit-exact, or within its tolerance_ulp (f32).
            let expected: Vec<_> = self
                .sequence
                .buffers()
                .iter()
                .zip(&ran.memory)
                .filter(|(b, _)| b.expect.is_some())
                .collect();
            let expect_equal = (!expected.is_empty()).then(|| {
                expected
                    .iter()
                    .all(|(b, words)| b.first_mismatch(words).is_none())
            });
            let buffers = self.sequence.buffers();
            let differences = [
                first_difference(buffers, &ran.memory, &reference.memory, "the golden model"),
                first_difference(buffers, &ran.memory, &self.unsplit, "the unsplit kernel"),
                buffers
                    .iter()
                    .zip(&ran.memory)
                    .find_map(|(b, words)| b.mismatch(words)),
            ]
            .into_iter()
            .flatten()
            .collect();
            let sum = |f: fn(&pws_sim::cu::RunReport) -> u64| -> u64 {
                ran.steps.iter().map(|(_, r)| f(r)).sum()
            };
            let (cycles, valu_passes) = (sum(|r| r.cycles), sum(|r| r.valu_passes));
            rows.push(Row {
                mode,
                s: if mode == Mode::NoSplit { 0 } else { s },
                compaction: name.clone(),
                cycles,
                bound,
                tightness: bound.map(|b| b as f64 / cycles.max(1) as f64),
                lane_utilisation: pws_sim::cu::lane_utilisation(
                    sum(|r| r.active_lane_ops),
                    valu_passes,
                ),
                valu_passes,
                passes_skipped: sum(|r| r.passes_skipped),
                golden_equal: ran.memory == reference.memory,
                unsplit_equal: ran.memory == self.unsplit,
                expect_equal,
                differences,
            });
        }
        Ok(rows)
    }
}

/// The first element of `got` unlike `reference`'s (buffers in manifest order), as
/// "name[i] is X, `whose` has Y".
fn first_difference(
    buffers: &[Buffer],
    got: &[Vec<u32>],
    reference: &[Vec<u32>],
    whose: &str,
) -> Option<String> {
    buffers
        .iter()
        .zip(got.iter().zip(reference))
        .find_map(|(b, (got, reference))| {
            let bits = |words| b.ty.unpack(words, b.len);
            let i = bits(got)
                .iter()
                .zip(bits(reference))
                .position(|(g, r)| *g != r)?;
            let value = |words| b.values(words)[i];
            Some(format!(
                "{}[{i}] is {}, {whose} has {}",
                b.name,
                value(got),
                value(reference)
            ))
        })
}

/// The golden model's run of `sequence` in `mode`: each launch's statistics and the final
/// memory.
fn golden_sequence(
    sequence: &LaunchSequence,
    launches: &[Prepared],
    mode: Mode,
    config: &golden::Config,
) -> Result<Ran<golden::Stats>, MeasureError> {
    sequence.run(|step, manifest| {
        let report = golden::run(
            &launches[step.launch].kernel(mode).program,
            manifest,
            config,
        )
        .map_err(|e| format!("{}{e}", sequence.at(step)))?;
        let contents = sequence.contents(|n| report.buffers.get(n).map(|v| v.words()));
        Ok((report.stats, contents))
    })
}
