//! The typed hardware configuration every RTL unit is built from.
//!
//! Like cva6's `*_config_pkg` or rocket-chip's `Config`, one value ([`HwConfig`]) carries every
//! design-time parameter of the compute-unit slice; units take `&HwConfig` in their `new` and
//! size their sub-block vectors and `Constant<>` fields from it, so one binary simulates and
//! exports every configuration. [`HwConfig::validate`] rejects the configurations the RTL cannot
//! build (it reports every problem at once), and [`HwConfig::preset`] names the configurations
//! used by tests, the CLI and the paper's worked examples.
//!
//! Parameter names follow \[P\] Table 1: `N_WIWF` (wavefront width), `S` (SpSIMDs per SIMD),
//! `N_WFC` (wavefront contexts per SIMD), `N_SIMD` (SIMDs per compute unit).

use std::fmt;

/// Widest wavefront the RTL supports: masks are two 32-bit halves (design.md decision 1).
pub const MAX_WAVEFRONT_WIDTH: usize = 64;
/// Most SpSIMDs per SIMD: context numbers and child-stack entries are 3 bits wide, and 0 is the
/// SIMD's own wavefront context.
pub const MAX_SPSIMDS: usize = 7;
/// Most scalar registers per context: the SRF address is 7 bits wide.
pub const MAX_SGPRS: usize = 128;
/// Most vector registers per lane of one SIMD's VRF: the VRF address is 8 bits wide, as in
/// GCN3 (256 registers x 64 lanes x 4 bytes = 64 KiB per SIMD).
pub const MAX_VGPRS: usize = 256;
/// Widest SRF copy path: SGPRs the split datapath copies per cycle (a 512-bit bus).
pub const MAX_SRF_COPY_WIDTH: usize = 16;
/// Width in bits of a context number (0 = the SIMD's WF context, 1..=S = SpSIMD k's SWF context).
pub const CONTEXT_ID_BITS: usize = 3;
/// Width in bits of an SGPR address.
pub const SGPR_ADDR_BITS: usize = 7;
/// Width in bits of a VGPR address.
pub const VGPR_ADDR_BITS: usize = 8;
/// Shortest memory latency: the LSU reads the tag of a returning request from a RAM one cycle
/// before the response, which must be after the cycle that wrote it.
pub const MIN_MEM_LATENCY: usize = 2;
/// Longest memory latency: the LSU remembers each outstanding request in a ring indexed by
/// the cycle it was sent in, which has 128 entries.
pub const MAX_MEM_LATENCY: usize = 127;
/// Largest instruction memory in 32-bit words (byte PCs fit the 16-bit fetch address).
pub const MAX_IMEM_WORDS: usize = 16384;
/// Largest LDS: GCN3's 64 KiB (the LDS's dword index is 14 bits wide).
pub const MAX_LDS_BYTES: usize = 64 * 1024;

/// Every design-time parameter of the compute-unit slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HwConfig {
    /// N_WIWF: work-items per wavefront (a power of two, at most 64). Lane i is mask bit i.
    pub wavefront_width: usize,
    /// ALU lanes of one SIMD or SpSIMD; a wavefront op takes `wavefront_width / lanes_per_simd`
    /// passes (GCN3: 16 lanes, 4 passes).
    pub lanes_per_simd: usize,
    /// S: SpSIMDs per SIMD, hence SWF contexts per wavefront slot and child-stack depth.
    pub spsimds_per_simd: usize,
    /// N_WFC: wavefront contexts (slots) per SIMD; each SpSIMD mirrors them with SWF contexts.
    pub wf_contexts_per_simd: usize,
    /// N_SIMD: SIMDs per compute unit.
    pub simds_per_cu: usize,
    /// Scalar registers in each (S)WF context's SRF.
    pub sgprs_per_context: usize,
    /// Vector registers per lane of each SIMD's VRF. The SIMD's wavefront slots share it: a
    /// wavefront gets its kernel's registers (in GCN3's blocks of 4, [`vgpr_allocation`]) at dispatch, and
    /// its SWFs share them, so a kernel's VGPR use limits how many of the N_WFC slots can hold
    /// a wavefront ([`HwConfig::wavefronts_per_simd`]), as on GCN.
    pub vgprs_per_simd: usize,
    /// SGPRs a split copies into the new SWF context per cycle (a power of two, at most
    /// [`MAX_SRF_COPY_WIDTH`]): each SRF is banked this many ways and the copy bus between the
    /// SIMD's and the SpSIMDs' SRFs is `32 * srf_copy_width` bits wide, so e_s =
    /// ceil(n / srf_copy_width) + 2 for n SGPRs copied (docs/rtl-units.md).
    pub srf_copy_width: usize,
    /// Cycles from the rising edge that accepts a data-memory request to the response (loads
    /// and stores alike; the memory model outside the RTL answers exactly this late).
    pub mem_latency: usize,
    /// Size of the compute unit's instruction memory in 32-bit words (a power of two); a
    /// program must fit in it.
    pub imem_words: usize,
    /// Bytes of the compute unit's LDS (GCN3: 64 KiB), in rows of 128 bytes (one dword in each
    /// of its 32 banks); the resident workgroups' group segments share it.
    pub lds_bytes: usize,
}

