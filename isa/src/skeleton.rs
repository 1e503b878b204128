//! A launch manifest written from a kernel's code object metadata (`pws manifest`), for the
//! user to fill in: one buffer per global pointer, named after the parameter and typed by what
//! it points to, a zero of the right shape for every value, a `__local` allocation for every
//! `__local` pointer. It parses as it is, so a kernel runs (on zeros) before any data is
//! written.

use std::fmt::Write as _;

use crate::elem::ElemType;
use crate::metadata::{ArgMetadata, KernelMetadata, ValueKind, ValueType};

/// The element type of a buffer a pointer parameter of type `type_name` (`uchar*`,
/// `float4*`) reads: the pointee's scalar, and how many of them one pointee holds; `None` for
/// a struct or another type pws does not know.
pub(crate) fn pointee(type_name: &str) -> Option<(ElemType, u32)> {
    let base = type_name.trim().trim_end_matches('*').trim();
    let base = base
        .strip_prefix("const ")
        .or_else(|| base.strip_prefix("volatile "))
        .unwrap_or(base);
    let ty = ValueType::parse(base)?;
    Some((ty.scalar, ty.bytes() / ty.scalar.bytes() as u32))
}

/// A TOML basic string holding `s`.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The value a by-value parameter gets: a zero of its shape.
fn zero(param: &ArgMetadata) -> String {
    let zero = |s: ElemType| if s.is_float() { "0.0" } else { "0" };
    match param.value_type() {
        Some(t) if t.lanes == 1 => zero(t.scalar).to_string(),
        Some(t) => format!("[{}]", vec![zero(t.scalar); t.lanes as usize].join(", ")),
        None if param.size % 4 == 0 => {
            format!("[{}]", vec!["0"; (param.size / 4) as usize].join(", "))
        }
        None => "0".to_string(),
    }
}

/// The launch a manifest for `meta`'s kernel proposes: `grid` work-items in x, in workgroups
/// of `workgroup` work-items (default 64, or fewer if the kernel allows fewer); a kernel with
/// a required workgroup size gets it, and one workgroup's extent in y and z.
pub fn shape(meta: &KernelMetadata, grid: u32, workgroup: Option<u32>) -> ([u32; 3], [u32; 3]) {
    match meta.reqd_workgroup_size {
        Some(req) => ([grid.max(1).next_multiple_of(req[0]), req[1], req[2]], req),
        None => {
            let max = meta.max_flat_workgroup_size.unwrap_or(1024).max(1);
            let wg = workgroup.unwrap_or(64.min(max));
            ([grid, 1, 1], [wg, 1, 1])
        }
    }
}

