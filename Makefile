# apstart: build, run under QEMU, test.
#   make [WBINVD=0|1]            kernel -> build/apstart.elf (+ per-variant copy)
#   make run SMP=N ARGS="..."    boot it under QEMU (KVM if usable, else TCG);
#                                exit 0 pass, 1 fail, 2 no verdict (tools/run/run.mk)
#   make run FLUSH=xeon6985p     ... with WBINVD/INVD charged a modelled cost
#                                (TCG plugin, tools/flushmodel; or FLUSH=us=2000)
#   make ab [RUNS=10]            WBINVD=1 against WBINVD=0, interleaved runs,
#                                the reference's rows and a verdict
#   make test                    every lane of tests/lanes; make check: those
#                                the working tree's change needs
#   make ARCH=i386               the 32-bit protected-mode kernel (no long mode)
#   make help                    every target and variable
# Variants build side by side in build/wbinvd0/ and build/wbinvd1/
# (ARCH=i386: build/i386-wbinvd0/ and build/i386-wbinvd1/; the knobs:
# tools/build/knobs.mk).

# The knobs you will use: SMP, ARGS, FLUSH ... here; the kernel's own
# (ARCH, WBINVD, the test-only ones) in one table, tools/build/knobs.mk.
SMP ?= 8
ACCEL ?= auto
MACHINE ?= pc
ARGS ?=
TIMEOUT ?= 120
FLUSH ?=
# ARCH=i386 runs under qemu-system-i386 with a CPU without long mode
# (QEMU_CPU=pentium3 by default; QEMU_CPU=max, n270, athlon... work too).
QEMU_CPU ?= $(if $(filter i386,$(ARCH)),pentium3)
QEMU_ARCH_OPTS = $(if $(filter i386,$(ARCH)),--emulator i386) $(if $(strip $(QEMU_CPU)),--cpu '$(strip $(QEMU_CPU))')
FLUSH_OPT = $(if $(strip $(FLUSH)),--flush '$(subst ','\'',$(strip $(FLUSH)))')
VERSION := 0.1
# make V=1 shows full command lines.
Q := $(if $(filter 1,$(V)),,@)

# The kernel's wings (docs/layout.md), in link order (wings/wings.list):
# all by default (RELEASE=1: all but selftest, whose points it compiles
# out); WINGS= links the core alone, the minimal kernel (serial records
# only).
ALL_WINGS := $(strip $(shell sed 's/\#.*//' wings/wings.list))
include tools/build/knobs.mk
override WINGS := $(strip $(WINGS))
OUT := build/$(VARIANT)

CC := gcc
NASM := nasm
LD := ld

# Per architecture: code model, object format, trampoline source. i386:
# 64-bit divisions and atomics call libgcc/libatomic helpers, which
# kernel/libgcc32.c provides (Debian's gcc has no 32-bit libgcc without
# gcc-multilib).
ifeq ($(ARCH),i386)
ARCH_CFLAGS := -m32 -march=i686 -mtune=generic
NASM_FORMAT := elf32
LD_EMULATION := elf_i386
TRAMP_SRC_MAIN := realmode/trampoline_32.asm
ARCH_C_OUT :=
else
ARCH_CFLAGS := -m64 -mno-red-zone -mcmodel=small
NASM_FORMAT := elf64
LD_EMULATION := elf_x86_64
TRAMP_SRC_MAIN := realmode/trampoline.asm
ARCH_C_OUT := kernel/libgcc32.c
endif

KCFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-pic -fno-pie \
	-fno-stack-protector -fno-asynchronous-unwind-tables -fno-builtin \
	-mgeneral-regs-only $(ARCH_CFLAGS) \
	-I. -MMD -MP -DAPSTART_VERSION='"$(VERSION)"' $(KNOB_CFLAGS)
KLDFLAGS := -nostdlib -static -z max-page-size=0x1000 --no-warn-rwx-segments -z noexecstack \
	-m $(LD_EMULATION) -T linker.ld
# The trampoline's variant (its own defines: it is not compiled by gcc).
TRAMP_DEFS := $(KNOB_NASMFLAGS)

