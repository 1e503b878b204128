//! Kernel-level WCET ([P] §5): the GPU configuration, the launch, G_parallel and DS
//! (Definitions 5.2, 5.3) and the kernel bounds of Lemma 5.5 (PWS), Lemma 5.7 (DWS) and the
//! no-split baseline (S = 0).

use serde::{Deserialize, Serialize};

use crate::error::{HostError, Result};

/// The hardware parameters of [P] Table 1 plus the split/merge costs and initialization delay.
/// TOML keys are the paper's symbols; unknown keys are rejected so a typo cannot silently
/// fall back to a default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuConfig {
    /// Compute units.
    #[serde(rename = "N_CU")]
    pub n_cu: u64,
    /// SIMD units per CU.
    #[serde(rename = "N_SIMD")]
    pub n_simd: u64,
    /// Wavefront contexts per SIMD.
    #[serde(rename = "N_WFC")]
    pub n_wfc: u64,
    /// Work-items per wavefront.
    #[serde(rename = "N_WIWF")]
    pub n_wiwf: u64,
    /// SpSIMDs per SIMD (splits alive per wavefront).
    #[serde(rename = "S")]
    pub s: u64,
    /// Worst-case cycles of one split.
    pub e_s: u64,
    /// Worst-case cycles of one merge.
    pub e_m: u64,
    /// Worst-case initialization delay: dispatch of a workgroup to its first instruction.
    pub d: u64,
}

impl Default for GpuConfig {
    /// The configuration of `kernels/gpu.toml` ([P]'s analysis set-up, [T]'s 10 slots).
    fn default() -> Self {
        GpuConfig {
            n_cu: 4,
            n_simd: 4,
            n_wfc: 10,
            n_wiwf: 64,
            s: 2,
            e_s: 15,
            e_m: 1,
            d: 1,
        }
    }
}

impl GpuConfig {
    /// Reads a configuration; `file` is used in error messages.
    pub fn from_toml(text: &str, file: &str) -> Result<GpuConfig> {
        let cfg: GpuConfig = toml::from_str(text).map_err(|e| {
            let (line, col) = e
                .span()
                .map_or((1, 1), |s| pws_isa::diag::line_col(text, s.start));
            HostError::Syntax {
                file: file.to_string(),
                line,
                col,
                msg: pws_isa::diag::message(e.message()),
            }
        })?;
        cfg.check()?;
        Ok(cfg)
    }

    /// Rejects configurations for which the lemmas are undefined.
    pub fn check(&self) -> Result<()> {
        for (name, v) in [
            ("N_CU", self.n_cu),
            ("N_SIMD", self.n_simd),
            ("N_WFC", self.n_wfc),
            ("N_WIWF", self.n_wiwf),
        ] {
            if v == 0 {
                return Err(HostError::Config(format!("{name} must be at least 1")));
            }
        }
        if self.n_wiwf > 64 {
            return Err(HostError::Config(format!(
                "N_WIWF = {} exceeds 64 (a split mask covers 64 lanes)",
                self.n_wiwf
            )));
        }
        Ok(())
    }
}

/// A kernel launch: G workgroups of N_WIWG work-items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Launch {
    pub groups: u64,
    pub wg_size: u64,
}

/// Definition 5.2: workgroups that fit on the GPU at once with `n_simd_total` SIMDs per CU.
pub fn g_parallel(cfg: &GpuConfig, n_simd_total: u64, launch: &Launch) -> Result<u64> {
    if launch.wg_size == 0 || launch.groups == 0 {
        return Err(HostError::Config(
            "a launch needs at least one workgroup of at least one work-item".into(),
        ));
    }
    let capacity = u128::from(cfg.n_cu)
        * u128::from(n_simd_total)
        * u128::from(cfg.n_wfc)
        * u128::from(cfg.n_wiwf);
    let g = capacity / u128::from(launch.wg_size);
    if g == 0 {
        return Err(HostError::Config(format!(
            "a workgroup of {} work-items does not fit the GPU ({} wavefront slots of {} work-items)",
            launch.wg_size,
            u128::from(cfg.n_cu) * u128::from(n_simd_total) * u128::from(cfg.n_wfc),
            cfg.n_wiwf
        )));
    }
    Ok(u64::try_from(g).unwrap_or(u64::MAX))
}

