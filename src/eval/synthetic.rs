//! The PWS paper's synthetic benchmark inside a sweep: a `[synthetic]` table whose knob lists
//! (% divergent instructions, % memory instructions in the divergent part, split levels) span
//! the kernels of Figure 10. Each kernel is written by `pws_verify::synthetic` (the generator
//! of `pws synthetic`) into the pws cache, under a name that says its knobs, so every shard of
//! a sweep and every re-run finds the same files; tables and figures read the knobs back from
//! the benchmark's name ([`knobs`]).

use std::path::{Path, PathBuf};

use pws_verify::synthetic::Synthetic;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::sweep::Kernel;

/// `[synthetic]` as written: lists span the kernels, the rest is shared by all of them.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// Share of the instructions in the divergent leaves, in percent (default `[100]`).
    divergent: Option<Vec<u32>>,
    /// Share of memory instructions among the divergent ones, in percent (default `[0]`).
    memory: Option<Vec<u32>>,
    /// Nesting levels that carry `PWS_SPLIT()` (default `[1]`).
    split_levels: Option<Vec<u32>>,
    depth: Option<u32>,
    instructions: Option<u32>,
    uniform_memory: Option<u32>,
    loops: Option<u32>,
    grid: Option<u32>,
}

/// The knobs a synthetic benchmark's name carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Knobs {
    pub divergent: u32,
    pub memory: u32,
    pub split_levels: u32,
}

/// The benchmark name of `k` in tables and plots.
pub fn name(k: &Synthetic) -> String {
    format!(
        "syn-d{}-m{}-L{}",
        k.divergent_pct, k.memory_pct, k.split_levels
    )
}

/// The knobs of a benchmark [`name`] gave, or None for any other benchmark.
pub fn knobs(benchmark: &str) -> Option<Knobs> {
    let rest = benchmark.strip_prefix("syn-d")?;
    let (d, rest) = rest.split_once("-m")?;
    let (m, l) = rest.split_once("-L")?;
    Some(Knobs {
        divergent: d.parse().ok()?,
        memory: m.parse().ok()?,
        split_levels: l.parse().ok()?,
    })
}

/// Writes every kernel of the section (the cross product of its lists) under `root` (the pws
/// cache in a sweep) and returns them as sweep kernels; a knob out of range is an error naming
/// it.
pub fn kernels(section: &Section, root: &Path) -> Result<Vec<Kernel>, String> {
    let base = Synthetic::default();
    let shared = Synthetic {
        depth: section.depth.unwrap_or(base.depth),
        instructions: section.instructions.unwrap_or(8),
        uniform_memory_pct: section.uniform_memory.unwrap_or(0),
        loops: section.loops.unwrap_or(base.loops),
        grid: section.grid.unwrap_or(base.grid),
        ..base
    };
    let list = |v: &Option<Vec<u32>>, key: &str, default: u32| match v {
        Some(l) if l.is_empty() => Err(format!("synthetic.{key}: the list is empty")),
        Some(l) => Ok(l.clone()),
        None => Ok(vec![default]),
    };
    let mut out = Vec::new();
    for divergent_pct in list(&section.divergent, "divergent", 100)? {
        for memory_pct in list(&section.memory, "memory", 0)? {
            for split_levels in list(&section.split_levels, "split_levels", 1)? {
                let k = Synthetic {
                    divergent_pct,
                    memory_pct,
                    split_levels,
                    ..shared.clone()
                };
                let manifest = pws_verify::synthetic::write(&k, &dir(root, &k))?;
                out.push(Kernel {
                    benchmark: name(&k),
                    size: "-".into(),
                    manifest,
                });
            }
        }
    }
    Ok(out)
}

/// Where `k`'s files live under `root`: one directory per set of knobs.
fn dir(root: &Path, k: &Synthetic) -> PathBuf {
    let digest = Sha256::digest(format!("{k:?}").as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    root.join("synthetic").join(format!("{}-{hex}", name(k)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_knobs_back() {
        let k = Synthetic {
            divergent_pct: 25,
            memory_pct: 50,
            split_levels: 2,
            ..Synthetic::default()
        };
        assert_eq!(
            knobs(&name(&k)),
            Some(Knobs {
                divergent: 25,
                memory: 50,
                split_levels: 2
            })
        );
        assert_eq!(knobs("bfs"), None);
        assert_eq!(knobs("syn-dx-m1-L1"), None);
    }

    #[test]
    fn a_section_writes_its_cross_product_once_per_knob_set() {
        let cache = tempfile::tempdir().unwrap();
        let section: Section =
            toml::from_str("divergent = [50, 100]\nmemory = [0, 25]\ninstructions = 4\n").unwrap();
        let ks = kernels(&section, cache.path()).unwrap();
        let names: Vec<&str> = ks.iter().map(|k| k.benchmark.as_str()).collect();
        assert_eq!(
            names,
            [
                "syn-d50-m0-L1",
                "syn-d50-m25-L1",
                "syn-d100-m0-L1",
                "syn-d100-m25-L1"
            ]
        );
        for k in &ks {
            assert!(k.manifest.starts_with(cache.path()) && k.manifest.is_file());
        }
        // Written again, the same files.
        assert_eq!(kernels(&section, cache.path()).unwrap(), ks);
        let bad: Section = toml::from_str("memory = [150]\n").unwrap();
        assert!(kernels(&bad, cache.path())
            .unwrap_err()
            .contains("memory share 150%"));
        let empty: Section = toml::from_str("divergent = []\n").unwrap();
        assert!(kernels(&empty, cache.path())
            .unwrap_err()
            .contains("synthetic.divergent"));
        assert!(toml::from_str::<Section>("depht = 3\n").is_err());
    }
}