# The core is what make WINGS= links (docs/layout.md): its folders, lib/
# by name (pure C the host tools build too); then each wing linked.
LIB_C := lib/format.c lib/keyword.c lib/phase_names.c lib/stats.c lib/string.c
# RELEASE=1 leaves out the instrumentation's state (smp/instrument.c).
RELEASE_OUT_C := $(if $(filter 1,$(RELEASE)),smp/instrument.c)
KERNEL_C := $(filter-out %/asm_defs.c $(ARCH_C_OUT) $(RELEASE_OUT_C),$(wildcard app/*.c) \
	$(wildcard smp/*.c) $(wildcard kernel/*.c)) $(LIB_C) $(foreach w,$(WINGS),$(wildcard wings/$(w)/*.c))
KERNEL_ASM := boot/multiboot_header.asm boot/start.asm boot/cpu_floor.asm kernel/gdt.asm kernel/isr.asm
KERNEL_OBJS := $(patsubst %.c,$(OUT)/%.o,$(KERNEL_C)) \
	$(patsubst %.asm,$(OUT)/%.o,$(KERNEL_ASM)) \
	$(OUT)/realmode/blob.o
# A variant that sets knobs shares the plain variant's objects where it can.
include tools/build/plain-objects.mk

.PHONY: all kernel test clean deps deps-check unit-tests trampoline-tests qemu-tests timing-tests tscskew-tests baseline soak
# make builds only: a missing build tool is named (deps-check), never installed.
all: deps-check kernel

include tools/build/host.mk
include tools/build/build-vars.mk
include tools/build/font.mk

# The options of the wings left out (WINGS=...), "NAME:WING ...", read
# from their tables: a kernel built without a wing names it when one of
# its options is given (app/wing.c).
ABSENT_WINGS := $(filter-out $(WINGS),$(ALL_WINGS))
ABSENT_OPTIONS := $(strip $(foreach w,$(ABSENT_WINGS),$(shell awk -v wing=$(w) -f tools/build/kernel-options.awk wings/$(w)/*.c)))
$(OUT)/app/wing.o: KCFLAGS += -DAPSTART_ABSENT_OPTIONS='"$(ABSENT_OPTIONS)"'
$(OUT)/app/wing.o: $(foreach w,$(ABSENT_WINGS),$(wildcard wings/$(w)/*.c)) tools/build/kernel-options.awk \
	$(OUT)/wing.vars
VARS.$(OUT)/wing = $(ABSENT_OPTIONS)

# Everything a kernel build in $(OUT) is made with: a folder named by
# another variant's name (OUT=..., make ab's build/ab/build-a) or another
# compiler rebuilds (tools/build/build-vars.mk). WINGS changes no file's
# flags: which objects link is the link's own stamp (link.vars,
# tools/build/plain-objects.mk) and the wings left out are app/wing.o's
# (wing.vars, above), so a wing added to wings/wings.list compiles that
# wing and app/wing.o, not the whole kernel again.
KBUILD_VARS := $(OUT)/build.vars
VARS.$(OUT)/build = $(CC) $(KCFLAGS) | $(NASM) -f $(NASM_FORMAT) $(NASMFLAGS) $(TRAMP_DEFS) | $(LD) $(KLDFLAGS) | \
	$(filter-out WINGS=%,$(KNOB_WORDS))

# A wing's own make lines (wings/NAME/wing.mk): objects not made from its
# C files (WING_OBJS.NAME), linked with it, and the wings it needs
# (WING_NEEDS.NAME), which must be linked too.
include $(wildcard wings/*/wing.mk)
KERNEL_OBJS += $(foreach w,$(WINGS),$(WING_OBJS.$(w)))
$(foreach w,$(WINGS),$(foreach n,$(WING_NEEDS.$(w)),$(if $(filter $(n),$(WINGS)),,\
	$(error the $(w) wing needs the $(n) wing: WINGS='$(WINGS) $(n)'))))

# build/apstart.elf is always the variant just asked for, so it is copied
# every time (a timestamp rule would keep the other variant's newer copy).
kernel: $(OUT)/apstart.elf
	@cp $< build/apstart.elf
	@cp $< build/apstart-$(VARIANT).elf
	@echo "  built   build/apstart.elf = $< ($(ARCH), $(if $(filter 1,$(WBINVD)),WITH,without) WBINVD)"

# make variant: build/<variant>/apstart.elf for the variables given
# (ARCH, WBINVD, MAX_CPUS...), without kernel's copies. The other targets
# ask for a variant through BUILD_VARIANT, which builds it plain (every
# knob of tools/build/knobs.mk at its default unless named) whatever this
# make was called with:  @$(call BUILD_VARIANT,ARCH=i386 WBINVD=1)
.PHONY: variant
variant: $(OUT)/apstart.elf
	@:
# (WINGS is passed again as the text $(DEFAULT_WINGS): the sub-make
# expands it, so that RELEASE=1 named in $(1) gets its own default.)
BUILD_VARIANT = $(MAKE) --no-print-directory $(KNOB_DEFAULTS) WINGS='$$(DEFAULT_WINGS)' $(1) variant

# The two plain x86_64 kernels, WBINVD=0 and 1, as one target: the images
# and the package that carry both (make iso, make efi, make install) ask
# through it, so that one make runs their sub-makes once (an up-to-date
# make iso ran them twice: ~1 CPU-s of its ~3, and make run FIRMWARE=
# makes the image every time).
.PHONY: x86_64-kernels
x86_64-kernels:
	$(Q)$(call BUILD_VARIANT,WBINVD=0)
	$(Q)$(call BUILD_VARIANT,WBINVD=1)

$(OUT)/apstart.elf: $(KERNEL_OBJS) linker.ld $(KBUILD_VARS)
	@echo "  LD      $@"
	$(Q)$(LD) $(KLDFLAGS) -Map=$@.map -o $@ $(KERNEL_OBJS)

$(OUT)/%.o: %.c Makefile $(KBUILD_VARS)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(KCFLAGS) -c -o $@ $<

# Constants the assembly takes from C, so that each has one definition:
# <layer>/asm_defs.c is compiled to assembly and its markers become NASM
# %defines in $(OUT)/gen/<layer>/asm_defs.inc (see kernel/asm_defs.h).
ASM_DEFS := $(OUT)/gen/kernel/asm_defs.inc $(OUT)/gen/realmode/asm_defs.inc
NASMFLAGS := -I./ -I$(OUT)/gen/ -DARCH_$(ARCH)

$(OUT)/gen/%/asm_defs.inc: %/asm_defs.c Makefile $(KBUILD_VARS)
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)$(CC) $(KCFLAGS) -MT $@ -MF $(@:.inc=.d) -S -o $(@:.inc=.s) $<
	$(Q){ echo "; generated from $< by the Makefile: edit the C headers it includes"; \
	  sed -n 's/^[[:space:]]*\.ascii[[:space:]]*"->\([A-Za-z0-9_]*\) \$$\{0,1\}\(-\{0,1\}[0-9][0-9]*\)"$$/%define \1 \2/p' \
		$(@:.inc=.s); } >$@.tmp
	$(Q)grep -q '^%define' $@.tmp || { echo "$<: no constants found in $(@:.inc=.s)"; exit 1; }
	$(Q)mv $@.tmp $@

