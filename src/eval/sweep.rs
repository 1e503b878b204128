//! The sweep file of `pws eval` (docs/evaluation.md): kernels (manifest paths or globs, and
//! per-benchmark size lists), modes, S, compactions and compute-unit configurations, whose
//! cross product is the list of points. Paths are relative to the sweep file. Every error
//! names the file, the line and column of the key and what is wrong with it.

use std::path::{Path, PathBuf};

use pws_host::compile::SplitPolicy;
use pws_host::timing::Mode;
use serde::Deserialize;
use toml::Spanned;

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    kernels: Option<Spanned<Vec<String>>>,
    sizes: Option<Spanned<toml::Table>>,
    modes: Option<Spanned<Vec<String>>>,
    #[serde(rename = "S")]
    s: Option<Spanned<Vec<i64>>>,
    compaction: Option<Spanned<Vec<String>>>,
    configs: Option<Spanned<Vec<String>>>,
    max_cycles: Option<Spanned<i64>>,
    split: Option<Spanned<String>>,
    reprovision: Option<bool>,
    synthetic: Option<Spanned<super::synthetic::Section>>,
}

/// One launch of the sweep: a benchmark at one size.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The benchmark's name in tables and plots.
    pub benchmark: String,
    /// The size's name (the manifest's file stem for `[sizes]` entries, else "-").
    pub size: String,
    pub manifest: PathBuf,
}

/// One compute unit of the sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// As written in the sweep (a preset name or a path).
    pub name: String,
    /// What `--config` takes: the preset, or the path resolved against the sweep file.
    pub spec: String,
}

/// A parsed and checked sweep.
#[derive(Debug)]
pub struct Sweep {
    pub kernels: Vec<Kernel>,
    pub modes: Vec<Mode>,
    pub s: Vec<usize>,
    pub compactions: Vec<String>,
    pub configs: Vec<Config>,
    pub max_cycles: Option<u64>,
    /// PWS's split points besides the marked ones (`split = "marked" | "auto" | "all"`, as
    /// `pws compare --split-auto` / `--split-all`): for kernels written without `PWS_SPLIT()`.
    pub split: SplitPolicy,
    /// Each PWS point runs again on its compute unit with the SpSIMDs no wavefront can use
    /// re-provisioned as SIMDs ([P] Eq 2, Figure 12).
    pub reprovision: bool,
}

/// One point: one RTL run.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Position in the sweep's order (what `--point` takes).
    pub index: usize,
    pub kernel: Kernel,
    pub config: Config,
    pub mode: Mode,
    /// SpSIMDs per SIMD; 0 for no-split, which runs once whatever the S list.
    pub s: usize,
    pub compaction: String,
    /// The run on the compute unit re-provisioned for the kernel (`reprovision = true`):
    /// [P] Eq 2 with Select's peak count c of split contexts, N + N(S - c)/(c + 1) SIMDs with
    /// c SpSIMDs each.
    pub reprovisioned: bool,
}

