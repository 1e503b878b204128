//! Golden models (ISA level and per unit), random stimulus generators and equivalence checks.