# A wing's entry from another trampoline (wings/linux_trampoline/entry.asm)
# shares the core trampoline's macros: its variant's defines too.
$(OUT)/wings/%.o: wings/%.asm Makefile $(KBUILD_VARS) | $(ASM_DEFS)
	@mkdir -p $(dir $@)
	@echo "  NASM    $@"
	$(Q)$(NASM) $(NASMFLAGS) $(TRAMP_DEFS) -M -MF $(@:.o=.d) -MT $@ -MP $<
	$(Q)$(NASM) -f $(NASM_FORMAT) $(NASMFLAGS) $(TRAMP_DEFS) -o $@ $<

$(OUT)/%.o: %.asm Makefile $(KBUILD_VARS) | $(ASM_DEFS)
	@mkdir -p $(dir $@)
	@echo "  NASM    $@"
	$(Q)$(NASM) $(NASMFLAGS) -M -MF $(@:.o=.d) -MT $@ -MP $<
	$(Q)$(NASM) -f $(NASM_FORMAT) $(NASMFLAGS) -o $@ $<

# The trampoline: a flat binary, one per variant, embedded with incbin.
# (NASM 2.16's -MD leaves out the included files: dependencies come from
# a separate -M pass.)
$(OUT)/trampoline.bin: $(TRAMP_SRC_MAIN) Makefile $(KBUILD_VARS) | $(ASM_DEFS)
	@mkdir -p $(dir $@)
	$(Q)$(NASM) $(NASMFLAGS) -M -MF $(OUT)/trampoline.d -MT $@ -MP $<
	$(NASM) -f bin $(NASMFLAGS) $(TRAMP_DEFS) -l $(OUT)/trampoline.lst -o $@ $<
	@size=$$(stat -c %s $@); if [ $$size -gt 4096 ]; then \
		echo "trampoline is $$size bytes: must fit in one 4 KiB page"; rm -f $@; exit 1; fi

