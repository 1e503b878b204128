//! Sweeps that outgrow one machine: `--emit-jobs` writes one `pws eval SWEEP --point K --out
//! OUT/shard_K` command per point and a Slurm array script that runs line K of that list,
//! and `--merge` joins the shards' results into one set (each point once, all of them there).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::results::{self, Record, SweepInfo};

/// A word for `sh`, in single quotes unless it is plainly safe.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

fn absolute(path: &Path) -> Result<PathBuf, String> {
    std::path::absolute(path).map_err(|e| format!("{}: {e}", pws_isa::diag::path(path)))
}

/// The job list (one command per point) and the Slurm script for it. Paths are absolute, so
/// the commands run from any directory of a machine that shares the file system.
pub fn emit(
    sweep: &Path,
    points: usize,
    out: &Path,
    list: &Path,
) -> Result<(String, String), String> {
    let exe = std::env::current_exe().map_err(|e| format!("this executable: {e}"))?;
    let (exe, sweep, out, list) = (
        absolute(&exe)?,
        absolute(sweep)?,
        absolute(out)?,
        absolute(list)?,
    );
    let mut commands = String::new();
    for k in 0..points {
        let _ = writeln!(
            commands,
            "{} eval {} --point {k} --quiet --out {}",
            quote(&exe.to_string_lossy()),
            quote(&sweep.to_string_lossy()),
            quote(&out.join(format!("shard_{k}")).to_string_lossy())
        );
    }
    let out_q = quote(&out.to_string_lossy());
    let script = format!(
        "#!/bin/bash\n\
         # The points of {sweep} as a Slurm job array: task K runs line K + 1 of {list}.\n\
         # Afterwards: {exe} eval --merge {out}/shard_* --out {out}\n\
         #SBATCH --job-name=pws-eval\n\
         #SBATCH --array=0-{last}\n\
         #SBATCH --cpus-per-task=1\n\
         #SBATCH --output={out}/slurm_%a.log\n\
         set -euo pipefail\n\
         mkdir -p {out_q}\n\
         sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {list_q} | bash\n",
        sweep = sweep.display(),
        list = list.display(),
        exe = exe.display(),
        out = out.display(),
        last = points.saturating_sub(1),
        list_q = quote(&list.to_string_lossy()),
    );
    Ok((commands, script))
}

/// The records of the shard directories, one per point in point order, with the sweep they
/// belong to; the notes say which points no shard has.
pub fn merge(dirs: &[PathBuf]) -> Result<(SweepInfo, Vec<Record>, Vec<String>), String> {
    let mut info: Option<SweepInfo> = None;
    let mut by_point: BTreeMap<usize, Record> = BTreeMap::new();
    for dir in dirs {
        let (shard, records) = results::read(dir)?;
        match &info {
            None => info = Some(shard),
            Some(i) if *i != shard => {
                return Err(format!(
                    "{}: results of another sweep ({} with {} points, not {} with {})",
                    pws_isa::diag::path(dir),
                    pws_isa::diag::value(&shard.sweep),
                    shard.points,
                    pws_isa::diag::value(&i.sweep),
                    i.points
                ))
            }
            Some(_) => {}
        }
        for r in records {
            if let Some(old) = by_point.get(&r.point) {
                if old.key != r.key || old.cycles != r.cycles {
                    return Err(format!(
                        "{}: point {} differs from another shard's result for it",
                        pws_isa::diag::path(dir),
                        r.point
                    ));
                }
            }
            by_point.insert(r.point, r);
        }
    }
    let info = info.ok_or("--merge needs at least one directory")?;
    let missing: Vec<String> = (0..info.points)
        .filter(|k| !by_point.contains_key(k))
        .map(|k| k.to_string())
        .collect();
    let mut notes = Vec::new();
    if !missing.is_empty() {
        notes.push(format!(
            "{} of {} point(s) missing from the shards: {}",
            missing.len(),
            info.points,
            missing.join(", ")
        ));
    }
    Ok((info, by_point.into_values().collect(), notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_the_shell() {
        assert_eq!(quote("/a/b.toml"), "/a/b.toml");
        assert_eq!(quote("it's here"), "'it'\\''s here'");
    }

    #[test]
    fn one_command_per_point_and_an_array_of_that_size() {
        let (list, script) = emit(
            Path::new("s.toml"),
            3,
            Path::new("out"),
            Path::new("jobs.txt"),
        )
        .unwrap();
        assert_eq!(list.lines().count(), 3);
        assert!(list
            .lines()
            .nth(2)
            .unwrap()
            .contains("--point 2 --quiet --out "));
        assert!(script.contains("#SBATCH --array=0-2"), "{script}");
    }
}
