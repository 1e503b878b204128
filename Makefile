# pws: the two user-facing commands are `make demo` and `make test`; the rest are for developers.
# Every target installs what a fresh Debian machine lacks before it runs.

CARGO      ?= cargo
PWS        := $(CARGO) run --quiet --release --bin pws --
OUT        ?= out
APT_PKGS   := iverilog verilator yosys clang-14 nextpnr-ice40 fpga-icestorm
TOOLS      := iverilog verilator yosys clang-14 nextpnr-ice40 llvm-mc

.PHONY: all deps demo test soak export synth bench wave eval eval-full clean

all: test

# Installs the EDA tools and clang-14 when any is missing (CI and new machines run as root).
deps:
	@missing=""; for t in $(TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing (missing:$$missing)"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(APT_PKGS) >/dev/null; \
	fi
	@command -v llvm-mc >/dev/null 2>&1 || { echo "llvm-mc (llvm-14) is required"; exit 1; }

# The main job on the built-in example: the paper's Figure 2 kernel on the compute-unit RTL in
# every mode, S and compaction, each run checked against the golden model and set beside its
# WCET bound; the same for a kernel whose divergent paths outlast a split (where PWS pays off
# under every compaction); then one PWS run written as a waveform.
demo: deps
	$(PWS) compare kernels/figure2.toml --config gcn3
	$(PWS) compare kernels/divergent64.toml --S 2 --config gcn3
	@mkdir -p $(OUT)
	$(PWS) run kernels/figure2.toml --mode pws --S 2 --config gcn3 --vcd $(OUT)/figure2.vcd

# Every test, with the proptest budgets of CI (see isa/src/testing.rs). cargo-nextest, where the
# machine has it, runs the test binaries side by side (cargo test runs one binary at a time, and
# a few long ones would leave a core idle); the doc tests run after. Every failure is listed.
TEST_RUN = if $(CARGO) nextest --version >/dev/null 2>&1; then \
	  $(CARGO) nextest run --workspace --release --no-fail-fast && \
	  $(CARGO) test --workspace --release --doc; \
	else $(CARGO) test --workspace --release --no-fail-fast; fi

test: deps
	$(TEST_RUN)

# The same properties with 10x (or PWS_PROPTEST_SCALE) as many cases: the fuzz harness
# (tests/fuzz_inputs.rs) then feeds 10^5 inputs to each parser.
soak: deps
	export PWS_PROPTEST_SCALE=$${PWS_PROPTEST_SCALE:-10}; $(TEST_RUN)

export: deps
	$(PWS) export --out $(OUT)/verilog --cosim 500

synth: deps
	$(PWS) export --out $(OUT)/verilog --report

bench: deps
	$(PWS) bench

# The papers' evaluation on the RTL (docs/evaluation.md): sweeps of kernels x modes x S x
# compaction, each point checked against the golden model and its WCET bound, written to
# $(OUT)/eval/{small,synthetic,figure10,suite,reprovision} as results.csv/json, tables.md, table3.md and SVG
# figures. Finished points are cached there: an interrupted run resumes (EVAL_FLAGS=--fresh
# starts over).
eval: deps
	$(PWS) eval kernels/eval/small.toml --out $(OUT)/eval/small $(EVAL_FLAGS)
	$(PWS) eval kernels/eval/synthetic.toml --out $(OUT)/eval/synthetic $(EVAL_FLAGS)
	$(PWS) eval kernels/eval/figure10.toml --out $(OUT)/eval/figure10 $(EVAL_FLAGS)
	$(PWS) eval kernels/eval/suite.toml --out $(OUT)/eval/suite $(EVAL_FLAGS)
	$(PWS) eval kernels/eval/reprovision.toml --out $(OUT)/eval/reprovision $(EVAL_FLAGS)

# Every shipped launch (kernels/*, kernels/cl, kernels/rodinia) on `cu4`, S = 1, 3, 7, every
# compaction, the synthetic benchmark over more of its knobs, and the Rodinia-style suite at its
# small and medium sizes.
eval-full: deps
	$(PWS) eval kernels/eval/synthetic.toml --out $(OUT)/eval-full/synthetic $(EVAL_FLAGS)
	$(PWS) eval kernels/eval/figure10-full.toml --out $(OUT)/eval-full/figure10 $(EVAL_FLAGS)
	$(PWS) eval kernels/eval/suite-sizes.toml --out $(OUT)/eval-full/suite-sizes $(EVAL_FLAGS)
	$(PWS) eval kernels/eval/full.toml --out $(OUT)/eval-full/all $(EVAL_FLAGS)

# The paper's Figure 5 split/merge sequence on the datapath RTL, as a waveform.
wave: deps
	@mkdir -p $(OUT)
	$(PWS) unit split-merge kernels/units/figure5.sm --vcd $(OUT)/figure5.vcd
	@echo "wrote $(OUT)/figure5.vcd: open it with gtkwave $(OUT)/figure5.vcd"

clean:
	$(CARGO) clean
	rm -rf $(OUT)
