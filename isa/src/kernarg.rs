//! Kernel arguments: the values a manifest's `args` gives, turned into the bytes and offsets of
//! the kernarg segment. With the kernel's code object metadata ([`crate::metadata`]) each value
//! is checked against its parameter (a buffer for a global pointer, `{ local = n }` for a
//! `__local` one, a number of the right range for a `char` or a `long`, four numbers for a
//! `float4`) and placed at the offset clang gave it, as `clSetKernelArg` and an HSA runtime
//! do. A hand-written kernel without metadata gets the values packed in order: 32-bit words,
//! buffer addresses 8-byte aligned.

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

use crate::elem::ElemType;
use crate::metadata::{opencl_name, ArgMetadata, KernelMetadata, ValueKind};

/// One kernel argument, ready for the kernarg segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelArg {
    /// The 64-bit base address of the named buffer (8 bytes).
    Buffer(String),
    /// A value's bytes, little-endian: 4 for a 32-bit word, as many as the parameter's type
    /// takes with metadata (`char` 1, `long` 8, `float3` 16).
    Value(Vec<u8>),
    /// A `__local` pointer: `bytes` of LDS per workgroup, after the kernel's own `__local`
    /// variables; the kernarg holds its 32-bit LDS offset (4 bytes).
    Local(u32),
}

impl KernelArg {
    /// A 32-bit value.
    pub fn word(w: u32) -> KernelArg {
        KernelArg::Value(w.to_le_bytes().to_vec())
    }

    /// Bytes the argument takes in the kernarg segment.
    pub fn bytes(&self) -> u32 {
        match self {
            KernelArg::Buffer(_) => 8,
            KernelArg::Value(b) => b.len() as u32,
            KernelArg::Local(_) => 4,
        }
    }
}

/// Offsets of arguments packed in order, as pws lays out a kernel without metadata: each
/// value on a 4-byte boundary, each buffer address on an 8-byte one.
pub fn packed_offsets(args: &[KernelArg]) -> Vec<u32> {
    let mut next = 0u32;
    args.iter()
        .map(|a| {
            let at = match a {
                KernelArg::Buffer(_) => next.next_multiple_of(8),
                _ => next.next_multiple_of(4),
            };
            next = at + a.bytes().next_multiple_of(4);
            at
        })
        .collect()
}

/// A number as the manifest writes it: TOML integers and floats (`inf`, `nan` included).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(v) => write!(f, "{v}"),
            Number::Float(v) => write!(f, "{v:?}"),
        }
    }
}

/// One entry of a manifest's `args` as written.
#[derive(Clone, Debug, PartialEq)]
pub enum RawArg {
    /// A buffer's name.
    Buffer(String),
    Number(Number),
    /// `[x, y, z, w]`: a vector's elements, or a struct's 32-bit words.
    List(Vec<Number>),
    /// `{ local = bytes }`: a `__local` pointer argument.
    Local(i64),
}

