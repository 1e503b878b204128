use crate::atom::Atom;
use crate::block::Block;

pub trait Probe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {}
    fn visit_start_namespace(&mut self, _name: &str, _node: &dyn Block) {}
    fn visit_atom(&mut self, _name: &str, _signal: &dyn Atom) {}
    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {}
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {}
    /// Whether the probe reads the names it is given: a `Vec` of blocks formats one per
    /// element and visit, which a VCD change probe does not need (pws patch, PATCH.md).
    fn wants_names(&self) -> bool {
        true
    }
}
