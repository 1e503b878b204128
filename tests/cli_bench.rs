//! `pws bench` as users run it: the compute-unit table on the `cu` preset, where a kernel
//! whose workgroups the unit cannot hold is listed as left out instead of ending the run.

mod common;

use common::json;

#[test]
fn the_cu_table_leaves_out_a_kernel_the_preset_cannot_hold_and_times_the_others() {
    let report = json(&[
        "bench",
        "--only",
        "cu",
        "--engine",
        "rust-hdl",
        "--cu-config",
        "cu",
        "--cu-kernel",
        "kernels/collatz.toml,kernels/figure2.toml",
        "--json",
    ]);
    let rows = report["cu"].as_array().expect("the cu rows");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["config"], "cu");
    assert_eq!(rows[0]["kernel"], "kernels/figure2.s");
    assert_eq!(rows[0]["cycles"], 336);
    assert!(rows[0]["cycles_per_second"].as_f64().unwrap() > 0.0);
    let left_out = report["cu_left_out"].as_array().expect("the left-out list");
    assert_eq!(left_out.len(), 1, "{left_out:?}");
    let line = left_out[0].as_str().unwrap();
    assert!(
        line.starts_with("kernels/collatz.toml on cu: workgroup 0 has 4 wavefronts"),
        "{line}"
    );
}