impl Sweep {
    /// Reads and checks a sweep file.
    pub fn load(path: &Path) -> Result<Sweep, String> {
        let shown = pws_isa::diag::path(path);
        let text = pws_isa::input::read_text(path, pws_isa::input::Kind::Config)
            .map_err(|e| e.to_string())?;
        let at = |span: std::ops::Range<usize>| {
            let (line, col) = pws_isa::diag::line_col(&text, span.start);
            format!("{shown}:{line}:{col}")
        };
        let file: SweepFile = toml::from_str(&text).map_err(|e| {
            let place = e.span().map_or(format!("{shown}"), &at);
            format!("{place}: {}", pws_isa::diag::message(e.message()))
        })?;
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let key_error = |span: std::ops::Range<usize>, key: &str, what: String| {
            format!("{}: key `{key}`: {what}", at(span))
        };

        let mut kernels = Vec::new();
        if let Some(list) = &file.kernels {
            for pattern in list.get_ref() {
                let found = expand(&dir, pattern)
                    .map_err(|what| key_error(list.span(), "kernels", what))?;
                for manifest in found {
                    kernels.push(Kernel {
                        benchmark: String::new(),
                        size: "-".into(),
                        manifest,
                    });
                }
            }
        }
        name_benchmarks(&mut kernels);
        if let Some(sizes) = &file.sizes {
            for (name, value) in sizes.get_ref() {
                let list = value.as_array().filter(|a| a.iter().all(|v| v.is_str()));
                let Some(list) = list.filter(|a| !a.is_empty()) else {
                    return Err(key_error(
                        sizes.span(),
                        &format!("sizes.{name}"),
                        "expected a non-empty list of manifest paths".into(),
                    ));
                };
                for pattern in list.iter().filter_map(|v| v.as_str()) {
                    let found = expand(&dir, pattern)
                        .map_err(|what| key_error(sizes.span(), &format!("sizes.{name}"), what))?;
                    for manifest in found {
                        kernels.push(Kernel {
                            benchmark: name.clone(),
                            size: String::new(),
                            manifest,
                        });
                    }
                }
            }
        }
        name_sizes(&mut kernels);
        if let Some(section) = &file.synthetic {
            let root = pws_isa::opencl::cache_dir();
            kernels.extend(
                super::synthetic::kernels(section.get_ref(), &root)
                    .map_err(|what| key_error(section.span(), "synthetic", what))?,
            );
        }
        if kernels.is_empty() {
            return Err(format!(
                "{shown}: no kernels: give `kernels = [\"a.toml\", \"dir/*.toml\"]`, a `[sizes]` table or a `[synthetic]` table"
            ));
        }

        let modes = match &file.modes {
            None => Mode::ALL.to_vec(),
            Some(list) => nonempty(list, "modes", &key_error)?
                .iter()
                .map(|m| {
                    Mode::ALL
                        .into_iter()
                        .find(|x| x.name() == m)
                        .ok_or_else(|| {
                            key_error(
                                list.span(),
                                "modes",
                                format!(
                                    "unknown mode '{}' (expected nosplit, dws or pws)",
                                    pws_isa::diag::value(m)
                                ),
                            )
                        })
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        let s = match &file.s {
            None => vec![1],
            Some(list) => nonempty(list, "S", &key_error)?
                .iter()
                .map(|&v| {
                    usize::try_from(v)
                        .ok()
                        .filter(|v| *v <= pws_hdl::config::MAX_SPSIMDS)
                        .ok_or_else(|| {
                            key_error(
                                list.span(),
                                "S",
                                format!(
                                    "{v} is out of range 0..={} (SpSIMDs per SIMD)",
                                    pws_hdl::config::MAX_SPSIMDS
                                ),
                            )
                        })
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        let compactions = match &file.compaction {
            None => vec!["none".to_string()],
            Some(list) => {
                for c in nonempty(list, "compaction", &key_error)? {
                    crate::cmd::measure::compaction(c)
                        .map_err(|what| key_error(list.span(), "compaction", what))?;
                }
                list.get_ref().clone()
            }
        };
        let configs = match &file.configs {
            None => vec![Config {
                name: "cu".into(),
                spec: "cu".into(),
            }],
            Some(list) => nonempty(list, "configs", &key_error)?
                .iter()
                .map(|name| {
                    let spec = if pws_hdl::config::HwConfig::preset(name).is_some() {
                        name.clone()
                    } else {
                        let file = dir.join(name);
                        if !file.is_file() {
                            return Err(key_error(
                                list.span(),
                                "configs",
                                format!(
                                    "'{}' is neither a preset ({}) nor a file",
                                    pws_isa::diag::value(name),
                                    pws_hdl::config::PRESETS.join(", ")
                                ),
                            ));
                        }
                        file.to_string_lossy().into_owned()
                    };
                    crate::cmd::wcet::hw_config(Some(&spec))
                        .map_err(|what| key_error(list.span(), "configs", what))?;
                    Ok(Config {
                        name: name.clone(),
                        spec,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        let max_cycles = match &file.max_cycles {
            None => None,
            Some(v) => Some(
                u64::try_from(*v.get_ref())
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| {
                        key_error(v.span(), "max_cycles", "expected a positive integer".into())
                    })?,
            ),
        };
        let split = match &file.split {
            None => SplitPolicy::Marked,
            Some(v) => v
                .get_ref()
                .parse()
                .map_err(|what| key_error(v.span(), "split", what))?,
        };
        Ok(Sweep {
            kernels,
            modes,
            s,
            compactions,
            configs,
            max_cycles,
            split,
            reprovision: file.reprovision.unwrap_or(false),
        })
    }

    /// The cross product, in a fixed order: config, kernel, mode, S, compaction. No-split
    /// does not depend on S and is one point per compaction; with `reprovision`, each PWS
    /// point is followed by its run on the re-provisioned compute unit.
    pub fn points(&self) -> Vec<Point> {
        let mut points = Vec::new();
        for config in &self.configs {
            for kernel in &self.kernels {
                for &mode in &self.modes {
                    let s_list = if mode == Mode::NoSplit {
                        vec![0]
                    } else {
                        self.s.clone()
                    };
                    for s in s_list {
                        for compaction in &self.compactions {
                            let twins = if self.reprovision && mode == Mode::Pws {
                                [false, true].as_slice()
                            } else {
                                [false].as_slice()
                            };
                            for &reprovisioned in twins {
                                points.push(Point {
                                    index: points.len(),
                                    kernel: kernel.clone(),
                                    config: config.clone(),
                                    mode,
                                    s,
                                    compaction: compaction.clone(),
                                    reprovisioned,
                                });
                            }
                        }
                    }
                }
            }
        }
        points
    }
}

/// The list of a key, refused when empty.
fn nonempty<'a, T>(
    list: &'a Spanned<Vec<T>>,
    key: &str,
    key_error: &dyn Fn(std::ops::Range<usize>, &str, String) -> String,
) -> Result<&'a [T], String> {
    if list.get_ref().is_empty() {
        Err(key_error(list.span(), key, "the list is empty".into()))
    } else {
        Ok(list.get_ref())
    }
}

/// The manifests a path or glob names, relative to `dir`, sorted; none is an error.
fn expand(dir: &Path, pattern: &str) -> Result<Vec<PathBuf>, String> {
    let shown = pws_isa::diag::value(pattern);
    let joined = dir.join(pattern);
    let full = joined.to_string_lossy();
    let mut found: Vec<PathBuf> = glob::glob(&full)
        .map_err(|e| format!("'{shown}' is not a valid glob: {}", e.msg))?
        .filter_map(Result::ok)
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    if found.is_empty() {
        return Err(format!("'{shown}' names no file"));
    }
    Ok(found)
}

/// The file stem of a manifest, with its directory when `others` share the stem.
fn distinct_stem(path: &Path, others: &[&Path]) -> String {
    let stem = |p: &Path| {
        p.file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().into_owned())
    };
    let s = stem(path);
    if others.iter().filter(|o| stem(o) == s).count() > 1 {
        let parent = path
            .parent()
            .and_then(|p| p.file_name())
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        format!("{parent}/{s}")
    } else {
        s
    }
}

/// Names each size of a `[sizes]` benchmark by its manifest's file stem, with the directory
/// when two of the benchmark's stems collide (gen/small/k.toml and gen/large/k.toml).
fn name_sizes(kernels: &mut [Kernel]) {
    let sized: Vec<(String, PathBuf)> = kernels
        .iter()
        .filter(|k| k.size.is_empty())
        .map(|k| (k.benchmark.clone(), k.manifest.clone()))
        .collect();
    for k in kernels.iter_mut().filter(|k| k.size.is_empty()) {
        let same: Vec<&Path> = sized
            .iter()
            .filter(|(b, _)| *b == k.benchmark)
            .map(|(_, p)| p.as_path())
            .collect();
        k.size = distinct_stem(&k.manifest, &same);
    }
}

/// Names each kernel by its manifest's file stem, with the parent directory when two stems
/// collide (kernels/figure2.toml and kernels/cl/figure2.toml).
fn name_benchmarks(kernels: &mut [Kernel]) {
    let paths: Vec<PathBuf> = kernels.iter().map(|k| k.manifest.clone()).collect();
    let all: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    for k in kernels.iter_mut() {
        k.benchmark = distinct_stem(&k.manifest, &all);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(text: &str) -> Result<Sweep, String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("cl")).unwrap();
        for f in ["a.toml", "b.toml", "cl/a.toml"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let path = dir.path().join("sweep.toml");
        std::fs::write(&path, text).unwrap();
        Sweep::load(&path)
    }

    #[test]
    fn the_shipped_sweeps_load() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/eval");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let s = Sweep::load(&path).unwrap_or_else(|e| panic!("{e}"));
                assert!(!s.points().is_empty(), "{}", path.display());
                n += 1;
            }
        }
        assert!(n >= 5, "{n} sweeps in {}", dir.display());
    }

    #[test]
    fn cross_product_with_one_nosplit_point_per_compaction() {
        let s = sweep("kernels = [\"*.toml\", \"cl/a.toml\"]\nS = [1, 3]\ncompaction = [\"none\", \"scc\"]\nmodes = [\"nosplit\", \"pws\"]\n").unwrap();
        assert_eq!(s.split, SplitPolicy::Marked);
        for p in SplitPolicy::ALL {
            let text = format!("kernels = [\"a.toml\"]\nsplit = \"{}\"\n", p.name());
            assert_eq!(sweep(&text).unwrap().split, p);
        }
        let e = sweep("kernels = [\"a.toml\"]\nsplit = \"some\"\n").unwrap_err();
        assert!(
            e.to_string().contains("split") && e.to_string().contains("marked, all or auto"),
            "{e}"
        );
        let names: Vec<_> = s.kernels.iter().map(|k| k.benchmark.as_str()).collect();
        // The glob also finds the sweep file itself: a sweep is a TOML file like the rest.
        assert!(names.contains(&"cl/a") && names.contains(&"b"), "{names:?}");
        let per_kernel = 2 + 2 * 2;
        assert_eq!(s.points().len(), s.kernels.len() * per_kernel);
        assert!(s.points().iter().enumerate().all(|(i, p)| p.index == i));
    }

    #[test]
    fn reprovision_follows_each_pws_point_with_its_twin() {
        let s = sweep(
            "kernels = [\"a.toml\"]\nS = [1, 3]\nmodes = [\"nosplit\", \"dws\", \"pws\"]\nreprovision = true\n",
        )
        .unwrap();
        let got: Vec<_> = s
            .points()
            .iter()
            .map(|p| (p.mode, p.s, p.reprovisioned))
            .collect();
        assert_eq!(
            got,
            [
                (Mode::NoSplit, 0, false),
                (Mode::Dws, 1, false),
                (Mode::Dws, 3, false),
                (Mode::Pws, 1, false),
                (Mode::Pws, 1, true),
                (Mode::Pws, 3, false),
                (Mode::Pws, 3, true),
            ]
        );
        let e = sweep("kernels = [\"a.toml\"]\nreprovision = 1\n").unwrap_err();
        assert!(e.contains("sweep.toml:2:") && e.contains("bool"), "{e}");
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let e = sweep("kernels = [\"a.toml\"]\nmodes = [\"pws\", \"warp\"]\n").unwrap_err();
        assert!(
            e.contains("sweep.toml:2:") && e.contains("`modes`") && e.contains("warp"),
            "{e}"
        );
        let e = sweep("kernels = [\"missing/*.toml\"]\n").unwrap_err();
        assert!(
            e.contains(":1:") && e.contains("`kernels`") && e.contains("names no file"),
            "{e}"
        );
        let e = sweep("kernels = [\"a.toml\"]\nS = [9]\n").unwrap_err();
        assert!(e.contains("`S`") && e.contains("out of range"), "{e}");
        let e = sweep("kernels = [\"a.toml\"]\nkernles = 1\n").unwrap_err();
        assert!(e.contains("sweep.toml:2:") && e.contains("kernles"), "{e}");
        let e = sweep("kernels = [\"a.toml\"]\nconfigs = [\"nope\"]\n").unwrap_err();
        assert!(
            e.contains("`configs`") && e.contains("neither a preset"),
            "{e}"
        );
        let e = sweep("modes = [\"pws\"]\n").unwrap_err();
        assert!(e.contains("no kernels"), "{e}");
    }

    #[test]
    fn sizes_name_the_benchmark_and_size() {
        let s = sweep("[sizes]\nbench = [\"a.toml\", \"b.toml\"]\n").unwrap();
        let got: Vec<_> = s
            .kernels
            .iter()
            .map(|k| (k.benchmark.as_str(), k.size.as_str()))
            .collect();
        assert_eq!(got, [("bench", "a"), ("bench", "b")]);
        let s = sweep("[sizes]\nbench = [\"a.toml\", \"cl/a.toml\"]\n").unwrap();
        let sizes: Vec<_> = s.kernels.iter().map(|k| k.size.as_str()).collect();
        assert!(sizes[0].ends_with("/a") && sizes[1] == "cl/a", "{sizes:?}");
    }
}
