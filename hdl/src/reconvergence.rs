//! Reconvergence stacks for divergent wavefronts: the single-path PDOM stack (SPE) and the
//! dual-path stack (DPE) of Rhu & Erez (HPCA'13; digest §2.1–2.2).
//!
//! Both stacks take one operation per cycle from the issue stage, describing the instruction
//! the wavefront (or, for DPE, one of its two paths) just issued:
//!
//! * `Init`: a new wavefront: one entry at PC `pc_i`, reconverging at `rpc_i` (the kernel's
//!   end), with mask `mask_i`;
//! * `Advance`: every active lane continues at `pc_i`. Reaching the entry's reconvergence PC
//!   retires the path (pops the entry);
//! * `Branch`: a conditional branch: the lanes of `mask_i` go to `pc_i` (taken), the others to
//!   `alt_pc_i` (not taken), and `rpc_i` is the branch's immediate post-dominator (IPDOM). A
//!   branch all lanes take the same way is an `Advance`.
//!
//! An operation the stack cannot apply leaves it unchanged and reports why in `status_o` in
//! the next cycle: `Underflow` (no entry to apply it to), `Overflow` (no room for the pushes),
//! `InvalidPath` (DPE: the named path is not schedulable). The depth is a constructor
//! parameter: S2 measured at most 11 SPE and 7 DPE entries on its benchmarks, and a branch
//! that splits a `W`-lane mask can nest at most `W - 1` deep.
//!
//! `peek_i` reads any entry (0 = bottom) for debug and the test benches; the top of stack is
//! also on its own outputs.

mod dual_path;
mod pdom;

pub use dual_path::DualPathStack;
pub use pdom::PdomStack;

use rust_hdl::prelude::*;

/// Deepest stack the RTL builds: depths and `peek_i` are 6-bit numbers.
pub const MAX_STACK_DEPTH: usize = 63;

/// The operation a reconvergence stack applies in a cycle.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum StackOp {
    Nop,
    Init,
    Advance,
    Branch,
}

/// The outcome of the previous cycle's operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum StackStatus {
    Ok,
    Overflow,
    Underflow,
    InvalidPath,
}

/// A stack depth the RTL cannot build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackDepthError(pub usize);

impl std::fmt::Display for StackDepthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "reconvergence stack depth {} is out of range 1..={MAX_STACK_DEPTH}",
            self.0
        )
    }
}

impl std::error::Error for StackDepthError {}

fn check_depth(depth: usize) -> Result<(), StackDepthError> {
    if (1..=MAX_STACK_DEPTH).contains(&depth) {
        Ok(())
    } else {
        Err(StackDepthError(depth))
    }
}

/// `n` default-initialised registers (one per stack entry).
fn registers<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}
