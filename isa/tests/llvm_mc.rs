//! Byte-for-byte and text comparison with the ISA oracle, `llvm-mc -arch=amdgcn -mcpu=fiji
//! -show-encoding`. Fails (never skips) when llvm-mc is missing.
//!
//! - `forms`: every opcode in every encoding form with every kind of operand it takes
//!   (registers, special registers, inline integers and floats, literals, modifiers), generated
//!   from the opcode table; our bytes must equal llvm-mc's and our disassembly must equal the
//!   canonical text llvm-mc prints.
//! - `rejects`: lines llvm-mc rejects (operand rules); we must reject each of them too.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::process::Command;

use pws_isa::{
    assemble, decode, Format, ImmKind, Opcode, Width, MOD_CLAMP, MOD_INPUT, MOD_OMOD, OPCODES,
};

/// One line of llvm-mc output: canonical text and encoding bytes, or the error it reported.
struct Oracle {
    text: String,
    bytes: Vec<u8>,
}

/// Runs llvm-mc over `lines` (one instruction each); returns per input line either its
/// canonical text and encoding, or None if llvm-mc reported an error on that line.
fn llvm_mc(lines: &[String]) -> Vec<Option<Oracle>> {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    for l in lines {
        writeln!(file, "{l}").unwrap();
    }
    let out = Command::new("llvm-mc")
        .args(["-arch=amdgcn", "-mcpu=fiji", "-show-encoding"])
        .arg(file.path())
        .output()
        .expect("llvm-mc (llvm-14) must be installed: it is the ISA oracle of these tests");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut bad = BTreeSet::new();
    let path = file.path().to_string_lossy().to_string();
    for l in stderr.lines() {
        if let Some(rest) = l.strip_prefix(&format!("{path}:")) {
            if let Some(n) = rest.split(':').next().and_then(|n| n.parse::<usize>().ok()) {
                bad.insert(n);
            }
        }
    }
    let mut good = stdout.lines().filter_map(|l| {
        let (text, enc) = l.split_once("; encoding: [")?;
        let bytes = enc
            .trim_end_matches(']')
            .split(',')
            .map(|b| u8::from_str_radix(b.trim_start_matches("0x"), 16).expect("hex byte"))
            .collect();
        Some(Oracle {
            text: text.split_whitespace().collect::<Vec<_>>().join(" "),
            bytes,
        })
    });
    (1..=lines.len())
        .map(|n| if bad.contains(&n) { None } else { good.next() })
        .collect()
}

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Scalar source operands of each kind, for 32- and 64-bit reads, for an instruction that reads
/// a 64-bit literal sign-extended (`signed`) or zero-extended: a negative literal means what it
/// says only in the first.
fn scalar_srcs(w: Width, signed: bool) -> Vec<&'static str> {
    match w {
        Width::B32 => vec![
            "s7",
            "s101",
            "vcc_lo",
            "vcc_hi",
            "exec_lo",
            "exec_hi",
            "m0",
            "flat_scratch_lo",
            "ttmp3",
            "0",
            "64",
            "-16",
            "0.5",
            "-4.0",
            "0.15915494",
            "0x12345678",
            "-17",
            "1.5",
            "0xffffffff",
            "0xfffffff0",
            "0x3f800000",
            "0xffffffef",
            "-2147483648",
            "src_scc",
            "src_execz",
            "src_vccz",
        ],
        _ => vec![
            "s[6:7]",
            "s[100:101]",
            "vcc",
            "exec",
            "flat_scratch",
            "ttmp[2:3]",
            "-1",
            "33",
            "2.0",
            "0x12345",
            "src_scc",
            "0xffffffff",
            "0x3ff0000000000000",
            "0x40",
            "0.15915494309189532",
        ]
        .into_iter()
        .chain(
            signed
                .then_some(["-100", "-2147483648"])
                .into_iter()
                .flatten(),
        )
        .collect(),
    }
}

fn scalar_dsts(w: Width) -> Vec<&'static str> {
    match w {
        Width::B32 => vec![
            "s5",
            "s101",
            "vcc_lo",
            "exec_hi",
            "m0",
            "flat_scratch_hi",
            "ttmp11",
        ],
        _ => vec!["s[10:11]", "vcc", "exec", "flat_scratch", "ttmp[4:5]"],
    }
}

fn vsrc0(w: Width) -> Vec<&'static str> {
    match w {
        Width::B32 => vec![
            "v9",
            "v255",
            "s3",
            "vcc_hi",
            "exec_lo",
            "m0",
            "ttmp1",
            "-3",
            "64",
            "-0.5",
            "4.0",
            "0.15915494",
            "0xdeadbeef",
            "src_scc",
        ],
        _ => vec![
            "v[3:4]",
            "v[254:255]",
            "s[2:3]",
            "vcc",
            "exec",
            "7",
            "1.0",
            "0.15915494309189532",
        ],
    }
}

/// Text for every form of every opcode.
fn forms() -> Vec<String> {
    let mut out = Vec::new();
    for info in OPCODES {
        let op = info.opcode;
        let m = info.mnemonic;
        let sig = info.signature;
        match info.format {
            Format::Sop1 if sig.srcs.is_empty() => {
                for d in scalar_dsts(sig.dst.unwrap()) {
                    out.push(format!("{m} {d}"));
                }
            }
            Format::Sop1 => {
                for s in scalar_srcs(sig.srcs[0], op.sign_extends_literal64()) {
                    out.push(format!("{m} {}, {s}", scalar_dsts(sig.dst.unwrap())[0]));
                }
                for d in scalar_dsts(sig.dst.unwrap()) {
                    out.push(format!(
                        "{m} {d}, {}",
                        scalar_srcs(sig.srcs[0], op.sign_extends_literal64())[0]
                    ));
                }
            }
            Format::Sop2 => {
                let d = scalar_dsts(sig.dst.unwrap());
                let a = scalar_srcs(sig.srcs[0], op.sign_extends_literal64());
                let b = scalar_srcs(sig.srcs[1], op.sign_extends_literal64());
                for (i, x) in a.iter().enumerate() {
                    out.push(format!(
                        "{m} {}, {x}, {}",
                        d[i % d.len()],
                        b[(i + 1) % b.len()]
                    ));
                }
                out.push(format!("{m} {}, {}, {}", d[0], b[0], "0x1234abcd"));
            }
            Format::Sopc if op == Opcode::Split || op == Opcode::Merge => {}
            Format::Sopc => {
                let a = scalar_srcs(sig.srcs[0], op.sign_extends_literal64());
                let b = scalar_srcs(sig.srcs[1], op.sign_extends_literal64());
                for (i, x) in a.iter().enumerate() {
                    out.push(format!("{m} {x}, {}", b[(i + 3) % b.len()]));
                }
            }
            Format::Sopk if sig.imm == ImmKind::Hwreg && !info.opcode.setreg_from_literal() => {
                for (reg, value) in [
                    ("hwreg(HW_REG_MODE, 4, 2)", "s6"),
                    ("hwreg(HW_REG_MODE)", "s101"),
                    ("hwreg(HW_REG_STATUS, 0, 1)", "vcc_lo"),
                    ("hwreg(63, 0, 32)", "m0"),
                    ("0x901", "exec_hi"),
                    // Rejected by both: the value is a register.
                    ("hwreg(HW_REG_MODE, 4, 2)", "3"),
                    ("hwreg(HW_REG_MODE, 4, 2)", "v1"),
                ] {
                    out.push(format!("{m} {reg}, {value}"));
                }
            }
            Format::Sopk if sig.imm == ImmKind::Hwreg => {
                for (reg, value) in [
                    ("hwreg(HW_REG_MODE, 4, 2)", "3"),
                    ("hwreg(HW_REG_MODE, 4, 2)", "0"),
                    ("hwreg(HW_REG_MODE)", "-1"),
                    ("hwreg(HW_REG_STATUS, 0, 1)", "64"),
                    ("hwreg(HW_REG_IB_STS, 31, 1)", "0x12345678"),
                    ("hwreg(0, 4, 2)", "-16"),
                    ("hwreg(63, 0, 32)", "65"),
                    ("0x901", "0xffffffff"),
                ] {
                    out.push(format!("{m} {reg}, {value}"));
                }
            }
            Format::Sopk => {
                for imm in ["0x0", "0x7fff", "0xffff", "0x1234"] {
                    let reg = scalar_dsts(Width::B32)[imm.len() % 3];
                    out.push(format!("{m} {reg}, {imm}"));
                }
                if sig.imm == ImmKind::Simm16 {
                    out.push(format!("{m} s1, -32768"));
                }
            }
            Format::Sopp => match sig.imm {
                ImmKind::None => out.push(m.to_string()),
                ImmKind::Branch => {
                    for t in ["0", "-1", "32767", "-32768", "100"] {
                        out.push(format!("{m} {t}"));
                    }
                }
                ImmKind::Nop => {
                    for t in ["0", "7", "64", "65", "0xffff"] {
                        out.push(format!("{m} {t}"));
                    }
                }
                _ => {
                    for t in [
                        "vmcnt(0)",
                        "lgkmcnt(0)",
                        "expcnt(0)",
                        "vmcnt(0) lgkmcnt(0)",
                        "vmcnt(3) expcnt(2) lgkmcnt(1)",
                        "vmcnt(15) expcnt(7) lgkmcnt(15)",
                        "0",
                        "lgkmcnt(7) & vmcnt(1)",
                    ] {
                        out.push(format!("{m} {t}"));
                    }
                }
            },
            Format::Smem => {
                let d = match sig.dst.unwrap() {
                    Width::B32 => ["s1", "vcc_hi", "s101"],
                    Width::B64 => ["s[4:5]", "vcc", "s[100:101]"],
                    Width::B128 => ["s[4:7]", "s[96:99]", "ttmp[4:7]"],
                    Width::B256 => ["s[8:15]", "s[92:99]", "ttmp[4:11]"],
                    Width::B512 => ["s[16:31]", "s[84:99]", "s[2:17]"],
                    Width::B96 => unreachable!("no 96-bit scalar load"),
                };
                for (i, (base, off)) in [
                    ("s[2:3]", "0x10"),
                    ("s[100:101]", "0xfffff"),
                    ("vcc", "0"),
                    ("s[8:9]", "s4"),
                    ("ttmp[2:3]", "m0"),
                ]
                .iter()
                .enumerate()
                {
                    out.push(format!("{m} {}, {base}, {off}", d[i % 3]));
                }
                out.push(format!("{m} {}, s[2:3], 0x20 glc", d[0]));
            }
            Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 => {
                valu_forms(info, &mut out);
            }
            Format::Flat => {
                let data = match sig.dst.or(sig.srcs.get(1).copied()).unwrap() {
                    Width::B32 => ["v1", "v255"],
                    Width::B64 => ["v[4:5]", "v[254:255]"],
                    Width::B96 => ["v[4:6]", "v[253:255]"],
                    _ => ["v[4:7]", "v[252:255]"],
                };
                let load = sig.dst.is_some();
                if op.is_flat_atomic() {
                    let data = match sig.srcs[1] {
                        Width::B32 => ["v1", "v255"],
                        _ => ["v[4:5]", "v[254:255]"],
                    };
                    for (i, addr) in ["v[2:3]", "v[254:255]", "v[7:8]"].iter().enumerate() {
                        let d = data[i % 2];
                        for mods in ["", " slc"] {
                            out.push(format!("{m} {addr}, {d}{mods}"));
                            out.push(format!("{m} v{}, {addr}, {d} glc{mods}", 250 * i));
                        }
                    }
                    continue;
                }
                for (i, addr) in ["v[2:3]", "v[254:255]", "v[7:8]"].iter().enumerate() {
                    for mods in ["", " glc", " slc", " glc slc"] {
                        let d = data[i % 2];
                        if load {
                            out.push(format!("{m} {d}, {addr}{mods}"));
                        } else {
                            out.push(format!("{m} {addr}, {d}{mods}"));
                        }
                    }
                }
            }
            Format::Ds => ds_forms(info, &mut out),
            Format::Mubuf => {
                let data = match sig.dst.or(sig.srcs.get(3).copied()).unwrap() {
                    Width::B32 => ["v1", "v255"],
                    Width::B64 => ["v[4:5]", "v[254:255]"],
                    Width::B96 => ["v[4:6]", "v[253:255]"],
                    _ => ["v[4:7]", "v[252:255]"],
                };
                let addrs = ["off", "v2 offen", "v255 offen"];
                let rsrcs = ["s[0:3]", "s[96:99]", "ttmp[8:11]"];
                let soffsets = ["0", "s11", "m0", "-16", "64", "vcc_hi", "ttmp3", "0.5"];
                for (i, soffset) in soffsets.iter().enumerate() {
                    let d = data[i % 2];
                    let (addr, mods) = match addrs[i % 3].split_once(' ') {
                        Some((v, m)) => (v, format!(" {m}")),
                        None => (addrs[i % 3], String::new()),
                    };
                    let rsrc = rsrcs[i % 3];
                    for extra in ["", " offset:4", " offset:4095 glc", " slc", " glc slc"] {
                        out.push(format!("{m} {d}, {addr}, {rsrc}, {soffset}{mods}{extra}"));
                    }
                }
            }
        }
    }
    out
}

/// DS forms: every register slot at its low and high end, each offset syntax, `gds`.
fn ds_forms(info: &pws_isa::OpInfo, out: &mut Vec<String>) {
    let m = info.mnemonic;
    let sig = info.signature;
    let reg = |w: Width, high: bool| -> String {
        let n = w.dwords() as u16;
        let first = if high { 256 - n } else { 3 };
        if n == 1 {
            format!("v{first}")
        } else {
            format!("v[{first}:{}]", first + n - 1)
        }
    };
    let offsets: &[&str] = match sig.imm {
        ImmKind::DsOffset2 => &["", " offset0:1", " offset1:255", " offset0:16 offset1:17"],
        _ => &["", " offset:4", " offset:65535", " offset:0x100"],
    };
    for (i, off) in offsets.iter().enumerate() {
        for gds in ["", " gds"] {
            let high = i % 2 == 1;
            let mut ops = Vec::new();
            if let Some(w) = sig.dst {
                ops.push(reg(w, high));
            }
            ops.push(if high { "v255".into() } else { "v2".into() });
            for w in &sig.srcs[1..] {
                ops.push(reg(*w, !high));
            }
            out.push(format!("{m} {}{off}{gds}", ops.join(", ")));
        }
    }
}

fn valu_forms(info: &pws_isa::OpInfo, out: &mut Vec<String>) {
    let m = info.mnemonic;
    if info.opcode.is_lane_access() {
        lane_forms(info.opcode, m, out);
        return;
    }
    if let Some(k) = info.opcode.literal_k() {
        // v_madmk/madak_f32: K is a literal dword however it is written.
        for s0 in vsrc0(Width::B32) {
            for kv in ["0x41200000", "1.0", "64", "-2.5", "0x3f800000"] {
                // A literal src0 must equal K (STRICTER: llvm-mc encodes K for both).
                if s0.starts_with("0x") && s0 != kv {
                    continue;
                }
                let mut parts = vec!["v5".to_string(), s0.to_string(), "v200".to_string()];
                parts.insert(k + 1, kv.to_string());
                out.push(format!("{m} {}", parts.join(", ")));
            }
        }
        out.push(format!("{m}_e64 v5, v1, 0x41200000, v2"));
        return;
    }
    let sig = info.signature;
    let dst = match sig.dst {
        Some(Width::B64) => "v[6:7]",
        Some(_) => "v5",
        None => "",
    };
    let native = info.format != Format::Vop3;
    let carry_in = sig.srcs.len() == 3 && info.format == Format::Vop2;
    let head = |sdst: &str| {
        let mut parts: Vec<String> = Vec::new();
        if !dst.is_empty() {
            parts.push(dst.to_string());
        }
        if sig.sdst.is_some() {
            parts.push(sdst.to_string());
        }
        parts
    };
    if native {
        // e32: any src0 kind, VGPR src1, VCC implicit.
        let vsrc1 = match sig.srcs.get(1) {
            Some(Width::B64) => "v[200:201]",
            _ => "v200",
        };
        for s0 in vsrc0(sig.srcs[0]) {
            let mut parts = head("vcc");
            parts.push(s0.to_string());
            if sig.srcs.len() > 1 {
                parts.push(vsrc1.to_string());
            }
            if carry_in {
                parts.push("vcc".to_string());
            }
            out.push(format!("{m}_e32 {}", parts.join(", ")));
        }
        // Unsuffixed: llvm-mc picks e32 where it can.
        let mut parts = head("vcc");
        parts.push(
            if sig.srcs[0] == Width::B64 {
                "v[1:2]"
            } else {
                "v1"
            }
            .into(),
        );
        if sig.srcs.len() > 1 {
            parts.push(
                if sig.srcs[1] == Width::B64 {
                    "v[2:3]"
                } else {
                    "v2"
                }
                .into(),
            );
        }
        if carry_in {
            parts.push("vcc".into());
        }
        out.push(format!("{m} {}", parts.join(", ")));
    }
    // e64 / VOP3: constants and SGPRs in any source, mask destinations, modifiers.
    let suffix = if native { "_e64" } else { "" };
    let choices: [&[&str]; 3] = [
        &["v9", "s3", "-5", "0.5", "v255", "exec_hi", "src_scc"],
        &["v10", "v11", "s3", "64", "-1.0", "m0", "vcc_lo"],
        &["v12", "3", "s3", "v13", "-16", "2.0", "v0"],
    ];
    let masks = [
        "s[20:21]",
        "vcc",
        "exec",
        "s[100:101]",
        "ttmp[0:1]",
        "s[2:3]",
        "vcc",
    ];
    for k in 0..7 {
        let mut parts = head(masks[k]);
        for (i, w) in sig.srcs.iter().enumerate() {
            let text = if carry_in && i == 2 {
                masks[(k + 2) % masks.len()].to_string()
            } else if *w == Width::B64 {
                ["v[2:3]", "s[4:5]", "3", "v[254:255]", "vcc", "exec", "-2"][k].to_string()
            } else {
                let c = choices[i][k];
                // One scalar value at most: keep the constant bus legal.
                if i > 0
                    && ["s3", "exec_hi", "src_scc", "m0", "vcc_lo"].contains(&c)
                    && parts.iter().skip(1).any(|p| {
                        p.starts_with('s') || p.contains("exec") || p.contains("vcc") || p == "m0"
                    })
                {
                    "v1".to_string()
                } else {
                    c.to_string()
                }
            };
            parts.push(text);
        }
        out.push(format!("{m}{suffix} {}", parts.join(", ")));
    }
    let mut mods = Vec::new();
    if info.mods & MOD_CLAMP != 0 {
        mods.push(" clamp");
    }
    if info.mods & MOD_OMOD != 0 {
        mods.extend([" mul:2", " mul:4", " div:2", " clamp mul:4"]);
    }
    for modifier in mods {
        let mut parts = head("s[8:9]");
        for (i, w) in sig.srcs.iter().enumerate() {
            parts.push(if carry_in && i == 2 {
                "s[10:11]".into()
            } else if *w == Width::B64 {
                format!("v[{}:{}]", 20 + 2 * i, 21 + 2 * i)
            } else {
                format!("v{}", 20 + i)
            });
        }
        out.push(format!("{m}{suffix} {}{modifier}", parts.join(", ")));
    }
    if info.mods & MOD_INPUT != 0 {
        for (a, b) in [
            ("-v1", "v2"),
            ("|v1|", "-|v2|"),
            ("v1", "neg(2.0)"),
            ("-|s1|", "|0.5|"),
            ("abs(v3)", "-4.0"),
        ] {
            let mut parts = head("vcc");
            parts.push(a.into());
            if sig.srcs.len() > 1 {
                parts.push(b.into());
            }
            if carry_in {
                parts.push("s[4:5]".into());
            } else if sig.srcs.len() == 3 {
                parts.push("-v7".into());
            }
            out.push(format!("{m}{suffix} {}", parts.join(", ")));
        }
    }
}

/// The form of a canonical llvm-mc line: mnemonic (with its `_e32`/`_e64` suffix) and the
/// kind of each operand: `S` scalar register (SGPRs, vcc, exec, m0, flat_scratch, ttmp), `V`
/// VGPR, `C` condition source (`src_scc` ...), `I` inline integer, `F` inline float, `L`
/// literal, `M` an input-modified source; modifiers (`glc`, `clamp`, `mul:2`) as themselves.
fn form_key(line: &str) -> String {
    let mut parts = line.split_whitespace();
    let mut key = parts.next().unwrap_or_default().to_string();
    let rest: Vec<&str> = parts.collect();
    let rest = rest.join(" ");
    for tok in rest.split(',').flat_map(|t| t.split_whitespace()) {
        let kind = if tok.starts_with('-') && !tok[1..].starts_with(|c: char| c.is_ascii_digit())
            || tok.starts_with('|')
            || tok.starts_with("neg(")
            || tok.starts_with("abs(")
        {
            "M"
        } else if tok.starts_with("src_") {
            "C"
        } else if tok.starts_with("0x") {
            "L"
        } else if tok.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            if tok.contains('.') {
                "F"
            } else {
                "I"
            }
        } else if tok.starts_with('v')
            && tok[1..].starts_with(|c: char| c.is_ascii_digit() || c == '[')
        {
            "V"
        } else if ["glc", "slc", "clamp"].contains(&tok) || tok.contains(':') && !tok.contains('[')
        {
            tok
        } else {
            "S"
        };
        key.push(' ');
        key.push_str(kind);
    }
    key
}

#[test]
fn forms_match_llvm_mc() {
    let lines = forms();
    let oracle = llvm_mc(&lines);
    let mut failures = Vec::new();
    let mut keys = BTreeSet::new();
    let mut rejected = 0;
    for (line, o) in lines.iter().zip(&oracle) {
        let Some(o) = o else {
            // Generated lines that break an operand rule: we must reject them too.
            rejected += 1;
            if let Ok(p) = assemble(line, "forms.s") {
                failures.push(format!(
                    "`{line}`: llvm-mc rejects it, we encode {:02x?}",
                    p.bytes()
                ));
            }
            continue;
        };
        keys.insert(form_key(&o.text));
        match assemble(line, "forms.s") {
            Err(e) => failures.push(format!("`{line}`: we reject it: {e}")),
            Ok(p) => {
                if p.bytes() != o.bytes {
                    failures.push(format!(
                        "`{line}`: bytes {:02x?}, llvm-mc {:02x?}",
                        p.bytes(),
                        o.bytes
                    ));
                    continue;
                }
                let decoded = decode(&p.words()).expect("decode our own encoding");
                let text = normalize(&decoded[0].1.to_string());
                if text != o.text {
                    failures.push(format!("`{line}`: we print `{text}`, llvm-mc `{}`", o.text));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} lines: {} distinct accepted forms byte- and text-identical to llvm-mc, {} lines \
         rejected by both",
        lines.len(),
        keys.len(),
        rejected
    );
    assert!(keys.len() >= 150, "only {} distinct forms", keys.len());
    // Every opcode but split/merge (which llvm-mc cannot know) has accepted, matching forms.
    let accepted: BTreeSet<&str> = oracle
        .iter()
        .flatten()
        .filter_map(|o| o.text.split_whitespace().next())
        .map(|m| m.trim_end_matches("_e32").trim_end_matches("_e64"))
        .collect();
    for info in OPCODES {
        if !matches!(info.opcode, Opcode::Split | Opcode::Merge) {
            assert!(
                accepted.contains(info.mnemonic),
                "{} has no form",
                info.mnemonic
            );
        }
    }
}

/// Lines that break one operand rule each, with the error class we must report.
const REJECTS: &[(&str, pws_isa::ErrorKind)] = {
    use pws_isa::ErrorKind::*;
    &[
        ("s_mov_b32 s102, s0", RegisterOutOfRange),
        ("s_mov_b32 s0, s102", RegisterOutOfRange),
        ("v_mov_b32 v256, v0", RegisterOutOfRange),
        ("v_mov_b32 v0, v[255:256]", BadOperand),
        ("s_mov_b32 s0, ttmp12", RegisterOutOfRange),
        ("s_mov_b64 s[1:2], s[4:5]", BadOperand),
        ("s_mov_b64 s[0:1], s[3:4]", BadOperand),
        ("s_load_dwordx4 s[2:5], s[2:3], 0x0", BadOperand),
        ("s_load_dword s1, s[3:4], 0x0", BadOperand),
        ("s_load_dword s1, s[2:3], 0x100000", ImmediateOutOfRange),
        ("s_load_dword exec_lo, s[2:3], 0x0", BadOperand),
        ("s_mov_b32 s0, s[0:1]", BadOperand),
        ("s_mov_b64 s[0:1], s0", BadOperand),
        ("s_mov_b64 s[0:1], m0", BadOperand),
        ("s_mov_b32 s0, v0", BadOperand),
        ("s_add_u32 s0, 0x12345678, 0x12345679", Literal),
        ("s_mov_b64 s[0:1], 0x123456789", ImmediateOutOfRange),
        ("v_mul_lo_u32 v1, v2, 0x1234", Literal),
        ("v_add_u32_e64 v1, vcc, v2, 0x1234", Literal),
        ("v_mov_b32_e64 v1, 0x12345678", Literal),
        ("v_cmp_eq_u32 vcc, v2, 0x1234", Literal),
        ("v_add_u32 v1, vcc, s1, s2", ConstantBus),
        ("v_mul_lo_u32 v1, s2, s3", ConstantBus),
        ("v_mad_u32_u24 v1, s1, v2, s2", ConstantBus),
        ("v_cndmask_b32 v1, s2, v3, vcc", ConstantBus),
        ("v_addc_u32 v1, vcc, s2, v3, vcc", ConstantBus),
        ("v_add_f32 v0, 0x1234, s1", Literal),
        ("v_add_f32_e32 v0, v1, s1", BadOperand),
        ("v_add_u32_e32 v1, s[0:1], v2, v3", BadOperand),
        ("v_cmp_eq_u32_e32 s[0:1], v1, v2", BadOperand),
        ("v_cndmask_b32_e32 v1, v2, v3, s[0:1]", BadOperand),
        ("v_cndmask_b32_e64 v1, v2, v3, 0", BadOperand),
        ("v_add_u32_e64 v1, s[1:2], v2, v3", BadOperand),
        ("v_mov_b32 v1, exec", BadOperand),
        ("flat_load_dword v1, s[2:3]", BadOperand),
        ("flat_load_dword s1, v[2:3]", BadOperand),
        ("s_movk_i32 s0, -32769", ImmediateOutOfRange),
        ("s_movk_i32 s0, 0x10000", ImmediateOutOfRange),
        ("s_cmpk_eq_u32 s0, -2", ImmediateOutOfRange),
        ("s_branch 65536", ImmediateOutOfRange),
        ("s_waitcnt vmcnt(16)", ImmediateOutOfRange),
        ("s_waitcnt expcnt(8)", ImmediateOutOfRange),
        ("s_waitcnt lgkmcnt(16)", ImmediateOutOfRange),
        ("v_and_b32_e64 v1, v2, v3 clamp", Modifier),
        ("v_mul_lo_u32 v1, v2, v3 clamp", Modifier),
        ("v_cvt_f32_i32_e64 v1, v2 div:3", Modifier),
        ("v_mov_b32_e64 v1, v2 mul:2", Modifier),
        ("v_add_u32_e64 v1, vcc, -v2, v3", Modifier),
        ("s_mov_b32 s0, s1 glc", Modifier),
        ("s_load_dword s1, s[2:3], 0x0 slc", Modifier),
        ("v_mov_b32 v1, xnack_mask_lo", Unsupported),
        ("s_foo s0, s1", Unsupported),
        ("frobnicate v1", UnknownMnemonic),
        ("v_mul_lo_u32_e32 v1, v2, v3", Unsupported),
        ("s_mov_b32 s0", Syntax),
        ("s_mov_b32 s0, s1, s2", Syntax),
        ("v_add_f32 v0, v1, v2 foo", Syntax),
        ("ds_read_b32 v1, v2 offset:65536", ImmediateOutOfRange),
        ("ds_read_b32 v1, v2 offset0:1", Modifier),
        ("ds_read2_b32 v[1:2], v2 offset:4", Modifier),
        ("ds_read2_b32 v[1:2], v2 offset0:256", ImmediateOutOfRange),
        ("ds_write_b32 v1, v2 offset:4 offset:8", Modifier),
        ("ds_read_b32 v1, v2 offset:-4", Syntax),
        ("ds_read_b32 v1, s2", BadOperand),
        ("ds_read_b64 v1, v2", BadOperand),
        ("ds_write_b32 v1, 5", BadOperand),
        ("ds_add_u32 v1, v2 glc", Modifier),
        ("flat_load_dword v1, v[2:3] gds", Modifier),
        ("flat_atomic_add v0, v[1:2], v3", Modifier),
        ("flat_atomic_add v[1:2], v3 glc", Modifier),
        ("flat_atomic_add v0, v[1:2], v3, v4 glc", Syntax),
    ]
};

/// Lines llvm-mc accepts that pws rejects on purpose: instructions outside the subset, and
/// sloppy syntax llvm-mc tolerates (missing commas, suffixes on scalar mnemonics, values it
/// silently truncates, the optional `s_endpgm` operand no gfx8 hardware reads).
const STRICTER: &[(&str, pws_isa::ErrorKind)] = {
    use pws_isa::ErrorKind::*;
    &[
        // llvm-mc keeps the low 12 bits of a MUBUF offset up to 65535.
        (
            "buffer_load_dword v1, off, s[0:3], 0 offset:8187",
            ImmediateOutOfRange,
        ),
        ("buffer_load_dword v1, v2, s[0:3], 0 idxen", Unsupported),
        ("s_mov_b32_e32 s0, s1", Unsupported),
        ("s_nop 0x10000", ImmediateOutOfRange),
        ("s_mov_b32 s0 s1", Syntax),
        ("s_endpgm 1", Syntax),
        // llvm-mc takes `|x|` on the second and third source of VOP3b and drops it (VOP3b has
        // no ABS field); only src0 gets its "ABS not allowed" error.
        ("v_div_scale_f32 v1, vcc, v2, -|v3|, v4", Modifier),
        // llvm-mc encodes -100 as the literal 0xffffff9c, which the hardware zero-extends in
        // a b64 operand: 4294967196.
        ("s_mov_b64 s[10:11], -100", ImmediateOutOfRange),
        (
            "s_and_b64 s[10:11], -2147483648, s[6:7]",
            ImmediateOutOfRange,
        ),
        // llvm-mc takes a literal src0 that differs from K and encodes K for both.
        ("v_madmk_f32 v5, 0xdeadbeef, 1.0, v200", Literal),
    ]
};

#[test]
fn stricter_than_llvm_mc() {
    let lines: Vec<String> = STRICTER.iter().map(|(l, _)| l.to_string()).collect();
    let oracle = llvm_mc(&lines);
    for ((line, kind), o) in STRICTER.iter().zip(&oracle) {
        assert!(
            o.is_some(),
            "`{line}`: llvm-mc now rejects it; move it to REJECTS"
        );
        let e = assemble(line, "x.s").expect_err(line);
        assert_eq!(e.kind, *kind, "`{line}`: {e}");
    }
}

/// Mnemonic aliases: the same bytes as llvm-mc, and the disassembly prints the opcode's own
/// mnemonic, as `llvm-mc --disassemble` does.
#[test]
fn aliases_match_llvm_mc() {
    for (alias, canonical) in [("v_mul_lo_i32 v0, s1, v2", "v_mul_lo_u32 v0, s1, v2")] {
        let o = llvm_mc(&[alias.to_string()])[0]
            .take()
            .expect("llvm-mc accepts it");
        let p = assemble(alias, "alias.s").unwrap();
        assert_eq!(p.bytes(), o.bytes, "{alias}");
        assert_eq!(normalize(&p.instructions[0].item.to_string()), canonical);
    }
}

#[test]
fn rejects_match_llvm_mc() {
    rejected_like_llvm_mc(REJECTS);
}

/// Every line is refused by llvm-mc and by us, with the error kind given and its position.
fn rejected_like_llvm_mc(cases: &[(&str, pws_isa::ErrorKind)]) {
    let lines: Vec<String> = cases.iter().map(|(l, _)| l.to_string()).collect();
    let oracle = llvm_mc(&lines);
    let mut failures = Vec::new();
    for ((line, kind), o) in cases.iter().zip(&oracle) {
        if let Some(o) = o {
            failures.push(format!("`{line}`: llvm-mc accepts it as `{}`", o.text));
        }
        match assemble(line, "bad.s") {
            Ok(p) => failures.push(format!("`{line}`: we accept it: {:02x?}", p.bytes())),
            Err(e) if e.kind != *kind => failures.push(format!(
                "`{line}`: expected {kind:?}, got {:?}: {e}",
                e.kind
            )),
            Err(e) => assert!(e.to_string().starts_with("bad.s:1:"), "{e}"),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// clang-14's output for three small OpenCL kernels (tests/data/kernels.cl), directives,
/// kernel descriptors and metadata included: every instruction assembles to llvm-mc's bytes.
#[test]
fn clang14_kernels_match_llvm_mc() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/clang14_fiji.s");
    let source = std::fs::read_to_string(path).unwrap();
    let program = assemble(&source, path).unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new("llvm-mc")
        .args([
            "-triple=amdgcn-amd-amdhsa",
            "-mcpu=fiji",
            "-show-encoding",
            path,
        ])
        .output()
        .expect("llvm-mc (llvm-14) must be installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    // llvm-mc leaves label offsets as fixups, shown as `A` bytes: those must match the label.
    let oracle: Vec<(String, Vec<Option<u8>>)> = stdout
        .lines()
        .filter_map(|l| l.split_once("; encoding: ["))
        .map(|(text, e)| {
            let bytes = e
                .trim_end_matches(']')
                .split(',')
                .map(|b| {
                    u8::from_str_radix(b.trim_start_matches("0x"), 16)
                        .ok()
                        .filter(|_| b != "A")
                })
                .collect();
            (text.trim().to_string(), bytes)
        })
        .collect();
    assert_eq!(program.instructions.len(), oracle.len());
    assert!(oracle.len() > 60, "only {} instructions", oracle.len());
    let mut branches = 0;
    for (l, (text, bytes)) in program.instructions.iter().zip(&oracle) {
        let ours: Vec<u8> = l.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(ours.len(), bytes.len(), "{text}");
        for (a, b) in ours.iter().zip(bytes) {
            assert!(
                b.is_none() || Some(*a) == *b,
                "line {}: `{text}`: {ours:02x?} vs {bytes:02x?}",
                l.line
            );
        }
        if bytes.contains(&None) {
            branches += 1;
            let label = text.split_whitespace().last().unwrap();
            assert_eq!(
                l.item.branch_target(l.pc),
                program.labels.get(label).copied(),
                "{text}"
            );
        }
    }
    assert_eq!(branches, 4, "s_cbranch_execz x3, s_cbranch_execnz x1");
    for name in ["vadd", "loop", "fl", ".LBB0_2"] {
        assert!(program.labels.contains_key(name), "label {name}");
    }
}

/// Random valid instructions of every opcode (the round-trip generator, fixed seed): printed by
/// us, llvm-mc must accept the text and give our bytes and our text back.
#[test]
fn random_instructions_match_llvm_mc() {
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = common::seeded_runner();
    let count = pws_isa::testing::proptest_cases(3_000) as usize;
    let insts: Vec<pws_isa::Instruction> = (0..count)
        .map(|_| {
            common::instruction()
                .new_tree(&mut runner)
                .unwrap()
                .current()
        })
        .filter(|i| !matches!(i.opcode, Opcode::Split | Opcode::Merge))
        .collect();
    let lines: Vec<String> = insts.iter().map(|i| i.to_string()).collect();
    let oracle = llvm_mc(&lines);
    let mut failures = Vec::new();
    for ((inst, line), o) in insts.iter().zip(&lines).zip(&oracle) {
        let ours: Vec<u8> = pws_isa::encode(inst)
            .unwrap()
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        match o {
            None => failures.push(format!("llvm-mc rejects `{line}`")),
            Some(o) if o.bytes != ours => {
                failures.push(format!("`{line}`: {ours:02x?} vs llvm-mc {:02x?}", o.bytes))
            }
            // By design we print an s_waitcnt with bits outside the three counters as a raw
            // number (llvm-mc drops those bits from the text, which then reassembles
            // differently).
            Some(_) if inst.opcode == Opcode::SWaitcnt && inst.imm & !0xf7f != 0 => {}
            Some(o) if o.text != normalize(line) => {
                failures.push(format!("`{line}`: llvm-mc prints `{}`", o.text))
            }
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        lines.len(),
        failures.join("\n")
    );
}

/// Random candidates that often break an operand rule (constant bus, literals, alignment,
/// e32 restrictions, modifiers): we accept exactly the lines llvm-mc accepts.
#[test]
fn random_candidates_accepted_iff_llvm_mc_accepts() {
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = common::seeded_runner();
    let count = pws_isa::testing::proptest_cases(3_000) as usize;
    let lines: Vec<String> = (0..count)
        .map(|_| {
            common::any_candidate()
                .new_tree(&mut runner)
                .unwrap()
                .current()
        })
        .filter(|i| !matches!(i.opcode, Opcode::Split | Opcode::Merge))
        .map(|i| i.to_string())
        .collect();
    let oracle = llvm_mc(&lines);
    let mut failures = Vec::new();
    let mut rejected = 0;
    for (line, o) in lines.iter().zip(&oracle) {
        let ours = assemble(line, "c.s");
        rejected += ours.is_err() as usize;
        match (o, ours) {
            (None, Ok(_)) => failures.push(format!("we accept `{line}`, llvm-mc rejects it")),
            // The abs llvm-mc drops on VOP3b sources (STRICTER) is refused on purpose.
            (Some(_), Err(e))
                if e.kind == pws_isa::ErrorKind::Modifier && e.message.contains("VOP3b") => {}
            // So is a literal src0 of v_madmk/madak_f32 beside K, which llvm-mc encodes as K
            // (STRICTER).
            (Some(_), Err(e))
                if e.kind == pws_isa::ErrorKind::Literal
                    && (line.starts_with("v_madmk_f32") || line.starts_with("v_madak_f32")) => {}
            (Some(o), Err(e)) => {
                failures.push(format!("we reject `{line}` ({e}), llvm-mc: `{}`", o.text))
            }
            (Some(o), Ok(p)) if p.bytes() != o.bytes => {
                failures.push(format!("`{line}`: bytes differ"))
            }
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        lines.len(),
        failures.join("\n")
    );
    assert!(
        rejected * 5 > lines.len(),
        "too few invalid candidates: {rejected}"
    );
}

/// The decoder against `llvm-mc --disassemble`: encodings of random instructions with one
/// random bit flipped (often another opcode, operand or form). Whatever we decode, llvm-mc must
/// decode to the same text.
#[test]
fn decoder_matches_llvm_mc_disassembler() {
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = common::seeded_runner();
    let count = pws_isa::testing::proptest_cases(3_000) as usize;
    let mut cases: Vec<(Vec<u32>, pws_isa::Instruction)> = Vec::new();
    let mut tried = 0;
    for k in 0..count {
        let inst = common::instruction()
            .new_tree(&mut runner)
            .unwrap()
            .current();
        if matches!(inst.opcode, Opcode::Split | Opcode::Merge) {
            continue;
        }
        let mut words = pws_isa::encode(&inst).unwrap();
        let bit = (k * 7919) % (32 * words.len().min(2));
        words[bit / 32] ^= 1 << (bit % 32);
        tried += 1;
        if let Ok((decoded, len)) = pws_isa::decode_one(&words, 0) {
            // A flipped bit can turn an s_cmp_* into split/merge, which llvm-mc cannot decode.
            if matches!(decoded.opcode, Opcode::Split | Opcode::Merge) {
                continue;
            }
            cases.push((words[..len].to_vec(), decoded));
        }
    }
    let mut input = String::new();
    for (words, _) in &cases {
        let bytes: Vec<String> = words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .map(|b| format!("0x{b:02x}"))
            .collect();
        input.push_str(&bytes.join(","));
        input.push('\n');
    }
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(input.as_bytes()).unwrap();
    let out = Command::new("llvm-mc")
        .args(["-arch=amdgcn", "-mcpu=fiji", "--disassemble"])
        .arg(file.path())
        .output()
        .expect("llvm-mc (llvm-14) must be installed");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let texts: Vec<String> = stdout
        .lines()
        .map(normalize)
        .filter(|l| !l.is_empty() && l != ".text")
        .collect();
    assert_eq!(
        texts.len(),
        cases.len(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut failures = Vec::new();
    for ((words, inst), text) in cases.iter().zip(&texts) {
        let ours = normalize(&inst.to_string());
        let waitcnt_extra = inst.opcode == Opcode::SWaitcnt && inst.imm & !0xf7f != 0;
        // llvm-mc's disassembler prints branch offsets unsigned (`s_branch 65533`); we print
        // them signed, as its assembler does for `s_branch -3`. Both assemble to the same word.
        let same_branch = inst.is_branch()
            && text.split_whitespace().next() == ours.split_whitespace().next()
            && text
                .split_whitespace()
                .nth(1)
                .and_then(|n| n.parse::<u32>().ok())
                == Some(inst.imm);
        if ours != *text && !waitcnt_extra && !same_branch {
            failures.push(format!("{words:08x?}: we print `{ours}`, llvm-mc `{text}`"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        cases.len() * 3 > tried,
        "only {} of {tried} mutants decode",
        cases.len()
    );
}

/// `v_readfirstlane_b32`, `v_readlane_b32`, `v_writelane_b32`: scalar destinations and lane
/// numbers of every kind, the constant bus, and what gfx8 refuses (a VGPR lane or value, a
/// literal, modifiers, the e64 suffix).
fn lane_forms(op: Opcode, m: &str, out: &mut Vec<String>) {
    let lines: &[&str] = match op {
        Opcode::VReadfirstlaneB32 => &[
            "s5, v1",
            "s101, v255",
            "vcc_lo, v3",
            "m0, v1",
            "exec_hi, v2",
            "ttmp3, v4",
            "flat_scratch_hi, v1",
            "s5, s1",
            "s5, 1",
            "s5, 0x1234",
            "v5, v1",
            "s[4:5], v1",
        ],
        Opcode::VReadlaneB32 => &[
            "s5, v1, s2",
            "s101, v255, 63",
            "s5, v1, 64",
            "s5, v1, -1",
            "m0, v1, 0",
            "s5, v1, m0",
            "s5, v1, vcc_lo",
            "s5, v1, exec_hi",
            "s5, v1, scc",
            "s5, v1, 0.5",
            "flat_scratch_lo, v1, 0",
            "ttmp3, v1, s2",
            "vcc_hi, v7, s9",
            "s5, v1, v2",
            "s5, 1, 3",
            "s5, s1, 3",
            "s5, v1, 0x1234",
            "s5, v1, s2 clamp",
            "s5, -v1, s2",
            "v5, v1, 0",
        ],
        _ => &[
            "v1, s5, 0",
            "v255, s101, 63",
            "v1, m0, 3",
            "v1, 1.0, 3",
            "v1, s5, 0.5",
            "v1, -16, s2",
            "v1, exec_lo, 3",
            "v1, s5, -1",
            "v1, s5, s2",
            "v1, s5, m0",
            "v1, v2, 3",
            "v1, 0x1234, 3",
            "v1, s5, v2",
            "s1, s5, 3",
            "v1, s5, 3 clamp",
        ],
    };
    for l in lines {
        out.push(format!("{m} {l}"));
    }
    out.push(format!("{m}_e32 {}", lines[0]));
    out.push(format!("{m}_e64 {}", lines[0]));
}

/// SDWA lines for `info`'s opcode: the default form, each select and `dst_unused` value, the
/// input modifiers of each source kind (float `-`/`|..|`, integer `sext`), `clamp`, and
/// operands gfx8 refuses (SGPR, constant, literal sources; another mask than vcc).
fn sdwa_forms(info: &pws_isa::OpInfo, out: &mut Vec<String>) {
    let op = info.opcode;
    let sig = info.signature;
    let mn = info.mnemonic;
    let (head, nsrc) = match (info.format, sig.srcs.len(), sig.sdst.is_some()) {
        (Format::Vopc, _, _) => ("vcc, ".to_string(), 2),
        (_, 1, _) => ("v1, ".to_string(), 1),
        (_, _, true) => ("v1, vcc, ".to_string(), 2),
        _ => ("v1, ".to_string(), 2),
    };
    let tail = if sig.srcs.len() == 3 { ", vcc" } else { "" };
    let line = |s0: &str, s1: &str, mods: &str| {
        let srcs = if nsrc == 1 {
            s0.to_string()
        } else {
            format!("{s0}, {s1}")
        };
        format!("{mn}_sdwa {head}{srcs}{tail} {mods}")
            .trim_end()
            .to_string()
    };
    out.push(line("v2", "v255", ""));
    let dst = info.format != Format::Vopc;
    for sel in [
        "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD",
    ] {
        out.push(line("v7", "v8", &format!("src0_sel:{sel}")));
        if nsrc == 2 {
            out.push(line("v7", "v8", &format!("src1_sel:{sel}")));
        }
        if dst {
            for unused in ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"] {
                out.push(line(
                    "v9",
                    "v10",
                    &format!("dst_sel:{sel} dst_unused:{unused}"),
                ));
            }
        }
    }
    for (i, float) in (0..nsrc).map(|i| (i, op.sdwa_float_src(i))) {
        let decorated = |d: &str| {
            let mut s = ["v3", "v4"].map(String::from);
            s[i] = d.replace('x', &s[i]);
            line(&s[0], &s[1], "")
        };
        if float {
            out.extend(["-x", "|x|", "-|x|"].map(decorated));
        } else {
            out.push(decorated("sext(x)"));
        }
    }
    out.push(line("v5", "v6", "clamp dst_sel:WORD_1 src0_sel:BYTE_2"));
    // gfx8 SDWA reads VGPRs only.
    for bad in ["s5", "1", "0x1234", "vcc_lo", "1.0"] {
        out.push(line(bad, "v6", ""));
        if nsrc == 2 {
            out.push(line("v5", bad, ""));
        }
    }
}

/// Every opcode of the table in its SDWA form (or the refusal when it has none) against
/// llvm-mc: bytes, canonical text, and the disassembler back to that text.
#[test]
fn sdwa_forms_match_llvm_mc() {
    let mut lines = Vec::new();
    for info in OPCODES.iter().filter(|i| i.format.has_vop3_form()) {
        sdwa_forms(info, &mut lines);
    }
    // The compare printed as llvm-mc prints it (no suffix) and the selects without one.
    lines.push("v_cmp_eq_u32 vcc, v1, v2 src0_sel:BYTE_0 src1_sel:DWORD".into());
    lines.push("v_or_b32 v3, v5, v4 src0_sel:WORD_1".into());
    lines.push("v_cmp_eq_f32 vcc, -v1, |v2| clamp src0_sel:DWORD src1_sel:DWORD".into());
    let oracle = llvm_mc(&lines);
    let mut failures = Vec::new();
    let mut accepted = 0;
    for (line, o) in lines.iter().zip(&oracle) {
        let ours = assemble(line, "sdwa.s");
        match (o, ours) {
            (None, Ok(p)) => failures.push(format!(
                "`{line}`: llvm-mc rejects it, we encode {:02x?}",
                p.bytes()
            )),
            (None, Err(e)) => assert!(e.to_string().starts_with("sdwa.s:1:"), "{e}"),
            (Some(_), Err(e)) => failures.push(format!("`{line}`: llvm-mc takes it, we say {e}")),
            (Some(o), Ok(p)) => {
                accepted += 1;
                let inst = &p.instructions[0].item;
                if p.bytes() != o.bytes {
                    failures.push(format!(
                        "`{line}`: bytes {:02x?}, llvm-mc {:02x?}",
                        p.bytes(),
                        o.bytes
                    ));
                }
                if normalize(&inst.to_string()) != o.text {
                    failures.push(format!("`{line}`: we print `{inst}`, llvm-mc `{}`", o.text));
                }
                let words: Vec<u32> = o
                    .bytes
                    .chunks(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                match decode(&words) {
                    Ok(d) if d.len() == 1 && normalize(&d[0].1.to_string()) == o.text => {}
                    other => failures.push(format!("`{line}`: decodes to {other:?}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 116 opcodes have the form; each contributes dozens of accepted lines.
    assert!(accepted > 2000, "only {accepted} SDWA lines accepted");
    for info in OPCODES.iter().filter(|i| i.format.has_vop3_form()) {
        let mut one = Vec::new();
        sdwa_forms(info, &mut one);
        let takes = llvm_mc(&one[..1])[0].is_some();
        assert_eq!(
            info.opcode.has_sdwa_form(),
            takes,
            "{}: has_sdwa_form disagrees with llvm-mc",
            info.mnemonic
        );
    }
}

/// SDWA text llvm-mc refuses, refused by us with the error kind.
#[test]
fn sdwa_rejects_match_llvm_mc() {
    use pws_isa::ErrorKind::*;
    let cases = [
        ("v_or_b32_sdwa v3, v5, v4 src1_sel:byte_2", Modifier),
        ("v_or_b32_sdwa v3, v5, v4 src0_sel:BYTE_4", Modifier),
        ("v_or_b32_sdwa v3, v5, v4 dst_unused:UNUSED_ZERO", Modifier),
        (
            "v_or_b32_sdwa v1, v2, v3 src0_sel:BYTE_0 src0_sel:BYTE_1",
            Modifier,
        ),
        ("v_mov_b32_sdwa v1, v2 src1_sel:BYTE_0", Modifier),
        ("v_cmp_eq_u32_sdwa vcc, v1, v2 dst_sel:BYTE_0", Modifier),
        ("v_cmp_eq_u32_sdwa s[0:1], v1, v2", BadOperand),
        ("v_add_f32_sdwa v1, v2, v3 mul:2", Modifier),
        ("v_add_f32_sdwa v1, sext(v2), v3", Modifier),
        ("v_mov_b32_sdwa v1, -v2", Modifier),
        ("v_mov_b32_sdwa v1, |v2|", Modifier),
        ("v_madmk_f32_sdwa v1, v2, 0x1, v3", BadOperand),
        ("v_cmp_eq_u64_sdwa vcc, v[1:2], v[3:4]", BadOperand),
        ("v_or_b32_sdwa v3, s5, v4", BadOperand),
        ("v_or_b32_sdwa v3, v4, 1", BadOperand),
        ("v_or_b32_e32 v3, v5, v4 src0_sel:WORD_1", Modifier),
        ("v_or_b32_sdwa v3, v5, v4 dst_sel:", Syntax),
        ("s_mov_b32 s0, s1 src0_sel:BYTE_0", Modifier),
        ("v_mov_b32_e32 v1, sext(v2)", Modifier),
    ];
    rejected_like_llvm_mc(&cases);
}
