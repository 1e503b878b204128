//! ISA-level golden model (being written in this session).
