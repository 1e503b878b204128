//! Helpers for the unit tests beside the blocks.

use rust_hdl::prelude::*;

/// Evaluates a combinational block until its signals stop changing (at most four passes,
/// enough for the blocks tested this way).
pub fn settle(b: &mut impl Block) {
    for _ in 0..4 {
        b.update_all();
        if !b.has_changed() {
            return;
        }
    }
}
