//! Cycle-level simulation of the pws RTL: the direct cycle driver every test bench and benchmark
//! uses, with VCD tracing. The memory model, dispatcher and statistics of the compute unit come
//! with it: [`cu::run`] runs a launch on the compute-unit RTL (docs/sim.md).

pub mod cu;
pub mod driver;
pub mod units;

pub use driver::{Clocked, DeltaPasses, Driver, DriverError, TraceBuffer};
