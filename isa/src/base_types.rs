//! Kernel parameter types with their typedefs resolved. clang's code object metadata names a
//! parameter's type as the source writes it (`.type_name: DATA_TYPE` for PolyBench's
//! `typedef float DATA_TYPE`), which a runtime reports but cannot lay out: pws would take it
//! for a struct and store `2` as the integer bits of a `float` parameter. The frontend knows
//! the resolved type (`!kernel_arg_base_type` in the LLVM IR of every OpenCL kernel), so pws
//! reads it there and writes it into the metadata of the kernels it compiles, beside the
//! written name, as `.pws_base_type_name` ([`crate::metadata::ArgMetadata::base_type_name`]).

use std::collections::HashMap;

/// The metadata key pws adds (LLVM's assembler accepts keys it does not know).
pub const KEY: &str = ".pws_base_type_name";

/// Each kernel's parameter base types, in parameter order, from the LLVM IR of an OpenCL C
/// source (`clang -S -emit-llvm`). Vectors are named as OpenCL C names them (`float4`, not
/// `float __attribute__((ext_vector_type(4)))`).
pub fn from_ir(ir: &str) -> HashMap<String, Vec<String>> {
    let mut lists: HashMap<&str, Vec<String>> = HashMap::new();
    let mut kernels: Vec<(String, &str)> = Vec::new();
    for line in ir.lines() {
        if let Some(rest) = line.strip_prefix("define ") {
            let node = rest
                .split_once("!kernel_arg_base_type ")
                .and_then(|(_, r)| r.split_whitespace().next());
            if let (Some(name), Some(node)) = (function_name(rest), node) {
                kernels.push((name, node));
            }
        } else if let Some((node, body)) = line.split_once(" = !{") {
            if node.starts_with('!') {
                if let Some(items) = strings(body.trim_end().trim_end_matches('}')) {
                    lists.insert(node, items);
                }
            }
        }
    }
    kernels
        .into_iter()
        .filter_map(|(name, node)| {
            let types = lists
                .get(node)?
                .iter()
                .map(|t| opencl_spelling(t))
                .collect();
            Some((name, types))
        })
        .collect()
}

/// The name of the function a `define` line defines: `@name(` or `@"name"(`.
fn function_name(define: &str) -> Option<String> {
    let at = define.find('@')?;
    let rest = &define[at + 1..];
    match rest.strip_prefix('"') {
        Some(quoted) => quoted.split_once('"').map(|(n, _)| unescape(n)),
        None => rest.split_once('(').map(|(n, _)| n.to_string()),
    }
}

/// The items of a metadata tuple if every one is a string (`!"float*", !"int"`).
fn strings(body: &str) -> Option<Vec<String>> {
    if body.trim().is_empty() {
        return Some(Vec::new());
    }
    body.split(", ")
        .map(|item| {
            item.trim()
                .strip_prefix("!\"")
                .and_then(|s| s.strip_suffix('"'))
                .map(unescape)
        })
        .collect()
}

/// LLVM IR string escapes: `\XX` is the byte with hex code XX.
fn unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'\\', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `float __attribute__((ext_vector_type(4)))*` as OpenCL C writes it: `float4*`.
fn opencl_spelling(base: &str) -> String {
    const VECTOR: &str = " __attribute__((ext_vector_type(";
    let Some((scalar, rest)) = base.split_once(VECTOR) else {
        return base.to_string();
    };
    match rest.split_once(")))") {
        Some((lanes, pointer)) if lanes.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{scalar}{lanes}{pointer}")
        }
        _ => base.to_string(),
    }
}

/// `asm` with a `.pws_base_type_name` after each parameter's `.type_name` whose resolved type
/// in `base` differs from it. The metadata is clang's YAML: a kernel's map starts with `- ` at
/// the indentation of `amdhsa.kernels`'s items and names itself in `.name`; its explicit
/// parameters, in order, are the arguments with a `.type_name`. A kernel whose count of
/// those differs from its base types (an unexpected layout) is left as it was.
pub fn annotate(asm: &str, base: &HashMap<String, Vec<String>>) -> String {
    // The block the metadata reader reads; a record without one is left as it is.
    let Ok(Some((directive, body))) = crate::metadata::metadata_block(asm) else {
        return asm.to_string();
    };
    let lines: Vec<&str> = asm.lines().collect();
    let mut insert: HashMap<usize, String> = HashMap::new();
    for item in kernel_items(&lines, directive, directive + body.lines().count()) {
        let name = item.clone().find_map(|j| {
            let value = lines[j]
                .trim_start()
                .trim_start_matches("- ")
                .strip_prefix(".name:")?;
            (indent_of(lines[j]) <= indent_of(lines[item.start]) + 2).then(|| yaml_scalar(value))
        });
        let Some(types) = name.as_ref().and_then(|n| base.get(n)) else {
            continue;
        };
        let written: Vec<usize> = item
            .clone()
            .filter(|&j| type_name_value(lines[j]).is_some())
            .collect();
        if written.len() != types.len() {
            continue;
        }
        for (&j, ty) in written.iter().zip(types) {
            let as_written = type_name_value(lines[j]).unwrap_or_default();
            if yaml_scalar(&as_written) != *ty {
                let pad = " ".repeat(lines[j].find(".type_name:").unwrap_or(0));
                let quoted = ty.replace('\'', "''");
                insert.insert(j, format!("{pad}{KEY}: '{quoted}'"));
            }
        }
    }
    let mut out = String::with_capacity(asm.len() + insert.len() * 40);
    for (j, line) in lines.iter().enumerate() {
        out.push_str(line);
        out.push('\n');
        if let Some(extra) = insert.get(&j) {
            out.push_str(extra);
            out.push('\n');
        }
    }
    out
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The line ranges of the kernel maps of the YAML between `start` and `end`.
fn kernel_items(lines: &[&str], start: usize, end: usize) -> Vec<std::ops::Range<usize>> {
    let Some(list) = (start..end).find(|&j| lines[j].trim_start().starts_with("amdhsa.kernels:"))
    else {
        return Vec::new();
    };
    let Some(first) = (list + 1..end).find(|&j| lines[j].trim_start().starts_with("- ")) else {
        return Vec::new();
    };
    let indent = indent_of(lines[first]);
    let mut starts = vec![first];
    let mut stop = end;
    for (j, l) in lines.iter().enumerate().take(end).skip(first + 1) {
        if l.trim().is_empty() {
            continue;
        }
        if indent_of(l) < indent || (indent_of(l) == indent && !l.trim_start().starts_with("- ")) {
            stop = j;
            break;
        }
        if indent_of(l) == indent {
            starts.push(j);
        }
    }
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| s..starts.get(k + 1).copied().unwrap_or(stop))
        .collect()
}

/// The value of a `.type_name:` line (`- .type_name: x` too).
fn type_name_value(line: &str) -> Option<String> {
    let t = line.trim_start().trim_start_matches("- ");
    t.strip_prefix(".type_name:").map(|v| v.trim().to_string())
}

/// A plain or single-quoted YAML scalar's text.
fn yaml_scalar(value: &str) -> String {
    let v = value.trim();
    match v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        Some(inner) => inner.replace("''", "'"),
        None => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IR: &str = r#"
define protected amdgpu_kernel void @scale(float addrspace(1)* noundef %0, float noundef %1, <4 x float> noundef %2) #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !7 !kernel_arg_type_qual !8 {
define protected amdgpu_kernel void @"odd name"(i32 %0) #0 !kernel_arg_type !9 !kernel_arg_base_type !10 {
!6 = !{!"DATA_TYPE*", !"DATA_TYPE", !"V"}
!7 = !{!"float*", !"float", !"float __attribute__((ext_vector_type(4)))"}
!9 = !{!"U"}
!10 = !{!"uint"}
!14 = !{!"float", !11, i64 0}
"#;

    #[test]
    fn typedefs_resolve_and_vectors_get_their_opencl_names() {
        let base = from_ir(IR);
        assert_eq!(base["scale"], ["float*", "float", "float4"]);
        assert_eq!(base["odd name"], ["uint"]);
        assert_eq!(
            opencl_spelling("int __attribute__((ext_vector_type(2)))*"),
            "int2*"
        );
    }

    const ASM: &str = "\t.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .type_name:      'DATA_TYPE*'
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .type_name:      DATA_TYPE
        .value_kind:     by_value
      - .offset:         16
        .size:           16
        .type_name:      float4
        .value_kind:     by_value
      - .offset:         32
        .size:           8
        .value_kind:     hidden_global_offset_x
    .name:           scale
    .symbol:         scale.kd
amdhsa.version:
  - 1
  - 1
...
\t.end_amdgpu_metadata
";

    #[test]
    fn resolved_types_follow_the_written_ones_that_differ() {
        let out = annotate(ASM, &from_ir(IR));
        let added: Vec<&str> = out.lines().filter(|l| l.contains(KEY)).collect();
        assert_eq!(
            added,
            [
                "        .pws_base_type_name: 'float*'",
                "        .pws_base_type_name: 'float'"
            ]
        );
        let k = crate::metadata::kernel_metadata(&out, "scale")
            .unwrap()
            .unwrap();
        assert_eq!(k.args[1].type_name.as_deref(), Some("DATA_TYPE"));
        assert_eq!(k.args[1].base_type_name.as_deref(), Some("float"));
        assert_eq!(k.args[2].base_type_name, None);
    }

    #[test]
    fn a_kernel_whose_parameters_do_not_match_is_left_alone() {
        let mut base = from_ir(IR);
        base.get_mut("scale").unwrap().pop();
        assert_eq!(annotate(ASM, &base), ASM);
        assert_eq!(annotate(ASM, &HashMap::new()), ASM);
    }
}
