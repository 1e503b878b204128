//! The one error type of the host crate. Every message names the input it is about (file and
//! line:column for syntax, the block or loop header for structure) so a user can fix the input
//! without reading this code.

use thiserror::Error;

/// What can go wrong between reading a CFG, kernel or configuration and printing a bound.
#[derive(Debug, Error)]
pub enum HostError {
    /// Malformed text (DOT, TOML, assembly annotations), with the position of the offending token.
    #[error("{file}:{line}:{col}: {msg}")]
    Syntax {
        file: String,
        line: usize,
        col: usize,
        msg: String,
    },
    /// A CFG the analysis cannot handle: missing BSB, irreducible flow, ...
    #[error("{0}")]
    Structure(String),
    /// Loops without a bound: `msg` names their headers and how to bound them; `loops` is how
    /// many, so that a caller can add what its input could have bounded them with
    /// ([`HostError::hint`]).
    #[error("{msg}")]
    Unbounded { msg: String, loops: usize },
    /// A GPU configuration or launch that is invalid (unknown key, zero units, WG too large).
    #[error("{0}")]
    Config(String),
    /// The kernel could not be assembled or read.
    #[error("{0}")]
    Input(String),
    /// The ILP solver failed in a way that leaves no safe bound (infeasible or unbounded system).
    #[error("IPET: {0}")]
    Solver(String),
    /// A bound that does not fit the integers the analysis computes with (2^127 cycles for a
    /// wavefront, 2^64 for a launch).
    #[error("{0}")]
    Overflow(String),
}

impl HostError {
    /// A structure error as found in `file` (which the CFG does not know); others as they are.
    pub fn in_file(self, file: &str) -> HostError {
        match self {
            HostError::Structure(m) => HostError::Structure(format!("{file}: {m}")),
            HostError::Unbounded { msg, loops } => HostError::Unbounded {
                msg: format!("{file}: {msg}"),
                loops,
            },
            e => e,
        }
    }

    /// Unbounded loops with what else would have bounded them, as `hint` says it for one loop
    /// (`false`) or for several (`true`); other errors as they are.
    pub fn hint(self, hint: impl Fn(bool) -> String) -> HostError {
        match self {
            HostError::Unbounded { msg, loops } => HostError::Unbounded {
                msg: format!("{msg}{}", hint(loops > 1)),
                loops,
            },
            e => e,
        }
    }
}

/// Result alias of the host crate.
pub type Result<T> = std::result::Result<T, HostError>;

pub(crate) fn structure<T>(msg: impl Into<String>) -> Result<T> {
    Err(HostError::Structure(msg.into()))
}
