//! Host side of PWS: CFGs with branch-serialization blocks, split/merge insertion, Select/Prune, IPET and kernel-level WCET.
