//! Behavioural models of the individual RTL units, written independently of `pws-hdl`.

pub mod reconvergence;
pub mod script;
pub mod simd;
pub mod split_merge;
pub mod swizzle;