$(OUT)/realmode/blob.o: realmode/blob.asm $(OUT)/trampoline.bin $(KBUILD_VARS)
	@mkdir -p $(dir $@)
	$(NASM) -f $(NASM_FORMAT) -DTRAMPOLINE_BIN='"$(OUT)/trampoline.bin"' -o $@ $<

-include $(KERNEL_OBJS:.o=.d) $(ASM_DEFS:.inc=.d) $(OUT)/trampoline.d

# Install the packages of tools/build/packages.list (root: apt-get; else the command).
deps:
	@tools/build/deps.sh

deps-check:
	@tools/build/deps.sh --check build

# Long, not in make test: do the verdicts hold? A/A and A/B repetitions of
# make ab and of the wall-clock gate (tests/verdicts/calibrate.sh).
.PHONY: verdict-calibration
verdict-calibration: deps
	@tests/verdicts/calibrate.sh

# The host tools, the runners, the EFI loader, the images. aplog.mk comes
# before the lanes: it names the kernel file host programs share
# (KSTATS_SRC), which the unit lane's rules take.
include tools/aplog/aplog.mk
include tools/run/exit-status.mk
include tools/run/run.mk
include tools/linux/hotplug/linux-hotplug.mk
include wings/efi/efi.mk
include tools/image/esp.mk
include tools/image/iso.mk
include tools/image/secureboot.mk
include tools/lab/netboot/netboot.mk
include tools/lab/lava/lava.mk
include tools/linux/realmode/realmode.mk
# (make builds aprealmode too: named here, where realmode.mk has set it)
all: $(APREALMODE)
include tools/linux/linux.mk
include tools/flushmodel/flushmodel.mk
include tools/dev/dev.mk
# The lanes of make test (tests/lanes), each with its rules beside its
# tests in tests/FOLDER/lane.mk: a missing one stops make. Then the long
# runs that are not lanes.
LANE_FOLDERS := $(shell grep -v '^[[:punct:]]' tests/lanes | awk 'NF { print $$2 }' | sort -u)
include $(addprefix tests/,$(addsuffix /lane.mk,$(LANE_FOLDERS)))
include tests/chroot/lane.mk tests/soak/lane.mk tests/kexec/lane.mk

# make ab: both variants, RUNS boots each in randomised pairs, the table
# and its verdict (tools/run/ab.sh; docs/verdicts.md). AB_A/AB_B: each
# side's make variables (AB_A=WBINVD=0 AB_B=WBINVD=0: an A/A).
RUNS ?= 10
# LINUX_IMAGE=FILE: that kernel's own trampoline as shipped (A) against its
# patched twin (B), unless AB_A/AB_B say otherwise (tools/run/ab.sh).
AB_A ?= $(if $(strip $(LINUX_IMAGE)),LINUX_IMAGE=$(strip $(LINUX_IMAGE)) LINUX_PATCHED=0,WBINVD=1)
AB_B ?= $(if $(strip $(LINUX_IMAGE)),LINUX_IMAGE=$(strip $(LINUX_IMAGE)) LINUX_PATCHED=1,WBINVD=0)
AB_OUT ?= build/ab
AB_ARCH = $(if $(filter i386,$(ARCH)),ARCH=i386)
# Under TCG one host thread for all vCPUs: far less run-to-run spread.
TCG_THREAD ?= single
# Its exit status (0 a verdict, 1 a failed run, 2 no verdict) reaches the
# shell as make run's does (tools/run/exit-status.mk).
.PHONY: ab
AB_PREREQS := deps $(APLOG) $(if $(strip $(FLUSH)),flushmodel) $(if $(findstring LINUX_IMAGE=,$(AB_A) $(AB_B)),aprealmode)
AB_CMD = tools/run/ab.sh --runs '$(RUNS)' --a '$(AB_ARCH) $(AB_A)' --b '$(AB_ARCH) $(AB_B)' --tcg-thread '$(TCG_THREAD)' \
	--out '$(AB_OUT)' \
	--smp '$(SMP)' --accel $(ACCEL) --machine $(MACHINE) --timeout $(TIMEOUT) \
	$(FLUSH_OPT) $(QEMU_ARCH_OPTS) -- '$(subst ','\'',$(ARGS))'
