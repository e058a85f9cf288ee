# SPDX-License-Identifier: MIT
# libFuzzer targets (clang, ASan + UBSan) for the parsers of firmware and
# boot-loader data: ACPI (RSDP/RSDT/XSDT/MADT/FADT/HPET), Multiboot1,
# Multiboot2, the command line. Included from the top-level Makefile.
#
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_RUNS=N]   each target in turn, niced,
#       from the committed seeds (tests/fuzz/corpus/<target>) plus what
#       earlier runs found (build/fuzz/corpus/<target>)
#   make fuzz-tests                             each target ~3 s (make test)

FUZZ_CC ?= clang
FUZZ_OUT := build/fuzz
FUZZ_TARGETS := acpi mb1 mb2 cmdline
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= 0
FUZZ_CFLAGS := $(HOST_CFLAGS) $(HOST_DEBUG) -Itests/fuzz \
	-DAPSTART_MAX_CPUS=8 -DAPSTART_MAX_MEM_RANGES=128 -fsanitize=fuzzer $(HOST_SAN)
fuzz_srcs_acpi := kernel/acpi.c lib/format.c
fuzz_srcs_mb1 := kernel/multiboot.c lib/format.c
fuzz_srcs_mb2 := kernel/multiboot.c lib/format.c
fuzz_srcs_cmdline := app/options.c wings/pstore/pstore_option.c smp/modes.c lib/keyword.c \
	lib/format.c
FUZZ_BINS := $(patsubst %,$(FUZZ_OUT)/fuzz_%,$(FUZZ_TARGETS))
# The compiler and flags they are built with (tools/build/build-vars.mk).
include tools/build/build-vars.mk
VARS.$(FUZZ_OUT)/fuzz = $(FUZZ_CC) $(FUZZ_CFLAGS)

.PHONY: fuzz fuzz-tests fuzz-build
fuzz-build: $(FUZZ_BINS)

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_map.h tests/fuzz/lane.mk \
		$(wildcard kernel/*.h lib/*.h app/*.h smp/*.h wings/*/*.h) kernel/acpi.c kernel/multiboot.c \
		app/options.c wings/pstore/pstore_option.c smp/modes.c lib/keyword.c lib/format.c \
		$(FUZZ_OUT)/fuzz.vars
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(fuzz_srcs_$*)

fuzz: $(FUZZ_BINS)
	@FUZZ_OUT=$(FUZZ_OUT) tests/fuzz/run.sh long $(FUZZ_SECONDS) $(FUZZ_RUNS) $(FUZZ_TARGETS)

fuzz-tests:
	@if ! tests/fuzz/run.sh can-build; then \
		for t in $(FUZZ_TARGETS); do echo "skip fuzz-$$t: clang with libFuzzer missing (apt-get install clang libclang-rt-14-dev)"; done; \
		echo "fuzz: 0 passed, 0 failed, $(words $(FUZZ_TARGETS)) skipped"; \
	else $(MAKE) --no-print-directory fuzz-build && \
		FUZZ_OUT=$(FUZZ_OUT) tests/fuzz/run.sh smoke 3 0 $(FUZZ_TARGETS); fi
