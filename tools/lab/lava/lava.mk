# SPDX-License-Identifier: MIT
# apstart as a LAVA test job (tools/lab/lava/; docs/lab.md). Included from the
# top-level Makefile.
#
#   make lava [LAVA_WBINVD=0|1] [LAVA_SMP=4] [LAVA_ARGS="cycles=2"] [LAVA_DIR=build/lava/job]
#             [LINUX_IMAGE=FILE [LINUX_PATCHED=1]]
#        runs the qemu job with lava-run (package lava-dispatcher, optional)
#        and writes LAVA_DIR/results.txt; exit 1 when apstart's verdict is fail
#   make lava-tests   the monitors replayed over recorded consoles (always),
#        the job templates, and, where lava-run is installed, a passing and
#        a failing kernel (selftest=lost-sipi sipi_retry=0) run by lava-run
ifndef LAVA_MK_INCLUDED
LAVA_MK_INCLUDED := 1
LAVA_SAVED_GOAL := $(.DEFAULT_GOAL)

LAVA_WBINVD ?= 0
LAVA_SMP ?= 4
LAVA_ARGS ?= cycles=2
LAVA_DIR ?= build/lava/job
LAVA_TESTS_TIMEOUT ?= 300

.PHONY: lava lava-tests
# Its exit status (0 pass, 1 fail, 2 no verdict) reaches the shell as make
# run's does (tools/run/exit-status.mk).
LAVA_PREREQS := deps
# LINUX_IMAGE=: through Linux's own trampoline (LINUX_PATCHED=1: its twin),
# the LRM file deployed as the kernel's module (docs/linux-trampoline.md).
LAVA_CMD = $(call BUILD_VARIANT,WBINVD=$(LAVA_WBINVD)) && \
	$(if $(strip $(LINUX_IMAGE)),lrm=$$(tools/run/linux-lrm.sh $(if $(filter 1,$(LINUX_PATCHED)),--twin) '$(strip $(LINUX_IMAGE))') &&) \
	tools/lab/lava/run-job.sh --kernel build/wbinvd$(LAVA_WBINVD)/apstart.elf --out $(LAVA_DIR) \
	--smp '$(LAVA_SMP)' --variant WBINVD=$(LAVA_WBINVD) $(if $(strip $(LINUX_IMAGE)),--module "$$lrm") -- $(LAVA_ARGS)
$(eval $(call EXIT_STATUS_GOAL,lava,LAVA_PREREQS,LAVA_CMD))

.DEFAULT_GOAL := $(LAVA_SAVED_GOAL)
endif