/// Definition 5.3: dispatch steps DS = ⌈G / G_parallel⌉.
pub fn dispatch_steps(groups: u64, g_par: u64) -> u64 {
    groups.div_ceil(g_par)
}

/// Lemma 5.5 (and the no-split baseline with E_WF = IPET(C)): DS·(d + E_WF); `None` beyond
/// 128 bits.
pub fn e_kernel_pws(ds: u64, d: u64, e_wf: u128) -> Option<u128> {
    u128::from(ds).checked_mul(u128::from(d).checked_add(e_wf)?)
}

/// Lemma 5.7: DS·(d + (S + 1)·E_WF^DWS): the S split wavefronts share the SIMD.
pub fn e_kernel_dws(ds: u64, d: u64, s: u64, e_wf: u128) -> Option<u128> {
    let shared = (u128::from(s) + 1).checked_mul(e_wf)?;
    u128::from(ds).checked_mul(u128::from(d).checked_add(shared)?)
}

/// The two DWS bounds (docs/wcet.md, "DWS").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum DwsBound {
    /// [P] Lemma 5.7: each of the S + 1 split wavefronts may wait for all the others at every
    /// step, (S + 1)·E_WF^DWS.
    #[default]
    #[serde(rename = "lemma-5.7")]
    Lemma57,
    /// The split wavefronts share one SIMD, so a wavefront takes at most the work of all its
    /// split wavefronts, each instruction charged once (the waits for its own split
    /// wavefronts are the others' work).
    #[serde(rename = "serialized")]
    Serialized,
}

impl std::str::FromStr for DwsBound {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<DwsBound, String> {
        match s {
            "lemma-5.7" | "lemma5.7" | "5.7" => Ok(DwsBound::Lemma57),
            "serialized" => Ok(DwsBound::Serialized),
            other => Err(format!(
                "unknown DWS bound '{other}' (expected lemma-5.7 or serialized)"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_example_of_definitions_5_2_and_5_3() {
        let cfg = GpuConfig::default();
        let g = g_parallel(
            &cfg,
            4,
            &Launch {
                groups: 512,
                wg_size: 256,
            },
        )
        .unwrap();
        assert_eq!(g, 40);
        assert_eq!(dispatch_steps(512, g), 13);
    }

    #[test]
    fn config_rejects_unknown_and_zero_keys() {
        let e = GpuConfig::from_toml("N_CU = 4\nN_SIMD = 4\nN_WFC = 10\nN_WIWF = 64\nS = 2\ne_s = 1\ne_m = 1\nd = 1\nN_SMID = 3\n", "g.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("g.toml:9:1: ") && e.contains("unknown field `N_SMID`"),
            "{e}"
        );
        let e = GpuConfig::from_toml(
            "N_CU = 0\nN_SIMD = 4\nN_WFC = 10\nN_WIWF = 64\nS = 2\ne_s = 1\ne_m = 1\nd = 1\n",
            "g.toml",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e, "N_CU must be at least 1");
        let big = g_parallel(
            &GpuConfig::default(),
            4,
            &Launch {
                groups: 1,
                wg_size: 1 << 20,
            },
        )
        .unwrap_err()
        .to_string();
        assert!(big.contains("does not fit"), "{big}");
    }

    #[test]
    fn lemmas_with_unit_constants() {
        assert_eq!(e_kernel_pws(1, 1, 59), Some(60));
        assert_eq!(e_kernel_dws(1, 1, 2, 63), Some(190));
        assert_eq!(e_kernel_dws(2, 0, 1, u128::MAX / 2), None);
        assert_eq!("serialized".parse(), Ok(DwsBound::Serialized));
        assert!("x"
            .parse::<DwsBound>()
            .unwrap_err()
            .contains("lemma-5.7 or serialized"));
    }
}
