//! Verilog export of the RTL and the flows that check it: Verilator lint, Icarus, Yosys synthesis and equivalence, co-simulation.
