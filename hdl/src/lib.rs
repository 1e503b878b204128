//! rust-hdl RTL of the PWS compute-unit slice, parameterised by one typed configuration
//! ([`config::HwConfig`]). Each unit is synthesizable, simulated cycle-accurately through
//! `pws_sim::Driver` and exported to Verilog by `pws-export`.

pub mod config;
pub mod context;
pub mod cu;
pub mod reconvergence;
pub mod simd;
pub mod split_merge;
pub mod swizzle;
#[cfg(test)]
mod testing;