/// `[x, y, z]` as a manifest writes an extent over `dims` dimensions: `x` or `[x, y]`.
fn extent(e: [u32; 3], dims: usize) -> String {
    match dims {
        1 => e[0].to_string(),
        _ => format!(
            "[{}]",
            e[..dims]
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The manifest text for `meta`'s kernel in file `kernel` (as the manifest names it), launched
/// on `grid` work-items in workgroups of `workgroup` (x, y, z); each buffer holds one pointee
/// per work-item.
pub fn manifest(
    kernel: &str,
    entry: Option<&str>,
    meta: &KernelMetadata,
    grid: [u32; 3],
    workgroup: [u32; 3],
) -> String {
    let mut out = format!(
        "# {}\n# Written by `pws manifest` from the kernel's metadata: give the buffers their \
         data\n# (`data = [...]` or `file = \"...\"`) and the values their numbers; \
         docs/manifest.md lists the keys.\nkernel = {}\n",
        meta.signature(),
        quoted(kernel)
    );
    if let Some(e) = entry {
        let _ = writeln!(out, "entry = {}", quoted(e));
    }
    let dims = (1..=3)
        .rev()
        .find(|&d| grid[d - 1] > 1 || workgroup[d - 1] > 1)
        .unwrap_or(1);
    let items: u64 = grid.iter().map(|&g| u64::from(g)).product();
    let group: u32 = workgroup.iter().product();
    let _ = writeln!(
        out,
        "grid = {}\nworkgroup = {}\nargs = [",
        extent(grid, dims),
        extent(workgroup, dims)
    );
    let mut buffers = String::new();
    let mut names: Vec<String> = Vec::new();
    for (i, p) in meta.explicit_args().enumerate() {
        let value = match &p.kind {
            ValueKind::GlobalBuffer => {
                let mut name = p.name.clone().unwrap_or_else(|| format!("arg{i}"));
                if names.contains(&name) {
                    name = format!("{name}{i}");
                }
                names.push(name.clone());
                let (ty, per_item, note) = match p.resolved_type_name().and_then(pointee) {
                    Some((ty, n)) => (ty, n, String::new()),
                    None => (
                        ElemType::U32,
                        1,
                        " (a struct: give its 32-bit words)".to_string(),
                    ),
                };
                let _ = write!(
                    buffers,
                    "\n[[buffer]]\nname = {}{}\ntype = \"{ty}\"\nlen = {}\n",
                    quoted(&name),
                    format_args!("  # {}{note}", p.describe()),
                    items * u64::from(per_item)
                );
                quoted(&name)
            }
            ValueKind::DynamicSharedPointer => {
                let bytes = p
                    .resolved_type_name()
                    .and_then(pointee)
                    .map_or(4, |(ty, n)| ty.bytes() as u32 * n);
                format!("{{ local = {} }}", bytes * group)
            }
            _ => zero(p),
        };
        let _ = writeln!(out, "    {value},  # {}", p.describe());
    }
    out.push_str("]\n");
    out.push_str(&buffers);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::ValueKind;

    fn arg(name: &str, ty: &str, size: u32, kind: ValueKind) -> ArgMetadata {
        ArgMetadata {
            name: Some(name.into()),
            type_name: Some(ty.into()),
            base_type_name: None,
            offset: 0,
            size,
            kind,
        }
    }

    #[test]
    fn buffers_follow_their_pointees_and_values_get_zeros() {
        let meta = KernelMetadata {
            name: "k".into(),
            args: vec![
                arg("img", "uchar*", 8, ValueKind::GlobalBuffer),
                arg("v", "float4*", 8, ValueKind::GlobalBuffer),
                arg("p", "struct P*", 8, ValueKind::GlobalBuffer),
                arg("t", "float*", 4, ValueKind::DynamicSharedPointer),
                arg("n", "int", 4, ValueKind::ByValue),
                arg("s", "float2", 8, ValueKind::ByValue),
                arg("q", "Params", 12, ValueKind::ByValue),
                arg("h", "", 8, ValueKind::Hidden),
            ],
            max_flat_workgroup_size: Some(256),
            reqd_workgroup_size: None,
            opencl_version: None,
        };
        let (grid, workgroup) = shape(&meta, 128, None);
        assert_eq!((grid, workgroup), ([128, 1, 1], [64, 1, 1]));
        let text = manifest("dir/k \"x\".cl", Some("k"), &meta, grid, workgroup);
        assert!(text.contains("grid = 128\nworkgroup = 64\n"), "{text}");
        assert!(
            text.contains("kernel = \"dir/k \\\"x\\\".cl\"\nentry = \"k\"\n"),
            "{text}"
        );
        for line in [
            "    \"img\",  # uchar* img",
            "    { local = 256 },  # float* t",
            "    0,  # int n",
            "    [0.0, 0.0],  # float2 s",
            "    [0, 0, 0],  # Params q",
            "name = \"img\"  # uchar* img\ntype = \"u8\"\nlen = 128",
            "name = \"v\"  # float4* v\ntype = \"f32\"\nlen = 512",
            "name = \"p\"  # struct P* p (a struct: give its 32-bit words)\ntype = \"u32\"",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
    }

    #[test]
    fn a_required_workgroup_size_shapes_the_launch() {
        let meta = KernelMetadata {
            name: "r".into(),
            args: vec![arg("o", "int*", 8, ValueKind::GlobalBuffer)],
            max_flat_workgroup_size: Some(256),
            reqd_workgroup_size: Some([16, 4, 1]),
            opencl_version: None,
        };
        let (grid, workgroup) = shape(&meta, 100, Some(8));
        assert_eq!((grid, workgroup), ([112, 4, 1], [16, 4, 1]));
        let text = manifest("r.cl", None, &meta, grid, workgroup);
        assert!(
            text.contains("grid = [112, 4]\nworkgroup = [16, 4]\n") && text.contains("len = 448"),
            "{text}"
        );
        let small = KernelMetadata {
            reqd_workgroup_size: None,
            opencl_version: None,
            max_flat_workgroup_size: Some(32),
            ..meta
        };
        assert_eq!(shape(&small, 100, None), ([100, 1, 1], [32, 1, 1]));
    }
}
