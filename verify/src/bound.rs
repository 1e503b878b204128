//! Where the WCET bound meets the RTL: the host analysis's view of the compute unit a
//! [`HwConfig`] builds. `pws-host` does not depend on the RTL crate, so the one mapping from
//! the RTL's configuration to the analysis's parameters lives here, beside the checks that
//! compare the two.

use pws_hdl::config::HwConfig;
use pws_host::launch::Machine;
use pws_host::timing::CuTiming;

/// The parameters of the timing contract (`hdl::cu::timing`) that `cfg` fixes.
pub fn cu_timing(cfg: &HwConfig) -> CuTiming {
    CuTiming {
        passes: cfg.passes() as u64,
        mem_latency: cfg.mem_latency as u64,
        srf_copy_width: cfg.srf_copy_width as u64,
        spsimds: cfg.spsimds_per_simd as u64,
    }
}

/// The compute unit as the launch analysis sees it: its slots and its timing contract.
pub fn machine(cfg: &HwConfig) -> Machine {
    Machine {
        n_simd: cfg.simds_per_cu as u64,
        n_wfc: cfg.wf_contexts_per_simd as u64,
        vgprs_per_simd: cfg.vgprs_per_simd as u64,
        cu: cu_timing(cfg),
        lds_bytes: cfg.lds_bytes as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pws_hdl::config::PRESETS;

    /// The analysis and the dispatcher give a kernel the same slots per SIMD: the host's
    /// `Machine::for_kernel` mirrors `HwConfig::wavefronts_per_simd`.
    #[test]
    fn the_analysis_sees_the_rtl_occupancy() {
        for name in PRESETS {
            let cfg = HwConfig::preset(name).unwrap();
            for vgprs in [0, 1, 4, 5, 24, 25, 52, 128, 129, 256, 257] {
                let rtl = cfg.wavefronts_per_simd(vgprs as usize) as u64;
                match machine(&cfg).for_kernel(vgprs) {
                    Ok(m) => assert_eq!(m.n_wfc, rtl, "{name}, {vgprs} VGPRs"),
                    Err(_) => assert_eq!(rtl, 0, "{name}, {vgprs} VGPRs"),
                }
            }
        }
    }
}