$(eval $(call EXIT_STATUS_GOAL,ab,AB_PREREQS,AB_CMD))

# The inner loop: the lanes the working tree's change (or FILES=...) needs.
check: deps-check
	@tests/check.sh $(FILES)

# Long run, not in make test: serial vs parallel bring-up at -smp 8, 64,
# 255 under TCG, with the targets of issue 9 and a plot (tools/run/bench-scale.sh).
BENCH_NS ?= 8 64 255
BENCH_CYCLES ?= 3
BENCH_TIMEOUT ?= 1800
BENCH_TCG ?= multi
.PHONY: bench-scale
bench-scale: deps $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0)
	@BENCH_CYCLES='$(BENCH_CYCLES)' BENCH_TIMEOUT='$(BENCH_TIMEOUT)' BENCH_TCG='$(BENCH_TCG)' \
		tools/run/bench-scale.sh $(BENCH_NS)

test: deps
	@tests/run-all.sh

# What several lanes use, built once before they run side by side
# (tests/run-all.sh): no two lanes may build the same file at once. Made
# with make -jN, it keeps every CPU busy: the x86_64 and i386 kernels side
# by side (each WBINVD=1 after its plain WBINVD=0, whose objects it
# shares; then the core alone, make WINGS=, which the layers and qemu
# lanes both boot or check and would otherwise both build at once; the
# font both link is made first, or both would build
# build/host/mkfont at once: "Text file busy"), and beside them the host
# tools, which use no kernel (they fill what the kernels' makes leave of
# the CPUs); then apstart.efi and the images, which carry the kernels;
# meanwhile Debian's
# kernel for the Linux VM lanes (linux-hotplug, linux-vm), then its
# 6.1, 6.12 and 686 images for the realmode lane (fetch-images.sh takes
# the first from the former) are fetched (once; without the mirror each
# of those lanes says so and skips).
.PHONY: test-prep
test-prep: deps
	@mkdir -p build; \
	{ tools/linux/vm/fetch.sh >/dev/null 2>&1 || \
		echo "test-prep: Debian's kernel not fetched (the Linux VM lanes will say why)"; \
	  tests/realmode/fetch-images.sh >/dev/null 2>&1 || \
		echo "test-prep: Debian's kernel images not fetched (the realmode lane will say why)"; } & fetch=$$!; \
	$(MAKE) --no-print-directory $(FONT_GEN) || { wait $$fetch; exit 1; }; \
	{ $(call BUILD_VARIANT,WBINVD=0) && $(call BUILD_VARIANT,WBINVD=1) && \
	  $(call BUILD_VARIANT,WBINVD=0 WINGS=); } & x86=$$!; \
	{ $(call BUILD_VARIANT,ARCH=i386 WBINVD=0) && $(call BUILD_VARIANT,ARCH=i386 WBINVD=1); } & i386=$$!; \
	$(MAKE) --no-print-directory $(APLOG) $(APLOG_ASAN) $(APREALMODE) $(APREALMODE_ASAN) \
		$(VARSTORE) $(SCREENTEXT) $(PPMCHECK) flushmodel; st=$$?; \
	wait $$x86 && wait $$i386 && [ $$st = 0 ] && \
	$(MAKE) --no-print-directory $(APSTART_EFI) $(ISO) $(ISO_TEST_IMAGES) $(ISO_TEST_EFI); st=$$?; \
	wait $$fetch; exit $$st

clean:
	rm -rf build
