//! Helpers for the unit tests beside the blocks.

use rust_hdl::prelude::*;

/// Evaluates a combinational block until its signals stop changing (at most 100 passes).
pub fn settle(b: &mut impl Block) {
    for _ in 0..100 {
        b.update_all();
        if !b.has_changed() {
            return;
        }
    }
}
