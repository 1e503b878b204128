//! Golden models (ISA level and per RTL unit), random stimulus generators and the equivalence
//! checks between them and the RTL. Nothing here shares execution code with `pws-hdl`: the
//! golden models are written from the seeds and the GCN3 manual, independently of the RTL.

pub mod bound;
pub mod gen;
pub mod gen_cl;
pub mod golden;
pub mod sizing;
pub mod synthetic;
pub mod units;