/// VGPRs a wavefront of a kernel using `vgprs` of them is given (`pws_isa::abi`'s granules).
pub fn vgpr_allocation(vgprs: usize) -> usize {
    pws_isa::abi::vgpr_allocation(vgprs as u32) as usize
}

/// A configuration the RTL cannot be built for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    WavefrontWidth(usize),
    LanesPerSimd { lanes: usize, width: usize },
    SpSimds(usize),
    WfContexts(usize),
    Simds(usize),
    Sgprs(usize),
    Vgprs(usize),
    SrfCopyWidth(usize),
    MemLatency(usize),
    ImemWords(usize),
    LdsBytes(usize),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::WavefrontWidth(w) => write!(
                f,
                "wavefront width {w} must be a power of two between 1 and {MAX_WAVEFRONT_WIDTH}"
            ),
            ConfigError::LanesPerSimd { lanes, width } => write!(
                f,
                "lanes per SIMD {lanes} must be a power of two dividing the wavefront width {width}"
            ),
            ConfigError::SpSimds(s) => {
                write!(
                    f,
                    "S = {s} SpSIMDs per SIMD is out of range 0..={MAX_SPSIMDS}"
                )
            }
            ConfigError::WfContexts(n) => {
                write!(
                    f,
                    "N_WFC = {n} wavefront contexts per SIMD must be at least 1"
                )
            }
            ConfigError::Simds(n) => write!(f, "N_SIMD = {n} SIMDs per CU must be at least 1"),
            ConfigError::Sgprs(n) => {
                write!(f, "{n} SGPRs per context is out of range 1..={MAX_SGPRS}")
            }
            ConfigError::Vgprs(n) => {
                write!(f, "{n} VGPRs per SIMD is out of range 1..={MAX_VGPRS}")
            }
            ConfigError::SrfCopyWidth(w) => write!(
                f,
                "SRF copy width {w} must be a power of two between 1 and {MAX_SRF_COPY_WIDTH}"
            ),
            ConfigError::MemLatency(l) => write!(
                f,
                "memory latency {l} is out of range {MIN_MEM_LATENCY}..={MAX_MEM_LATENCY} cycles"
            ),
            ConfigError::LdsBytes(n) => write!(
                f,
                "an LDS of {n} bytes must be a multiple of 128 between 128 and {MAX_LDS_BYTES}"
            ),
            ConfigError::ImemWords(n) => write!(
                f,
                "instruction memory of {n} words must be a power of two between 2 and {MAX_IMEM_WORDS}"
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Every problem of a rejected configuration, one per line when displayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        write!(f, "invalid hardware configuration: {}", lines.join("; "))
    }
}

impl std::error::Error for ConfigErrors {}

