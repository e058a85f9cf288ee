# SPDX-License-Identifier: MIT
# make run: boot the kernel under QEMU (tools/qemu-run.sh; FIRMWARE=bios|uefi:
# the ISO through GRUB, tools/iso-run.sh), shown by tools/run-view.sh: the
# console text, then the per-CPU table and the three rows; the whole record
# stream goes to RUN_LOG (build/run.log points at the last one; V=1: the
# terminal too). It checks only the packages this run needs.
#
# Exit status, as every runner's: 0 pass, 1 fail, 2 no verdict.
# Included from the top-level Makefile (paths relative to the repo root).

RUN_LOG ?= build/runs/run-$(shell date +%Y%m%d-%H%M%S)-$(VARIANT).log
RUN_LOG := $(RUN_LOG)
RUN_NEEDS := build run $(if $(strip $(FIRMWARE)),iso) $(if $(filter uefi,$(FIRMWARE)),uefi)
RUN_PREREQS := run-deps kernel $(if $(strip $(FLUSH)),flushmodel)
RUN_VIEW = tools/run-view.sh --log '$(RUN_LOG)' $(if $(filter 1,$(V)),--verbose) --

.PHONY: run run-deps
# Install (root) or name, with the command, what this run needs and lacks.
run-deps:
	@tools/deps.sh $(strip $(RUN_NEEDS))

ifeq ($(strip $(FIRMWARE)),)
RUN_CMD = $(RUN_VIEW) tools/qemu-run.sh --kernel $(OUT)/apstart.elf --smp '$(SMP)' --accel $(ACCEL) \
	--machine $(MACHINE) --timeout $(TIMEOUT) $(FLUSH_OPT) $(QEMU_ARCH_OPTS) \
	-- '$(subst ','\'',$(ARGS))'
else
RUN_CMD = $(MAKE) --no-print-directory iso && $(RUN_VIEW) tools/iso-run.sh --firmware '$(FIRMWARE)' \
	--media '$(or $(MEDIA),cdrom)' --smp '$(SMP)' --accel '$(ACCEL)' \
	$(if $(filter-out file default,$(origin MACHINE)),--machine '$(MACHINE)') \
	--loader '$(or $(LOADER),grub)' --timeout $(TIMEOUT) \
	--wbinvd $(if $(filter i386,$(ARCH)),i386-)$(WBINVD) $(FLUSH_OPT) -- '$(subst ','\'',$(ARGS))'
endif
RUN_LINK = mkdir -p build && ln -sfn '$(patsubst build/%,%,$(RUN_LOG))' build/run.log

# GNU make exits 2 whenever a recipe fails, and 1 only in question mode
# (-q) with a goal out of date. So when run is the only goal (and no -n),
# the run is the remaking of an included makefile, RUN_STATUS_MK, which
# records the runner's status. make then starts again and reads it: after
# a failed run it turns question mode on (the phony run is out of date:
# make exits 1); without a verdict it stops with an error (exit 2).
RUN_STATUS_MK := build/run-status.mk
ifeq ($(MAKECMDGOALS)|$(findstring n,$(firstword -$(MAKEFLAGS))),run|)
ifeq ($(MAKE_RESTARTS),)
# It exists before make reads it, so that a failed remake (a package
# missing) says only what failed, not "No such file".
$(shell mkdir -p $(dir $(RUN_STATUS_MK)) && : >>$(RUN_STATUS_MK))
include $(RUN_STATUS_MK)
$(RUN_STATUS_MK): $(RUN_PREREQS) FORCE
	@$(RUN_LINK); $(RUN_CMD); echo "RUN_STATUS := $$?" >$@
else
include $(RUN_STATUS_MK)
ifeq ($(RUN_STATUS),1)
MAKEFLAGS += -q
else ifneq ($(RUN_STATUS),0)
$(error make run: no verdict from the kernel (exit 2))
endif
endif
run: ; @:
else
run: $(RUN_PREREQS)
	@$(RUN_LINK); $(RUN_CMD)
endif

# Always out of date (not .PHONY: a phony prerequisite would do the same,
# but make help lists the phony targets).
FORCE:
