//! Human-readable and Graphviz renderings of an [`Analysis`].

use std::collections::HashSet;
use std::fmt::Write as _;

use crate::analysis::Analysis;
use crate::cfg::{BlockKind, BsbCfg};
use crate::dot::quote_id;
use crate::ipet::IpetMethod;
use crate::kernel::DwsBound;

/// The default `pws wcet` output: the mode table, SB, E_r and the worst-case path's blocks.
pub fn text(g: &BsbCfg, a: &Analysis) -> String {
    let r = &a.report;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "WCET bounds (cycles): S = {}, d = {}, e_s = {}, e_m = {}; DWS {}",
        r.s,
        r.d,
        r.e_s,
        r.e_m,
        match r.dws_bound {
            DwsBound::Lemma57 => "by Lemma 5.7",
            DwsBound::Serialized => "serialized (each split wavefront's work once)",
        }
    );
    let _ = writeln!(
        s,
        "{:<9} {:>12} {:>12} {:>10} {:>6} {:>14}",
        "mode", "E_kernel", "E_WF", "IPET", "DS", "SIMDs per CU"
    );
    for (mode, k, wf, ipet, ds, simd) in [
        (
            "no-split",
            r.nosplit,
            r.e_wf.nosplit,
            r.ipet.nosplit,
            r.ds.nosplit,
            r.n_simd_total.nosplit,
        ),
        (
            "DWS",
            r.dws,
            r.e_wf.dws,
            r.ipet.dws,
            r.ds.dws,
            r.n_simd_total.dws,
        ),
        (
            "PWS",
            r.pws,
            r.e_wf.pws,
            r.ipet.pws,
            r.ds.pws,
            r.n_simd_total.pws,
        ),
    ] {
        let _ = writeln!(
            s,
            "{mode:<9} {k:>12} {wf:>12} {ipet:>10} {ds:>6} {simd:>14}"
        );
    }
    if r.nosplit > 0 {
        let gain = |x: u128| 100.0 * (r.nosplit as f64 - x as f64) / r.nosplit as f64;
        let _ = writeln!(
            s,
            "PWS vs no-split: {:.1}% lower; vs DWS: {:.1}% lower",
            gain(r.pws),
            {
                if r.dws > 0 {
                    100.0 * (r.dws as f64 - r.pws as f64) / r.dws as f64
                } else {
                    0.0
                }
            }
        );
    }
    let _ = writeln!(
        s,
        "selected split points (SB, peak {} live): {}",
        r.count,
        if r.selected.is_empty() {
            "none".to_string()
        } else {
            r.selected.join(", ")
        }
    );
    let removed: Vec<String> = r
        .removed_edges
        .iter()
        .map(|[u, v]| format!("{u} -> {v}"))
        .collect();
    let _ = writeln!(
        s,
        "pruned edges (E_r): {}",
        if removed.is_empty() {
            "none".to_string()
        } else {
            removed.join(", ")
        }
    );
    let _ = writeln!(
        s,
        "IPET: {}",
        match r.ipet_method {
            IpetMethod::Structural =>
                "structural optimum, checked exactly against the ILP's rows and its LP dual",
            IpetMethod::Ilp => "ILP optimum (microlp), equal to the certified structural optimum",
            IpetMethod::Multiplicity =>
                "every block counted as often as its loops allow (see the note)",
        }
    );
    for note in &r.notes {
        let _ = writeln!(s, "note: {note}");
    }
    let _ = writeln!(
        s,
        "worst-case path of the slowest split wavefront (block: wcet x count):"
    );
    for &v in g.order() {
        let row = &r.blocks[v];
        if row.count_pws > 0 {
            let _ = writeln!(s, "  {}: {} x {}", row.name, row.wcet, row.count_pws);
        }
    }
    s
}

/// The CFG for Graphviz: pruned edges dashed, the PWS worst-case path in red, every block
/// labelled with its WCET and its count on that path.
pub fn dot(g: &BsbCfg, a: &Analysis) -> String {
    let removed: HashSet<(usize, usize)> = a.removed.iter().copied().collect();
    let on_path: HashSet<(usize, usize)> = a
        .pws_solution
        .edge_counts
        .iter()
        .filter(|(_, c)| *c > 0)
        .map(|&(e, _)| e)
        .collect();
    let selected: HashSet<usize> = a.selected.iter().copied().collect();
    let mut s = String::from("digraph wcet {\n  node [shape=box, fontname=\"monospace\"];\n");
    for &v in g.order() {
        let b = g.block(v);
        let row = &a.report.blocks[v];
        let kind = match b.kind {
            BlockKind::Block => "",
            BlockKind::Branch => "branch\\n",
            BlockKind::Bsb => "BSB\\n",
        };
        let mut attrs = format!(
            "label=\"{}\\n{kind}wcet {} x {}\"",
            b.name.replace('\\', "\\\\").replace('"', "\\\""),
            b.wcet,
            row.count_pws
        );
        if row.count_pws > 0 {
            attrs.push_str(", color=red, penwidth=2");
        }
        if selected.contains(&v) {
            attrs.push_str(", style=filled, fillcolor=orange");
        } else if b.kind == BlockKind::Bsb {
            attrs.push_str(", style=filled, fillcolor=lightgrey");
        }
        let _ = writeln!(s, "  {} [{attrs}];", quote_id(&b.name));
    }
    let mut edges = g.cfg().edges.clone();
    edges.sort_by_key(|&(u, v)| (g.position(u), g.position(v)));
    for (u, v) in edges {
        let attr = if removed.contains(&(u, v)) {
            " [style=dashed, color=grey]"
        } else if on_path.contains(&(u, v)) {
            " [color=red, penwidth=2]"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "  {} -> {}{attr};",
            quote_id(g.name(u)),
            quote_id(g.name(v))
        );
    }
    s.push_str("}\n");
    s
}