impl Default for HwConfig {
    /// The GCN3-like configuration (\[T\] §1.1: 64-wide wavefronts on 16-lane SIMDs, 10 slots,
    /// 4 SIMDs) with S = 2, 102 addressable SGPRs, a 256-register VRF per SIMD, an SRF copy path of 8 SGPRs
    /// (256 bits) per cycle, a 32-cycle memory, 4096 words of instruction memory and a 64 KiB
    /// LDS.
    fn default() -> Self {
        HwConfig {
            wavefront_width: 64,
            lanes_per_simd: 16,
            spsimds_per_simd: 2,
            wf_contexts_per_simd: 10,
            simds_per_cu: 4,
            sgprs_per_context: 102,
            vgprs_per_simd: 256,
            srf_copy_width: 8,
            mem_latency: 32,
            imem_words: 4096,
            lds_bytes: MAX_LDS_BYTES,
        }
    }
}

/// The named configurations, for `--config NAME` style options and tests.
pub const PRESETS: &[&str] = &["gcn3", "small", "figure5", "cu"];

impl HwConfig {
    /// GCN3 geometry (the default).
    pub fn gcn3() -> Self {
        Self::default()
    }

    /// GCN3 geometry with small register files, so unit simulations stay fast: 8 SGPRs per
    /// context, a VRF of 16 VGPRs (two wavefronts of 8), 2 wavefront slots, one SIMD, and an SRF copy path of 4 SGPRs per cycle
    /// (a full copy takes two rows, so multi-row copies are exercised cheaply) and an 8-cycle
    /// memory.
    pub fn small() -> Self {
        HwConfig {
            wf_contexts_per_simd: 2,
            simds_per_cu: 1,
            sgprs_per_context: 8,
            vgprs_per_simd: 16,
            srf_copy_width: 4,
            mem_latency: 8,
            ..Self::default()
        }
    }

    /// The compute-unit test configuration: one SIMD with S = 3 SpSIMDs and 2 wavefront slots,
    /// 32 SGPRs, GCN3's 256-register VRF, an SRF copy path of 8 SGPRs per cycle and an 8-cycle memory, so
    /// whole kernels simulate quickly while nested splits still find free contexts.
    pub fn cu() -> Self {
        HwConfig {
            spsimds_per_simd: 3,
            wf_contexts_per_simd: 2,
            simds_per_cu: 1,
            sgprs_per_context: 32,
            vgprs_per_simd: 256,
            srf_copy_width: 8,
            mem_latency: 8,
            ..Self::default()
        }
    }

    /// The machine of \[P\] Fig 5: a 4-lane wavefront, one SIMD with one WF context and two
    /// SpSIMDs, three scalar registers copied two per cycle (the second row is partial, as the
    /// last row of most real copies is).
    pub fn figure5() -> Self {
        HwConfig {
            wavefront_width: 4,
            lanes_per_simd: 4,
            spsimds_per_simd: 2,
            wf_contexts_per_simd: 1,
            simds_per_cu: 1,
            sgprs_per_context: 3,
            vgprs_per_simd: 1,
            srf_copy_width: 2,
            mem_latency: 8,
            imem_words: 4096,
            lds_bytes: 4096,
        }
    }

    /// A preset by name (see [`PRESETS`]).
    pub fn preset(name: &str) -> Option<Self> {
        match name {
            "gcn3" => Some(Self::gcn3()),
            "small" => Some(Self::small()),
            "figure5" => Some(Self::figure5()),
            "cu" => Some(Self::cu()),
            _ => None,
        }
    }

    /// The same configuration with S SpSIMDs per SIMD.
    pub fn with_spsimds(self, s: usize) -> Self {
        HwConfig {
            spsimds_per_simd: s,
            ..self
        }
    }

    /// The same configuration with room for a kernel that uses `sgprs` scalar registers per
    /// context and `vgprs` vector registers per wavefront: each context's SRF grows to the
    /// kernel's use rounded up to 8, the VRF to at least one wavefront's allocation, both capped
    /// at the RTL's maximum, and neither shrinks. GCN gives a kernel the registers its
    /// descriptor asks for at dispatch; a preset's sizes are what it builds when nothing asks
    /// for more (clang's kernels often name 40 to 100 SGPRs).
    pub fn with_registers_for(self, sgprs: usize, vgprs: usize) -> Self {
        HwConfig {
            sgprs_per_context: self
                .sgprs_per_context
                .max(sgprs.next_multiple_of(8).min(MAX_SGPRS)),
            vgprs_per_simd: self
                .vgprs_per_simd
                .max(vgpr_allocation(vgprs).min(MAX_VGPRS)),
            ..self
        }
    }

