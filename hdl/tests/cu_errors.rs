//! Bad programs stop the compute unit with an error naming the instruction's PC and context,
//! never a hang or a wrong result: an instruction the RTL does not implement, control leaving
//! the program, and an SGPR beyond the configured register file.

mod cu_bench;

use cu_bench::Bench;
use pws_hdl::config::HwConfig;
use pws_hdl::cu::{CuError, CuMode};
use pws_hdl::swizzle::SwizzleMode;

fn stop(src: &str, mode: CuMode) -> (CuError, u64, u64, u64) {
    let cfg = HwConfig::cu();
    let words = pws_isa::asm::assemble(src, "bad.s")
        .expect("assembles")
        .words();
    let mut b = Bench::new(&cfg, mode, SwizzleMode::None);
    b.load_program(&words);
    b.launch(1, 0, &[], |l| l as u32, u64::MAX);
    b.run_to_error(2_000);
    assert!(b.cu.error_o.val(), "no error for {src}");
    let issued_after = {
        let before = b.issues.len();
        for _ in 0..20 {
            b.tick();
        }
        (b.issues.len() - before) as u64
    };
    (
        b.cu.error_code_o.val(),
        b.cu.error_pc_o.val().to_u64(),
        b.cu.error_ctx_o.val().to_u64(),
        issued_after,
    )
}

#[test]
fn errors_name_the_pc_and_context_and_stop_issue() {
    for mode in [CuMode::NoSplit, CuMode::Pws] {
        // VOP3 clamp is not implemented on the carry-in adds: slot 1, context 0 = id 8.
        assert_eq!(
            stop(
                "s_nop 0\nv_addc_u32_e64 v0, s[0:1], v1, v2, vcc clamp\ns_endpgm",
                mode
            ),
            (CuError::IllegalInstruction, 4, 8, 0)
        );
        // Falling off the end of the program.
        assert_eq!(stop("s_nop 0\ns_nop 0", mode), (CuError::BadPc, 8, 8, 0));
        // The `cu` preset has 32 SGPRs per context.
        assert_eq!(
            stop("s_mov_b32 s40, 1\ns_endpgm", mode),
            (CuError::SgprOutOfRange, 0, 8, 0)
        );
        assert_eq!(
            stop(
                "s_mov_b64 s[30:31], 0\ns_mov_b64 s[32:33], 0\ns_endpgm",
                mode
            ),
            (CuError::SgprOutOfRange, 4, 8, 0)
        );
    }
}
