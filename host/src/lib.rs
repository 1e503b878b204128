//! Host side of PWS: CFGs with branch-serialization blocks, split/merge insertion, Select/Prune,
//! IPET and kernel-level WCET.
//!
//! The pipeline of [P] Fig 6 and §5: a front end ([`dot::parse_cfg`], [`extract::extract`] for
//! GCN3 assembly with block WCETs from [`timing::TimingTable`]) yields a [`cfg::Cfg`]; [`cfg::BsbCfg::new`] checks it and derives the BSB
//! structure; [`select::select`] (Algorithm 1) and [`prune::prune`] (Algorithm 2) build the CFG
//! of the slowest split wavefront; [`structural`] bounds it in linear time and [`ipet`]
//! re-verifies the bound exactly against the IPET system; [`analysis::analyse`] applies the
//! lemmas.
//! [`compile::compile`] is `pws compile`: split and merge insertion on assembly.
//! docs/wcet.md has the formulas, the errata of the paper and the input syntax.

pub mod analysis;
pub mod bench;
pub mod cfg;
pub mod compile;
pub mod csr;
pub mod dom;
pub mod dot;
pub mod error;
pub mod extract;
pub mod flow;
pub mod gen;
pub mod input;
pub mod ipet;
pub mod kernel;
pub mod launch;
pub mod liveness;
pub mod masks;
pub mod node_split;
pub mod profit;
pub mod prune;
pub mod reducible;
pub mod report;
pub mod scalar;
pub mod select;
pub mod structural;
pub mod timing;

pub use analysis::{analyse, Analysis, Params, WcetReport};
pub use cfg::{Block, BlockKind, BsbCfg, Cfg};
pub use error::{HostError, Result};
pub use kernel::{GpuConfig, Launch};