    /// The same configuration with an instruction memory that holds a program of `words`
    /// words: the next power of two, capped at [`MAX_IMEM_WORDS`]; it never shrinks. A preset's
    /// 4,096 words hold most kernels, but one that calls a few of pws.h's math functions
    /// (tgamma alone is about 2,000 words) outgrows it.
    pub fn with_imem_for(self, words: usize) -> Self {
        HwConfig {
            imem_words: self
                .imem_words
                .max(words.next_power_of_two().min(MAX_IMEM_WORDS)),
            ..self
        }
    }

    /// Wavefronts of a kernel using `vgprs` VGPRs that one SIMD holds at once: its N_WFC slots,
    /// or fewer when the VRF cannot give each of them [`vgpr_allocation`]`(vgprs)` registers
    /// (0 if not even one fits). Slot i of the SIMD gets the registers from i times the
    /// allocation on.
    pub fn wavefronts_per_simd(&self, vgprs: usize) -> usize {
        self.wf_contexts_per_simd
            .min(self.vgprs_per_simd / vgpr_allocation(vgprs))
    }

    /// Checks every parameter against what the RTL can build, reporting all problems.
    pub fn validate(&self) -> Result<(), ConfigErrors> {
        let mut errors = Vec::new();
        let width = self.wavefront_width;
        if !width.is_power_of_two() || width > MAX_WAVEFRONT_WIDTH {
            errors.push(ConfigError::WavefrontWidth(width));
        }
        let lanes = self.lanes_per_simd;
        if !lanes.is_power_of_two() || lanes > width || width % lanes != 0 {
            errors.push(ConfigError::LanesPerSimd { lanes, width });
        }
        if self.spsimds_per_simd > MAX_SPSIMDS {
            errors.push(ConfigError::SpSimds(self.spsimds_per_simd));
        }
        if self.wf_contexts_per_simd == 0 {
            errors.push(ConfigError::WfContexts(0));
        }
        if self.simds_per_cu == 0 {
            errors.push(ConfigError::Simds(0));
        }
        if !(1..=MAX_SGPRS).contains(&self.sgprs_per_context) {
            errors.push(ConfigError::Sgprs(self.sgprs_per_context));
        }
        if !(1..=MAX_VGPRS).contains(&self.vgprs_per_simd) {
            errors.push(ConfigError::Vgprs(self.vgprs_per_simd));
        }
        let copy = self.srf_copy_width;
        if !copy.is_power_of_two() || copy > MAX_SRF_COPY_WIDTH {
            errors.push(ConfigError::SrfCopyWidth(copy));
        }
        if !(MIN_MEM_LATENCY..=MAX_MEM_LATENCY).contains(&self.mem_latency) {
            errors.push(ConfigError::MemLatency(self.mem_latency));
        }
        let imem = self.imem_words;
        if !imem.is_power_of_two() || !(2..=MAX_IMEM_WORDS).contains(&imem) {
            errors.push(ConfigError::ImemWords(imem));
        }
        let lds = self.lds_bytes;
        if lds % 128 != 0 || !(128..=MAX_LDS_BYTES).contains(&lds) {
            errors.push(ConfigError::LdsBytes(lds));
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ConfigErrors(errors))
        }
    }

    /// Depth of every context's child stack: S, since Select keeps at most S splits live and
    /// each split (real or no-op) pushes one entry.
    pub fn child_stack_depth(&self) -> usize {
        self.spsimds_per_simd
    }

    /// Contexts of one wavefront slot: the WF context on the SIMD plus one SWF context on each
    /// SpSIMD.
    pub fn contexts_per_wavefront(&self) -> usize {
        self.spsimds_per_simd + 1
    }

    /// Passes a SIMD needs for one wavefront-wide vector op.
    pub fn passes(&self) -> usize {
        self.wavefront_width / self.lanes_per_simd
    }

    /// The mask with one bit per work-item of a wavefront.
    pub fn lane_mask(&self) -> u64 {
        if self.wavefront_width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.wavefront_width) - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_grow_to_the_kernel_and_never_shrink() {
        let cu = HwConfig::cu();
        let fitted = cu.with_registers_for(51, 40);
        assert_eq!((fitted.sgprs_per_context, fitted.vgprs_per_simd), (56, 256));
        assert_eq!(cu.with_registers_for(3, 1), cu);
        let most = cu.with_registers_for(200, 300);
        assert_eq!(
            (most.sgprs_per_context, most.vgprs_per_simd),
            (MAX_SGPRS, MAX_VGPRS)
        );
        assert!(fitted.validate().is_ok() && most.validate().is_ok());
        let small = HwConfig::small();
        assert_eq!(small.with_registers_for(8, 10).vgprs_per_simd, 16);
        assert_eq!(small.with_registers_for(8, 17).vgprs_per_simd, 20);
        assert_eq!(cu.with_imem_for(100), cu);
        assert_eq!(cu.with_imem_for(4097).imem_words, 8192);
        assert_eq!(cu.with_imem_for(1 << 20).imem_words, MAX_IMEM_WORDS);
    }

    #[test]
    fn vgpr_use_limits_the_wavefronts_of_a_simd() {
        // GCN3: 10 slots and 256 VGPRs, in granules of 4.
        let gcn3 = HwConfig::gcn3();
        assert_eq!(vgpr_allocation(0), 4);
        assert_eq!(vgpr_allocation(25), 28);
        assert_eq!(gcn3.wavefronts_per_simd(24), 10);
        assert_eq!(gcn3.wavefronts_per_simd(25), 9);
        assert_eq!(gcn3.wavefronts_per_simd(128), 2);
        assert_eq!(gcn3.wavefronts_per_simd(129), 1);
        assert_eq!(HwConfig::small().wavefronts_per_simd(9), 1);
        assert_eq!(HwConfig::small().wavefronts_per_simd(17), 0);
    }

    #[test]
    fn presets_are_valid_and_named() {
        for name in PRESETS {
            let cfg = HwConfig::preset(name).unwrap();
            assert_eq!(cfg.validate(), Ok(()), "{name}");
        }
        assert_eq!(HwConfig::preset("nope"), None);
        assert_eq!(HwConfig::default().passes(), 4);
        assert_eq!(HwConfig::figure5().lane_mask(), 0b1111);
        assert_eq!(HwConfig::default().lane_mask(), u64::MAX);
        let cu = HwConfig::cu();
        assert_eq!(
            (cu.spsimds_per_simd, cu.wf_contexts_per_simd, cu.mem_latency),
            (3, 2, 8)
        );
        assert_eq!(
            (HwConfig::gcn3().mem_latency, HwConfig::gcn3().imem_words),
            (32, 4096)
        );
    }

    #[test]
    fn validate_reports_every_problem() {
        let cfg = HwConfig {
            wavefront_width: 48,
            spsimds_per_simd: 8,
            sgprs_per_context: 0,
            vgprs_per_simd: 257,
            srf_copy_width: 3,
            mem_latency: 0,
            imem_words: 1000,
            ..HwConfig::default()
        };
        let errs = cfg.validate().unwrap_err().0;
        assert_eq!(
            errs,
            vec![
                ConfigError::WavefrontWidth(48),
                ConfigError::SpSimds(8),
                ConfigError::Sgprs(0),
                ConfigError::Vgprs(257),
                ConfigError::SrfCopyWidth(3),
                ConfigError::MemLatency(0),
                ConfigError::ImemWords(1000),
            ]
        );
        let text = ConfigErrors(errs).to_string();
        assert!(text.contains("S = 8"), "{text}");
        assert!(text.contains("SRF copy width 3"), "{text}");
        for (width, ok) in [(0, false), (1, true), (16, true), (32, false)] {
            let cfg = HwConfig {
                srf_copy_width: width,
                ..HwConfig::default()
            };
            assert_eq!(cfg.validate().is_ok(), ok, "width {width}");
        }
    }
}
