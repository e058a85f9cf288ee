# SPDX-License-Identifier: MIT
# libFuzzer targets (clang, ASan + UBSan) for the parsers of firmware and
# boot-loader data: ACPI (RSDP/RSDT/XSDT/MADT/FADT/HPET), Multiboot1,
# Multiboot2, the command line; for what the signed apstart.efi reads
# from the stick: plan.txt (plan) and the run files the session's table
# is made from (table); aplog's record reader (aplog), which reads what
# comes back from a crashed machine (serial, pstore, NVRAM, QR); and for
# what Linux's realmode blob comes in: the LRM file and the blob check
# (lrm), aprealmode's reading of a kernel image (realmode_scan).
# Included from the top-level Makefile.
#
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_RUNS=N]   each target in turn, niced,
#       from the committed seeds (tests/fuzz/corpus/<target>) plus what
#       earlier runs found (build/fuzz/corpus/<target>)
#   make fuzz-tests                             each target ~2 s (make test)
#
# make fuzz-tests builds in build/fuzz-smoke at -O0 (7.5 CPU-s for the nine,
# against 14 at -O1): ASan and UBSan check the same at either level, and a
# smoke of 2 s from the seeds is not there for executions per second;
# make fuzz, there for them, keeps -O1 in build/fuzz.

FUZZ_CC ?= clang
FUZZ_OUT := build/fuzz
FUZZ_OPT := $(HOST_DEBUG)
FUZZ_SMOKE_OUT := build/fuzz-smoke
FUZZ_SMOKE_SECONDS := 2
FUZZ_TARGETS := acpi mb1 mb2 cmdline plan table aplog lrm realmode_scan
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= 0
FUZZ_CFLAGS := $(HOST_CFLAGS) $(FUZZ_OPT) -Itests/fuzz \
	-DAPSTART_MAX_CPUS=8 -DAPSTART_MAX_MEM_RANGES=128 -DAPSTART_EFI_TEST_HOOKS=1 \
	-fsanitize=fuzzer $(HOST_SAN)
fuzz_srcs_acpi := kernel/acpi.c lib/format.c
fuzz_srcs_mb1 := kernel/multiboot.c lib/format.c
fuzz_srcs_mb2 := kernel/multiboot.c lib/format.c
fuzz_srcs_cmdline := app/options.c wings/pstore/pstore_option.c smp/modes.c lib/keyword.c \
	lib/format.c
# apstart.efi's pure files, built as its tests' build has them (the test
# switches in: more code to reach).
fuzz_srcs_plan := wings/efi/plan_text.c lib/format.c
fuzz_srcs_table := wings/efi/table_text.c wings/efi/plan_text.c wings/efi/records.c tools/aplog/stats/verdict.c \
	lib/format.c
fuzz_srcs_aplog := $(addprefix tools/aplog/read/,load.c handlers.c fields.c records.c runcheck.c) \
	tools/aplog/util.c tools/records/schema.c lib/phase_names.c wings/screen/warn_events.c
fuzz_srcs_lrm := wings/linux_trampoline/lrm_blob.c wings/linux_trampoline/lrm_file.c lib/format.c wings/efi/sha256.c
fuzz_srcs_realmode_scan := tools/linux/realmode/kernel_image.c tools/linux/realmode/scan.c \
	tools/linux/realmode/twin.c wings/linux_trampoline/lrm_blob.c lib/format.c
FUZZ_SRCS := $(sort $(foreach t,$(FUZZ_TARGETS),$(fuzz_srcs_$(t))))
FUZZ_BINS := $(patsubst %,$(FUZZ_OUT)/fuzz_%,$(FUZZ_TARGETS))
# The compiler and flags they are built with (tools/build/build-vars.mk).
include tools/build/build-vars.mk
VARS.$(FUZZ_OUT)/fuzz = $(FUZZ_CC) $(FUZZ_CFLAGS)
# The stamp is a file to keep, not an intermediate (else make deletes it
# after each build, and the next make rebuilds every target).
.SECONDARY: $(FUZZ_OUT)/fuzz.vars

.PHONY: fuzz fuzz-tests fuzz-build
fuzz-build: $(FUZZ_BINS)

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_map.h tests/fuzz/lane.mk \
		$(wildcard kernel/*.h lib/*.h app/*.h smp/*.h wings/*/*.h tools/aplog/*.h tools/aplog/read/*.h tools/records/*.h tools/linux/realmode/*.h) lib/records.def \
		$(FUZZ_SRCS) $(FUZZ_OUT)/fuzz.vars
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(fuzz_srcs_$*)

fuzz: $(FUZZ_BINS)
	@FUZZ_OUT=$(FUZZ_OUT) tests/fuzz/run.sh long $(FUZZ_SECONDS) $(FUZZ_RUNS) $(FUZZ_TARGETS)

fuzz-tests:
	@if ! tests/fuzz/run.sh can-build; then \
		for t in $(FUZZ_TARGETS); do echo "skip fuzz-$$t: clang with libFuzzer missing (apt-get install clang libclang-rt-14-dev)"; done; \
		echo "fuzz: 0 passed, 0 failed, $(words $(FUZZ_TARGETS)) skipped"; \
	else $(MAKE) --no-print-directory fuzz-build FUZZ_OUT=$(FUZZ_SMOKE_OUT) FUZZ_OPT='-O0 -g' && \
		FUZZ_OUT=$(FUZZ_SMOKE_OUT) tests/fuzz/run.sh smoke $(FUZZ_SMOKE_SECONDS) 0 $(FUZZ_TARGETS); fi
