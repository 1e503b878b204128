//! `pws asm` and `pws disasm` end to end: image and hex output, the round trip through the
//! disassembler, and error reporting with file:line:column and exit status 1.

mod common;

use common::{pws, pws_ok};

const KERNEL: &str = "\
; two paths, split and merged
  s_and_saveexec_b64 s[2:3], s[4:5]
  split s6, s7
  s_cbranch_execz skip
  v_add_u32 v1, vcc, 1, v1
skip:
  merge
  s_endpgm
";

#[test]
fn asm_hex_lists_bytes_in_memory_order() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("k.s");
    std::fs::write(&src, KERNEL).unwrap();
    let stdout = pws_ok(&["asm", src.to_str().unwrap(), "--hex"]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "04 20 82 be",
            "06 07 14 bf",
            "01 00 88 bf",
            "81 02 02 32",
            "00 00 15 bf",
            "00 00 81 bf"
        ]
    );
}

#[test]
fn asm_writes_image_and_disasm_reads_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("k.s");
    std::fs::write(&src, KERNEL).unwrap();
    let stdout = pws_ok(&["asm", src.to_str().unwrap()]);
    let bin = dir.path().join("k.bin");
    assert!(
        stdout.contains(&format!(
            "wrote 24 bytes (6 instructions) to {}",
            bin.display()
        )),
        "{stdout}"
    );
    let image = std::fs::read(&bin).unwrap();
    assert_eq!(image[..4], [0x04, 0x20, 0x82, 0xbe]);

    let listing = pws_ok(&["disasm", bin.to_str().unwrap()]);
    assert!(listing.contains("split s6, s7"), "{listing}");
    assert!(listing.contains("s_cbranch_execz L_0010"), "{listing}");
    assert!(listing.contains("L_0010:\n\tmerge"), "{listing}");
    assert!(listing.contains("// 00000c: 32020281"), "{listing}");

    // The listing assembles back to the same image.
    let again = dir.path().join("again.s");
    std::fs::write(&again, &listing).unwrap();
    let out_bin = dir.path().join("again.out");
    pws_ok(&[
        "asm",
        again.to_str().unwrap(),
        "-o",
        out_bin.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read(&out_bin).unwrap(), image);
}

#[test]
fn asm_error_exits_1_with_position() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bad.s");
    std::fs::write(&src, "s_nop 0\n  v_add_u32 v1, vcc, s1, s2\n").unwrap();
    let out = pws(&["asm", src.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!(
            "{}:2:26: invalid operand (violates constant bus",
            src.display()
        )),
        "{stderr}"
    );
    assert!(!dir.path().join("bad.bin").exists());
}

#[test]
fn disasm_error_names_offset_and_word() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bad.bin");
    std::fs::write(&bin, [0x00, 0x00, 0x81, 0xbf, 0x00, 0x00, 0xff, 0xbf]).unwrap();
    let out = pws(&["disasm", bin.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("cannot decode word 0xbfff0000 at byte offset 0x4"),
        "{stderr}"
    );
}
