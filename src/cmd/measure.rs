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
use pws_host::launch::{analyse_launch, KernelSource, LaunchKernel};
use pws_host::timing::Mode;
use pws_isa::manifest::Manifest;
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

/// A launch ready to run in any mode: the programs do not depend on S, so each mode's is
/// prepared once, with its warnings.
pub struct Launch {
    pub manifest: Manifest,
    pub source: KernelSource,
    kernels: Vec<(Mode, LaunchKernel)>,
    unsplit: golden::Report,
    /// The compute unit: `--config` as given, or the `cu` preset grown to the kernel's registers.
    pub base: HwConfig,
    /// The preparation's warnings, each prefixed by its mode.
    pub notes: Vec<String>,
    /// PWS's split points besides the marked ones.
    split: SplitPolicy,
    /// The simulator of the runs.
    pub engine: Engine,
}

impl Launch {
    /// Loads `manifest`, prepares the program of every mode and runs the unsplit kernel on
    /// the golden model. `config` is a preset name or a TOML file (None: the `cu` preset);
    /// `split` as `pws run --split-all` or `--split-auto` choose it.
    pub fn prepare(
        manifest: &Path,
        config: &Option<String>,
        split: SplitPolicy,
    ) -> Result<Launch, MeasureError> {
        let base = super::wcet::hw_config(config.as_deref())?;
        let manifest = Manifest::load(manifest)?;
        let source = KernelSource::load(&manifest)?;
        let kernels = Mode::ALL
            .iter()
            .map(|&m| LaunchKernel::new(&source, m, split).map(|k| (m, k)))
            .collect::<Result<Vec<_>, _>>()?;
        let notes = kernels
            .iter()
            .flat_map(|(m, k)| k.warnings.iter().map(move |w| format!("{}: {w}", m.name())))
            .collect();
        let unsplit_program = &kernels[0].1.program;
        let base = super::fit_registers(base, config, unsplit_program);
        let unsplit = golden::run(
            unsplit_program,
            &manifest,
            &golden::Config {
                mode: golden::Mode::NoSplit,
                ..golden::Config::default()
            },
        )?;
        Ok(Launch {
            manifest,
            source,
            kernels,
            unsplit,
            base,
            notes,
            split,
            engine: Engine::RustHdl,
        })
    }

    /// The program `mode` runs.
    pub fn kernel(&self, mode: Mode) -> &LaunchKernel {
        &self
            .kernels
            .iter()
            .find(|(m, _)| *m == mode)
            .expect("every mode is prepared")
            .1
    }

    /// The compute unit a run in `mode` with `s` SpSIMDs uses: no-split keeps the base's S.
    pub fn hw(&self, mode: Mode, s: usize) -> HwConfig {
        if mode == Mode::NoSplit {
            self.base
        } else {
            self.base.with_spsimds(s)
        }
    }

    /// The WCET bound of the launch in `mode` on `hw`, or why the analysis cannot give one.
    pub fn bound(&self, mode: Mode, hw: &HwConfig) -> Result<u64, String> {
        analyse_launch(
            &self.manifest,
            &self.source,
            &pws_verify::bound::machine(hw),
            &[mode],
            self.split,
        )
        .map(|b| b.mode(mode).expect("the analysed mode is reported").bound)
        .map_err(|e| e.to_string())
    }

    /// Runs `mode` with `s` SpSIMDs under each of `compactions` on the RTL, one row each, with
    /// `bound` set beside the cycles. Without `max_cycles` the cap is sized from the golden
    /// model's run of the same program, as `pws run` sizes it.
    pub fn measure(
        &self,
        mode: Mode,
        s: usize,
        compactions: &[(String, SwizzleMode)],
        bound: Option<u64>,
        max_cycles: Option<u64>,
    ) -> Result<Vec<Row>, MeasureError> {
        let hw = self.hw(mode, s);
        let program = &self.kernel(mode).program;
        let reference = golden::run(
            program,
            &self.manifest,
            &golden::Config {
                mode: if mode == Mode::NoSplit {
                    golden::Mode::NoSplit
                } else {
                    golden::Mode::Pws
                },
                s,
                final_registers: false,
                ..golden::Config::default()
            },
        )?;
        let limits = pws_verify::sizing::from_stats(&reference.stats, &hw);
        let same =
            |golden: &golden::Report, report: &pws_sim::cu::RunReport| {
                golden.buffers.0.iter().all(|(name, values)| {
                    report.buffers.get(name) == Some(values.words().as_slice())
                })
            };
        // Compared as each buffer says: bit-exact, or within its tolerance_ulp (f32).
        let expected: Vec<&pws_isa::manifest::Buffer> = self
            .manifest
            .buffers
            .iter()
            .filter(|b| b.expect.is_some())
            .collect();
        let mut rows = Vec::new();
        let engine = super::engine_factory(self.engine);
        for (name, swizzle) in compactions {
            let report = pws_sim::cu::run_on(
                program,
                &self.manifest,
                &RunOptions {
                    compaction: *swizzle,
                    max_cycles: max_cycles.unwrap_or(limits.max_cycles),
                    max_instructions: limits.max_instructions,
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
            )?;
            let expect_equal = (!expected.is_empty()).then(|| {
                expected.iter().all(|b| {
                    report
                        .buffers
                        .get(&b.name)
                        .is_some_and(|words| b.first_mismatch(words).is_none())
                })
            });
            rows.push(Row {
                mode,
                s: if mode == Mode::NoSplit { 0 } else { s },
                compaction: name.clone(),
                cycles: report.cycles,
                bound,
                tightness: bound.map(|b| b as f64 / report.cycles.max(1) as f64),
                lane_utilisation: report.lane_utilisation,
                valu_passes: report.valu_passes,
                passes_skipped: report.passes_skipped,
                golden_equal: same(&reference, &report),
                unsplit_equal: same(&self.unsplit, &report),
                expect_equal,
            });
        }
        Ok(rows)
    }
}
