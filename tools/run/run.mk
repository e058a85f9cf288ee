# SPDX-License-Identifier: MIT
# make run: boot the kernel under QEMU (tools/run/qemu-run.sh; FIRMWARE=bios|uefi:
# the ISO through GRUB, tools/run/iso-run.sh), shown by tools/run/run-view.sh: the
# console text, then the per-CPU table and the three rows; the whole record
# stream goes to RUN_LOG (build/run.log points at the last one; V=1: the
# terminal too). It checks only the packages this run needs.
#
# Exit status: 0 a clean pass (the kernel's @end status=pass, no warnings
# but the events a run survives: aplog verify's rule), 1 fail or a pass
# with warnings, 2 no verdict (tools/run/exit-status.mk brings it to the shell).
# Included from the top-level Makefile (paths relative to the repo root).

# The default name never overwrites a log: run-view.sh takes the next free
# one (-2, -3...) when two runs start in the same second. A RUN_LOG given
# is written as asked.
RUN_LOG ?= build/runs/run-$(shell date +%Y%m%d-%H%M%S)-$(VARIANT).log
RUN_LOG_OPT := $(if $(filter file,$(origin RUN_LOG)),--new-log,--log) '$(RUN_LOG)'
RUN_NEEDS := build run $(if $(strip $(FIRMWARE)),iso) $(if $(filter uefi,$(FIRMWARE)),uefi)
RUN_PREREQS := run-deps kernel $(if $(strip $(FLUSH)),flushmodel) $(if $(strip $(LINUX_IMAGE)),aprealmode)
RUN_VIEW = tools/run/run-view.sh $(RUN_LOG_OPT) --link build/run.log $(if $(filter 1,$(V)),--verbose) --

.PHONY: run run-deps
# Install (root) or name, with the command, what this run needs and lacks.
run-deps:
	@tools/build/deps.sh $(strip $(RUN_NEEDS))

# LINUX_IMAGE=: the APs start in Linux's own trampoline (trampoline=linux,
# docs/linux-trampoline.md): the realmode blob of that kernel image, vmlinux,
# build tree, LRM file, or "running" (/boot/vmlinuz-$(uname -r)), made into
# an LRM file by aprealmode (tools/run/linux-lrm.sh) and given as the boot
# module; LINUX_PATCHED=1: its patched twin. A refused input: no verdict.
LINUX_IMAGE ?=
LINUX_PATCHED ?= 0
ifneq ($(filter-out 0 1,$(LINUX_PATCHED)),)
$(error LINUX_PATCHED must be 0 or 1, not '$(LINUX_PATCHED)')
endif
RUN_LINUX := $(strip $(LINUX_IMAGE))
RUN_ARGS = $(if $(RUN_LINUX),trampoline=linux )$(ARGS)
RUN_MODULE = $(if $(RUN_LINUX),--module "$$lrm")
RUN_WITH_LRM = $(if $(RUN_LINUX),if lrm=$$(tools/run/linux-lrm.sh $(if $(filter 1,$(LINUX_PATCHED)),--twin) \
	'$(subst ','\'',$(RUN_LINUX))'); then $(1); else [ -z "$$EXIT_WHY" ] || echo "make run: no LRM file from LINUX_IMAGE=$(RUN_LINUX) (the reason above)" >"$$EXIT_WHY"; (exit 2); fi,$(1))

ifeq ($(strip $(FIRMWARE)),)
RUN_CMD = $(call RUN_WITH_LRM,$(RUN_VIEW) tools/run/qemu-run.sh --kernel $(OUT)/apstart.elf --smp '$(SMP)' --accel $(ACCEL) \
	--machine $(MACHINE) --timeout $(TIMEOUT) $(FLUSH_OPT) $(QEMU_ARCH_OPTS) $(RUN_MODULE) \
	-- '$(subst ','\'',$(RUN_ARGS))')
else
RUN_CMD = $(MAKE) --no-print-directory iso && $(call RUN_WITH_LRM,$(RUN_VIEW) tools/run/iso-run.sh --firmware '$(FIRMWARE)' \
	--media '$(or $(MEDIA),cdrom)' --smp '$(SMP)' --accel '$(ACCEL)' \
	$(if $(filter-out file default,$(origin MACHINE)),--machine '$(MACHINE)') \
	--loader '$(or $(LOADER),grub)' --timeout $(TIMEOUT) \
	$(if $(filter-out file default undefined,$(origin QEMU_CPU)),--cpu '$(strip $(QEMU_CPU))') \
	--wbinvd $(if $(filter i386,$(ARCH)),i386-)$(WBINVD) $(FLUSH_OPT) $(RUN_MODULE) -- '$(subst ','\'',$(RUN_ARGS))')
endif

# Its exit status reaches the shell (tools/run/exit-status.mk).
$(eval $(call EXIT_STATUS_GOAL,run,RUN_PREREQS,RUN_CMD))