impl<'de> Deserialize<'de> for RawArg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ArgVisitor;
        impl<'v> Visitor<'v> for ArgVisitor {
            type Value = RawArg;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a buffer name (string), a number, a list of numbers (a vector) or \
                     { local = bytes }",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawArg, E> {
                Ok(RawArg::Buffer(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawArg, E> {
                Ok(RawArg::Number(Number::Int(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawArg, E> {
                i64::try_from(v)
                    .map(|v| RawArg::Number(Number::Int(v)))
                    .map_err(|_| E::custom(format!("{v} does not fit 64 bits")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawArg, E> {
                Ok(RawArg::Number(Number::Float(v)))
            }
            fn visit_seq<A: SeqAccess<'v>>(self, mut seq: A) -> Result<RawArg, A::Error> {
                let mut list = Vec::new();
                while let Some(n) = seq.next_element::<Number>()? {
                    list.push(n);
                }
                Ok(RawArg::List(list))
            }
            fn visit_map<A: de::MapAccess<'v>>(self, mut map: A) -> Result<RawArg, A::Error> {
                let mut bytes = None;
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "local" if bytes.is_none() => bytes = Some(map.next_value::<i64>()?),
                        "local" => return Err(de::Error::duplicate_field("local")),
                        other => return Err(de::Error::unknown_field(other, &["local"])),
                    }
                }
                bytes
                    .map(RawArg::Local)
                    .ok_or_else(|| de::Error::missing_field("local"))
            }
        }
        d.deserialize_any(ArgVisitor)
    }
}

/// Largest `__local` pointer argument: GCN3's 64 KiB of LDS per compute unit (each run
/// checks the whole group segment against the LDS it configures).
pub const MAX_LOCAL_ARG_BYTES: u32 = 64 * 1024;

/// A `__local` argument's size, checked.
fn local(bytes: i64) -> Result<KernelArg, String> {
    u32::try_from(bytes)
        .ok()
        .filter(|b| (1..=MAX_LOCAL_ARG_BYTES).contains(b))
        .map(KernelArg::Local)
        .ok_or_else(|| {
            format!(
                "a __local argument of {bytes} bytes: give 1 to {MAX_LOCAL_ARG_BYTES} (the LDS's size)"
            )
        })
}

/// An argument of a kernel without metadata: a number is one 32-bit word (an integer as i32
/// or u32, a float as its binary32 bits).
pub fn packed(raw: RawArg) -> Result<KernelArg, String> {
    match raw {
        RawArg::Buffer(name) => Ok(KernelArg::Buffer(name)),
        RawArg::Number(Number::Int(v)) => i32::try_from(v)
            .map(|v| v as u32)
            .or_else(|_| u32::try_from(v))
            .map(KernelArg::word)
            .map_err(|_| format!("{v} does not fit 32 bits")),
        RawArg::Number(Number::Float(v)) => {
            scalar_bytes(ElemType::F32, Number::Float(v)).map(KernelArg::Value)
        }
        RawArg::List(_) => Err("a list is a vector or struct argument, which needs the \
                                kernel's argument layout from clang's `.amdgpu_metadata`; \
                                this kernel has none: give its 32-bit words one by one"
            .into()),
        RawArg::Local(bytes) => local(bytes),
    }
}

/// The argument `raw` for parameter `param` of a kernel with metadata.
pub fn for_param(raw: RawArg, param: &ArgMetadata) -> Result<KernelArg, String> {
    let what = param.describe();
    match (&param.kind, raw) {
        (ValueKind::GlobalBuffer, RawArg::Buffer(name)) => Ok(KernelArg::Buffer(name)),
        (ValueKind::GlobalBuffer, _) => Err(format!(
            "`{what}` is a global pointer: give a buffer's name"
        )),
        (ValueKind::DynamicSharedPointer, RawArg::Local(bytes)) => local(bytes),
        (ValueKind::DynamicSharedPointer, _) => Err(format!(
            "`{what}` is a __local pointer: give {{ local = bytes }}"
        )),
        (ValueKind::Unsupported(kind), _) => Err(format!(
            "`{what}` is a kernel argument of kind `{kind}`: pws has no images, samplers, \
             pipes or queues"
        )),
        (ValueKind::Hidden, _) => unreachable!("hidden arguments are the runtime's"),
        (ValueKind::ByValue, RawArg::Buffer(name)) => Err(format!(
            "`{what}` is passed by value: give a number, not the buffer `{name}`"
        )),
        (ValueKind::ByValue, RawArg::Local(_)) => Err(format!(
            "`{what}` is passed by value: give a number, not a __local allocation"
        )),
        (ValueKind::ByValue, raw) => by_value(raw, param).map(KernelArg::Value),
    }
}

fn by_value(raw: RawArg, param: &ArgMetadata) -> Result<Vec<u8>, String> {
    let what = param.describe();
    let Some(ty) = param.value_type() else {
        // A struct, or a type pws does not know: its bytes as 32-bit words.
        return raw_words(raw, param);
    };
    let mut out = Vec::with_capacity(ty.bytes() as usize);
    match raw {
        RawArg::Number(n) if ty.lanes == 1 => out = scalar_bytes(ty.scalar, n)?,
        RawArg::Number(_) => {
            return Err(format!(
                "`{what}` is a vector: give its {} elements as a list",
                ty.lanes
            ))
        }
        // A typedef'd scalar also takes the one-word list pws asked for before it resolved
        // typedefs (it took `DATA_TYPE` for a struct): `[2.0]` is still 2.0f.
        RawArg::List(items)
            if ty.lanes == 1 && items.len() == 1 && param.base_type_name.is_some() =>
        {
            out = scalar_bytes(ty.scalar, items[0])?
        }
        RawArg::List(items) if ty.lanes > 1 && items.len() == ty.lanes as usize => {
            for (i, n) in items.into_iter().enumerate() {
                out.extend(scalar_bytes(ty.scalar, n).map_err(|m| format!("element {i}: {m}"))?);
            }
        }
        RawArg::List(items) => {
            return Err(format!(
                "`{what}` takes {}, the list gives {}",
                match ty.lanes {
                    1 => "one number, not a list".to_string(),
                    n => format!("{n} elements"),
                },
                items.len()
            ))
        }
        RawArg::Buffer(_) | RawArg::Local(_) => unreachable!("matched by the caller"),
    }
    out.resize(ty.bytes() as usize, 0);
    Ok(out)
}

/// A parameter whose type is not an OpenCL C scalar or vector (a struct): one integer of up
/// to its size, or a list of 32-bit words filling it, each an integer (i32 or u32) or a float
/// (its binary32 bits), as the struct's fields lie.
fn raw_words(raw: RawArg, param: &ArgMetadata) -> Result<Vec<u8>, String> {
    let what = param.describe();
    let size = param.size as usize;
    match raw {
        RawArg::Number(Number::Int(v)) if size <= 8 => int_bytes(v, size)
            .ok_or_else(|| format!("{v} does not fit the {size} bytes of `{what}`")),
        RawArg::List(words) if size % 4 == 0 && words.len() == size / 4 => words
            .into_iter()
            .enumerate()
            .map(|(i, n)| {
                let word = match n {
                    Number::Int(_) => ElemType::U32,
                    Number::Float(_) => ElemType::F32,
                };
                scalar_bytes(word, n).map_err(|m| format!("word {i}: {m}"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|w| w.concat()),
        _ if size % 4 == 0 => Err(format!(
            "`{what}` ({size} bytes) is not an OpenCL C scalar or vector: give it as a list of \
             {} 32-bit words (integers, or floats for float fields), in the order of its bytes",
            size / 4
        )),
        _ => Err(format!(
            "`{what}` ({size} bytes) is not an OpenCL C scalar or vector, and not a whole number \
             of 32-bit words: pass it in a buffer"
        )),
    }
}

/// The little-endian bytes of `n` as a `scalar`: an integer in the type's signed or unsigned
/// range (`-1` for a `uint` is `0xffffffff`, as the 32-bit words of a kernel without metadata
/// are); a float as [`ElemType::element`] rounds it (nearest even, no overflow, an integer
/// exact in the type).
pub fn scalar_bytes(scalar: ElemType, n: Number) -> Result<Vec<u8>, String> {
    let ty = opencl_name(scalar);
    let bytes = scalar.bytes();
    match n {
        Number::Int(v) if !scalar.is_float() => {
            int_bytes(v, bytes).ok_or_else(|| format!("{v} is out of range for {ty}"))
        }
        Number::Float(v) if !scalar.is_float() => {
            Err(format!("{v:?} is a float, for an integer parameter ({ty})"))
        }
        _ => scalar
            .element(n)
            .map(|bits| bits.to_le_bytes()[..bytes].to_vec())
            .ok_or_else(|| match n {
                Number::Int(v) => format!("{v} is not exactly a {ty}"),
                Number::Float(v) => format!("{v:?} overflows {ty}"),
            }),
    }
}

/// The low `bytes` of `v` in two's complement, if `v` is in the signed or the unsigned range of
/// that many bytes.
fn int_bytes(v: i64, bytes: usize) -> Option<Vec<u8>> {
    let bits = 8 * bytes as u32;
    let fits = bits == 64 || (v >= -(1i64 << (bits - 1)) && v < (1i64 << bits));
    fits.then(|| v.to_le_bytes()[..bytes].to_vec())
}

/// A launch's arguments that do not fit the kernel's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError {
    /// The failing entry of `args`; `None` when their number is wrong.
    pub index: Option<usize>,
    pub message: String,
}

/// The launch's arguments for a kernel with metadata `meta`, one per explicit parameter in
/// order, and their offsets in the kernarg segment.
pub fn lay_out(
    raw: Vec<RawArg>,
    meta: &KernelMetadata,
) -> Result<(Vec<KernelArg>, Vec<u32>), ArgError> {
    let params: Vec<&ArgMetadata> = meta.explicit_args().collect();
    if raw.len() != params.len() {
        return Err(ArgError {
            index: None,
            message: format!(
                "the kernel takes {} argument{}, `{}`; `args` gives {}",
                params.len(),
                if params.len() == 1 { "" } else { "s" },
                meta.signature(),
                raw.len()
            ),
        });
    }
    let mut args = Vec::with_capacity(raw.len());
    for (i, (raw, param)) in raw.into_iter().zip(&params).enumerate() {
        args.push(for_param(raw, param).map_err(|message| ArgError {
            index: Some(i),
            message,
        })?);
    }
    Ok((args, params.iter().map(|p| p.offset).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::ValueType;

    fn param(type_name: &str, size: u32) -> ArgMetadata {
        ArgMetadata {
            name: Some("p".into()),
            type_name: Some(type_name.into()),
            base_type_name: None,
            offset: 0,
            size,
            kind: ValueKind::ByValue,
        }
    }

    fn value(raw: RawArg, ty: &str, size: u32) -> Result<Vec<u8>, String> {
        match for_param(raw, &param(ty, size))? {
            KernelArg::Value(b) => Ok(b),
            other => panic!("{other:?}"),
        }
    }

    const fn int(v: i64) -> RawArg {
        RawArg::Number(Number::Int(v))
    }

    const fn float(v: f64) -> RawArg {
        RawArg::Number(Number::Float(v))
    }

    #[test]
    fn scalars_take_their_size_and_range() {
        assert_eq!(value(int(-1), "char", 1), Ok(vec![0xFF]));
        assert_eq!(value(int(255), "uchar", 1), Ok(vec![0xFF]));
        assert_eq!(
            value(int(256), "char", 1),
            Err("256 is out of range for char".into())
        );
        assert_eq!(value(int(-2), "short", 2), Ok(vec![0xFE, 0xFF]));
        assert_eq!(
            value(int(0x1234_5678_9ABC), "long", 8),
            Ok(vec![0xBC, 0x9A, 0x78, 0x56, 0x34, 0x12, 0, 0])
        );
        assert_eq!(
            value(int(3_000_000_000), "uint", 4),
            Ok(3_000_000_000u32.to_le_bytes().to_vec())
        );
        assert_eq!(
            value(float(0.5), "float", 4),
            Ok(0.5f32.to_le_bytes().to_vec())
        );
        assert_eq!(value(int(2), "float", 4), Ok(2.0f32.to_le_bytes().to_vec()));
        assert_eq!(
            value(float(0.1), "double", 8),
            Ok(0.1f64.to_le_bytes().to_vec())
        );
        assert_eq!(value(float(1.5), "half", 2), Ok(vec![0x00, 0x3E]));
        assert!(value(float(1e5), "half", 2)
            .unwrap_err()
            .contains("overflows"));
        assert!(value(int(16_777_217), "float", 4)
            .unwrap_err()
            .contains("not exactly"));
        assert!(value(float(1.5), "int", 4)
            .unwrap_err()
            .contains("is a float"));
    }

    #[test]
    fn vectors_take_lists_and_three_takes_the_room_of_four() {
        assert_eq!(
            value(
                RawArg::List(vec![Number::Int(1), Number::Int(-1)]),
                "short2",
                4
            ),
            Ok(vec![1, 0, 0xFF, 0xFF])
        );
        let f3 = value(
            RawArg::List(vec![Number::Float(1.0), Number::Int(2), Number::Float(3.0)]),
            "float3",
            16,
        )
        .unwrap();
        assert_eq!(f3.len(), 16);
        assert_eq!(&f3[4..8], &2.0f32.to_le_bytes());
        assert_eq!(&f3[12..], &[0; 4]);
        assert!(value(float(1.0), "float4", 16)
            .unwrap_err()
            .contains("give its 4 elements"));
        assert!(value(RawArg::List(vec![Number::Int(1)]), "int2", 8)
            .unwrap_err()
            .contains("takes 2 elements, the list gives 1"));
        assert!(value(RawArg::List(vec![Number::Int(1)]), "int", 4)
            .unwrap_err()
            .contains("one number, not a list"));
    }

    #[test]
    fn structs_take_their_words() {
        assert_eq!(
            value(
                RawArg::List(vec![Number::Int(1), Number::Int(-1)]),
                "struct P",
                8
            ),
            Ok(vec![1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF])
        );
        assert_eq!(value(int(-1), "myint", 4), Ok(vec![0xFF; 4]));
        assert!(value(int(1), "struct Q", 12)
            .unwrap_err()
            .contains("list of 3 32-bit words"));
        assert_eq!(
            value(
                RawArg::List(vec![Number::Int(-1), Number::Float(2.5)]),
                "Params",
                8
            ),
            Ok([(-1i32).to_le_bytes(), 2.5f32.to_le_bytes()].concat())
        );
        assert_eq!(
            value(int(-2), "struct R", 6),
            Ok(vec![0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        );
        assert!(value(RawArg::List(vec![Number::Int(1)]), "struct R", 6)
            .unwrap_err()
            .contains("pass it in a buffer"));
    }

    #[test]
    fn pointers_take_buffers_and_local_sizes() {
        let global = ArgMetadata {
            kind: ValueKind::GlobalBuffer,
            ..param("float*", 8)
        };
        assert_eq!(
            for_param(RawArg::Buffer("b".into()), &global),
            Ok(KernelArg::Buffer("b".into()))
        );
        assert!(for_param(int(0), &global)
            .unwrap_err()
            .contains("give a buffer's name"));
        let shared = ArgMetadata {
            kind: ValueKind::DynamicSharedPointer,
            ..param("float*", 4)
        };
        assert_eq!(
            for_param(RawArg::Local(64), &shared),
            Ok(KernelArg::Local(64))
        );
        assert!(for_param(int(64), &shared)
            .unwrap_err()
            .contains("{ local = bytes }"));
        assert!(for_param(RawArg::Buffer("b".into()), &param("int", 4))
            .unwrap_err()
            .contains("not the buffer `b`"));
    }

    #[test]
    fn without_metadata_values_are_words_and_buffers_8_byte_aligned() {
        let args = [
            packed(int(3)).unwrap(),
            packed(RawArg::Buffer("b".into())).unwrap(),
            packed(float(0.5)).unwrap(),
            packed(RawArg::Local(4)).unwrap(),
        ];
        assert_eq!(packed_offsets(&args), vec![0, 8, 16, 20]);
        assert_eq!(args[2], KernelArg::word(0x3F00_0000));
        assert!(packed(int(1 << 32))
            .unwrap_err()
            .contains("does not fit 32 bits"));
        assert!(packed(RawArg::List(vec![]))
            .unwrap_err()
            .contains(".amdgpu_metadata"));
    }

    fn number() -> impl proptest::strategy::Strategy<Value = Number> {
        use proptest::prelude::*;
        prop_oneof![
            any::<i64>().prop_map(Number::Int),
            (-70_000i64..70_000).prop_map(Number::Int),
            any::<f64>().prop_map(Number::Float),
            (-1e6f64..1e6).prop_map(Number::Float),
        ]
    }

    fn raw() -> impl proptest::strategy::Strategy<Value = RawArg> {
        use proptest::prelude::*;
        prop_oneof![
            "[a-c]".prop_map(RawArg::Buffer),
            number().prop_map(RawArg::Number),
            proptest::collection::vec(number(), 0..20).prop_map(RawArg::List),
            any::<i64>().prop_map(RawArg::Local),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            crate::testing::proptest_cases(1000)
        ))]
        /// Whatever the manifest gives for whatever parameter, the result is an error or a value
        /// of exactly the parameter's size.
        #[test]
        fn any_value_for_any_parameter_fits_or_is_refused(
            raw in raw(),
            ty in proptest::sample::select(vec![
                "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half",
                "float", "double", "char3", "ushort16", "float3", "double2", "half8", "Params",
            ]),
            size in 1u32..64,
            kind in 0usize..4,
        ) {
            let size = ValueType::parse(ty).map_or(size, |t| t.bytes());
            let kind = [
                ValueKind::ByValue,
                ValueKind::GlobalBuffer,
                ValueKind::DynamicSharedPointer,
                ValueKind::Unsupported("pipe".into()),
            ][kind].clone();
            let p = ArgMetadata { kind: kind.clone(), ..param(ty, size) };
            match for_param(raw, &p) {
                Ok(KernelArg::Value(b)) => {
                    proptest::prop_assert_eq!(kind, ValueKind::ByValue);
                    proptest::prop_assert_eq!(b.len() as u32, size);
                }
                Ok(KernelArg::Buffer(_)) => proptest::prop_assert_eq!(kind, ValueKind::GlobalBuffer),
                Ok(KernelArg::Local(n)) => {
                    proptest::prop_assert_eq!(kind, ValueKind::DynamicSharedPointer);
                    proptest::prop_assert!((1..=MAX_LOCAL_ARG_BYTES).contains(&n));
                }
                Err(m) => proptest::prop_assert!(!m.is_empty()),
            }
        }
    }
}
