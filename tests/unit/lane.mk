# SPDX-License-Identifier: MIT
# Host unit tests for the kernel's pure parsers (format, cmdline, stats,
# multiboot, acpi), the app's summary capture and QR records, the Linux
# realmode blob check and LRM file (wings/linux_trampoline/), and
# apstart.efi's session files (plan.txt, the table from the run files).
# Included from the top-level Makefile; paths are relative to the
# repository root. Every variable is UNIT_-prefixed.
#
#   make unit-tests    build both binaries, run both, print one summary
#                      line each; fails if any check fails or a run dies.

UNIT_CC ?= gcc
UNIT_DIR := build/host
UNIT_CFLAGS := $(HOST_CFLAGS) $(HOST_DEBUG) \
	-DAPSTART_MAX_CPUS=8 -DAPSTART_MAX_MEM_RANGES=128
UNIT_SANFLAGS := $(HOST_SAN)
UNIT_KERNEL_SRCS := app/options.c wings/kept/kept_lines.c wings/nvram/nvram_save.c wings/pstore/pstore_option.c wings/selftest/selftest_option.c wings/screen/qr_records.c smp/modes.c \
	wings/linux_trampoline/lrm_blob.c wings/linux_trampoline/lrm_file.c \
	lib/format.c lib/keyword.c wings/pstore/persistent_ram.c wings/efi/sha256.c tools/aplog/stats/verdict.c \
	wings/efi/plan_text.c wings/efi/table_text.c wings/efi/records.c tools/records/schema.c lib/phase_names.c \
	$(addprefix kernel/,multiboot.c acpi.c memmap.c firmware.c) $(KSTATS_SRC)
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c)) $(UNIT_KERNEL_SRCS)
# ... and the compiler and flags they are built with (tools/build/build-vars.mk).
include tools/build/build-vars.mk
VARS.$(UNIT_DIR)/unit = $(UNIT_CC) $(UNIT_CFLAGS) | $(UNIT_SANFLAGS)
UNIT_DEPS := $(UNIT_SRCS) $(wildcard tests/unit/*.h) $(wildcard app/*.h) $(wildcard kernel/*.h) $(wildcard lib/*.h) lib/records.def $(wildcard smp/*.h) $(wildcard wings/*/*.h) \
	tests/unit/lane.mk $(UNIT_DIR)/unit.vars
UNIT_TIMEOUT := 300

# Shell snippet: run binary $(1); if its last line is the summary, print
# the rest then "$(2) <summary>", else everything and a failure line.
# Leaves the exit status in unit_rc.
UNIT_RUN = log=$(1).log; \
	timeout $(UNIT_TIMEOUT) $(1) >$$log 2>&1; unit_rc=$$?; \
	last=$$(tail -n 1 $$log); \
	if printf '%s\n' "$$last" | grep -Eq '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$$'; \
	then sed '$$d' $$log; echo "$(2) $$last"; \
	else cat $$log; echo "$(2) did not finish (exit $$unit_rc)"; \
	     [ $$unit_rc -ne 0 ] || unit_rc=1; fi

.PHONY: unit-tests
unit-tests: $(UNIT_DIR)/unit_tests $(UNIT_DIR)/unit_tests_asan
	@rc=0; \
	$(call UNIT_RUN,$(UNIT_DIR)/unit_tests,unit:); \
	[ $$unit_rc -eq 0 ] || rc=1; \
	$(call UNIT_RUN,$(UNIT_DIR)/unit_tests_asan,unit (asan+ubsan):); \
	[ $$unit_rc -eq 0 ] || rc=1; \
	exit $$rc

$(UNIT_DIR)/unit_tests: $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(UNIT_SRCS)

$(UNIT_DIR)/unit_tests_asan: $(UNIT_DEPS)
	@mkdir -p $(@D)
	$(UNIT_CC) $(UNIT_CFLAGS) $(UNIT_SANFLAGS) -o $@ $(UNIT_SRCS)
