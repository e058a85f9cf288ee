# apstart: build, run under QEMU, test.
#   make [WBINVD=0|1]            kernel -> build/apstart.elf (+ per-variant copy)
#   make run SMP=N ARGS="..."    boot it under QEMU (KVM if usable, else TCG);
#                                exit 0 pass, 1 fail, 2 no verdict (tools/run/run.mk)
#   make run FLUSH=xeon6985p     ... with WBINVD/INVD charged a modelled cost
#                                (TCG plugin, tools/flushmodel; or FLUSH=us=2000)
#   make ab [RUNS=10]            WBINVD=1 against WBINVD=0, interleaved runs,
#                                the reference's rows and a verdict
#   make test                    unit tests, trampoline content, QEMU matrix
#   make ARCH=i386               the 32-bit protected-mode kernel (no long mode)
# Variants build side by side in build/wbinvd0/ and build/wbinvd1/
# (ARCH=i386: build/i386-wbinvd0/ and build/i386-wbinvd1/).

ARCH ?= x86_64
WBINVD ?= 0
SLOW_TRAMP_NS ?= 0
SLOW_PARK_NS ?= 0
# Test-only: K extra NOPs at one point of the AP path (realmode/pad.inc),
# PAD_INSNS=K PAD_AT=real|prot|long|park, or per point PAD_REAL=K ...
PAD_INSNS ?= 0
PAD_AT ?=
MAX_CPUS ?= 512
# Measurement-only (make marks-cost): MARKS=0 leaves out the per-phase
# timestamps of the online path, keeping each measured window's start and
# end (docs/timing.md, "What the marks cost").
MARKS ?= 1
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

ifneq ($(filter-out x86_64 i386,$(ARCH)),)
$(error ARCH must be x86_64 or i386, not '$(ARCH)')
endif
ifneq ($(filter-out 0 1,$(WBINVD)),)
$(error WBINVD must be 0 or 1, not '$(WBINVD)')
endif
ifeq ($(shell echo '$(MAX_CPUS)' | grep -Ex '[1-9][0-9]*'),)
$(error MAX_CPUS must be a positive number, not '$(MAX_CPUS)')
endif
ifeq ($(shell echo '$(SLOW_TRAMP_NS)' | grep -Ex '[0-9]+'),)
$(error SLOW_TRAMP_NS must be a number of nanoseconds, not '$(SLOW_TRAMP_NS)')
endif
ifeq ($(shell echo '$(SLOW_PARK_NS)' | grep -Ex '[0-9]+'),)
$(error SLOW_PARK_NS must be a number of nanoseconds, not '$(SLOW_PARK_NS)')
endif
ifneq ($(filter-out 0 1,$(MARKS)),)
$(error MARKS must be 0 or 1, not '$(MARKS)')
endif
ifneq ($(filter-out real prot long park,$(PAD_AT)),)
$(error PAD_AT must be real, prot, long or park, not '$(PAD_AT)')
endif
ifeq ($(shell echo '$(PAD_INSNS)' | grep -Ex '[0-9]+'),)
$(error PAD_INSNS must be a number of instructions, not '$(PAD_INSNS)')
endif
ifneq ($(PAD_INSNS),0)
ifeq ($(strip $(PAD_AT)),)
$(error PAD_INSNS=$(PAD_INSNS) needs PAD_AT=real|prot|long|park)
endif
endif
PAD_REAL ?= $(if $(filter real,$(PAD_AT)),$(PAD_INSNS),0)
PAD_PROT ?= $(if $(filter prot,$(PAD_AT)),$(PAD_INSNS),0)
PAD_LONG ?= $(if $(filter long,$(PAD_AT)),$(PAD_INSNS),0)
PAD_PARK ?= $(if $(filter park,$(PAD_AT)),$(PAD_INSNS),0)
ifeq ($(shell echo '$(PAD_REAL) $(PAD_PROT) $(PAD_LONG) $(PAD_PARK)' | grep -Ex '[0-9]+ [0-9]+ [0-9]+ [0-9]+'),)
$(error PAD_REAL/PROT/LONG/PARK must be numbers of instructions)
endif
PAD_SUFFIX := $(if $(filter-out 0,$(PAD_REAL)),-padreal$(PAD_REAL))$(if $(filter-out 0,$(PAD_PROT)),-padprot$(PAD_PROT))$(if $(filter-out 0,$(PAD_LONG)),-padlong$(PAD_LONG))$(if $(filter-out 0,$(PAD_PARK)),-padpark$(PAD_PARK))

# The kernel's wings (docs/layout.md): all by default; WINGS= links the
# core alone, the minimal kernel (serial records only).
ALL_WINGS := screen nvram experiments selftest pstore
WINGS ?= $(ALL_WINGS)
override WINGS := $(strip $(WINGS))
ifneq ($(filter-out $(ALL_WINGS),$(WINGS)),)
$(error WINGS names no wing: $(filter-out $(ALL_WINGS),$(WINGS)) (the wings: $(ALL_WINGS)))
endif
WINGS_SUFFIX := $(if $(filter-out $(ALL_WINGS),$(ALL_WINGS) $(WINGS))$(filter-out $(WINGS),$(ALL_WINGS)),$(if $(WINGS),-wings-$(subst $(eval) ,+,$(WINGS)),-core))
VARIANT := $(if $(filter i386,$(ARCH)),i386-)wbinvd$(WBINVD)$(if $(filter-out 0,$(SLOW_TRAMP_NS)),-slow$(SLOW_TRAMP_NS))$(if $(filter-out 0,$(SLOW_PARK_NS)),-slowpark$(SLOW_PARK_NS))$(PAD_SUFFIX)$(if $(filter 0,$(MARKS)),-nomarks)$(if $(filter-out 512,$(MAX_CPUS)),-max$(MAX_CPUS))$(WINGS_SUFFIX)
OUT := build/$(VARIANT)
SLOW_SPIN := $(if $(filter-out 0,$(SLOW_TRAMP_NS)),1,0)

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
ARCH_ASM :=
ARCH_C_OUT :=
else
ARCH_CFLAGS := -m64 -mno-red-zone -mcmodel=small
NASM_FORMAT := elf64
LD_EMULATION := elf_x86_64
TRAMP_SRC_MAIN := realmode/trampoline.asm
ARCH_ASM := kernel/efi_call.asm
ARCH_C_OUT := kernel/libgcc32.c
endif

KCFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -ffreestanding -fno-pic -fno-pie \
	-fno-stack-protector -fno-asynchronous-unwind-tables -fno-builtin \
	-mgeneral-regs-only $(ARCH_CFLAGS) \
	-I. -MMD -MP \
	-DAPSTART_WBINVD=$(WBINVD) -DAPSTART_SLOW_TRAMP_NS=$(SLOW_TRAMP_NS) \
	-DAPSTART_SLOW_PARK_NS=$(SLOW_PARK_NS) -DAPSTART_PAD_PARK=$(PAD_PARK) \
	-DAPSTART_MAX_CPUS=$(MAX_CPUS) -DAPSTART_MARKS=$(MARKS) -DAPSTART_VERSION='"$(VERSION)"'
KLDFLAGS := -nostdlib -static -z max-page-size=0x1000 --no-warn-rwx-segments -z noexecstack \
	-m $(LD_EMULATION) -T linker.ld
# The trampoline's variant (its own defines: it is not compiled by gcc).
TRAMP_DEFS := -DWBINVD=$(WBINVD) -DSLOW_SPIN=$(SLOW_SPIN) \
	-DPAD_REAL=$(PAD_REAL) -DPAD_PROT=$(PAD_PROT) -DPAD_LONG=$(PAD_LONG) -DMARKS=$(MARKS)

# The core is what make WINGS= links (docs/layout.md): its folders, lib/
# by name (pure C the host tools build too); then each wing linked.
LIB_C := lib/format.c lib/keyword.c lib/phase_names.c lib/stats.c lib/string.c
KERNEL_C := $(filter-out %/asm_defs.c $(ARCH_C_OUT),$(wildcard app/*.c) $(wildcard smp/*.c) \
	$(wildcard kernel/*.c)) $(LIB_C) $(foreach w,$(WINGS),$(wildcard wings/$(w)/*.c))
KERNEL_ASM := boot/multiboot_header.asm boot/start.asm boot/cpu_floor.asm kernel/gdt.asm kernel/isr.asm $(ARCH_ASM)
KERNEL_OBJS := $(patsubst %.c,$(OUT)/%.o,$(KERNEL_C)) \
	$(patsubst %.asm,$(OUT)/%.o,$(KERNEL_ASM)) \
	$(OUT)/realmode/blob.o

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
$(OUT)/app/wing.o: $(foreach w,$(ABSENT_WINGS),$(wildcard wings/$(w)/*.c)) tools/build/kernel-options.awk

# Everything a kernel build in $(OUT) is made with: a folder named by
# another variant's name (OUT=..., make ab's build/ab/build-a) or another
# compiler rebuilds (tools/build/build-vars.mk).
KBUILD_VARS := $(OUT)/build.vars
VARS.$(OUT)/build = $(CC) $(KCFLAGS) | $(NASM) -f $(NASM_FORMAT) $(NASMFLAGS) $(TRAMP_DEFS) | $(LD) $(KLDFLAGS)

# A wing's generated objects (its wing.mk: WING_OBJS.NAME), linked with it.
include $(wildcard wings/*/wing.mk)
KERNEL_OBJS += $(foreach w,$(WINGS),$(WING_OBJS.$(w)))

# build/apstart.elf is always the variant just asked for, so it is copied
# every time (a timestamp rule would keep the other variant's newer copy).
kernel: $(OUT)/apstart.elf
	@cp $< build/apstart.elf
	@cp $< build/apstart-$(VARIANT).elf
	@echo "  built   build/apstart.elf = $< ($(ARCH), $(if $(filter 1,$(WBINVD)),WITH,without) WBINVD)"

# make variant: build/<variant>/apstart.elf for the variables given
# (ARCH, WBINVD, MAX_CPUS...), without kernel's copies. The other targets
# ask for a variant through BUILD_VARIANT, which builds it plain (no
# test-only spin or padding; x86_64, WBINVD=0, MAX_CPUS=512 unless named)
# whatever this make was called with:  @$(call BUILD_VARIANT,ARCH=i386 WBINVD=1)
.PHONY: variant
variant: $(OUT)/apstart.elf
	@:
BUILD_VARIANT = $(MAKE) --no-print-directory ARCH=x86_64 WBINVD=0 MAX_CPUS=512 MARKS=1 \
	SLOW_TRAMP_NS=0 SLOW_PARK_NS=0 PAD_INSNS=0 PAD_AT= PAD_REAL=0 PAD_PROT=0 \
	PAD_LONG=0 PAD_PARK=0 WINGS='$(ALL_WINGS)' $(1) variant

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

# tools.mk first: it names the kernel files host programs share (KSTATS_SRC).
# The wings' own build rules: the host tools, the runners, the image.
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
include tools/linux/linux.mk
include tools/flushmodel/flushmodel.mk
include tools/dev/dev.mk
# The lanes of make test (tests/lanes), each with its rules beside its
# tests in tests/FOLDER/lane.mk: a missing one stops make. Then the long
# runs that are not lanes.
LANE_FOLDERS := $(shell grep -v '^[[:punct:]]' tests/lanes | awk 'NF { print $$2 }' | sort -u)
include $(addprefix tests/,$(addsuffix /lane.mk,$(LANE_FOLDERS)))
include tests/chroot/lane.mk tests/soak/lane.mk

# make ab: both variants, RUNS boots each in randomised pairs, the table
# and its verdict (tools/run/ab.sh; docs/verdicts.md). AB_A/AB_B: each
# side's make variables (AB_A=WBINVD=0 AB_B=WBINVD=0: an A/A).
RUNS ?= 10
AB_A ?= WBINVD=1
AB_B ?= WBINVD=0
AB_OUT ?= build/ab
AB_ARCH = $(if $(filter i386,$(ARCH)),ARCH=i386)
# Under TCG one host thread for all vCPUs: far less run-to-run spread.
TCG_THREAD ?= single
# Its exit status (0 a verdict, 1 a failed run, 2 no verdict) reaches the
# shell as make run's does (tools/run/exit-status.mk).
.PHONY: ab
AB_PREREQS := deps $(APLOG) $(if $(strip $(FLUSH)),flushmodel)
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
# (tests/run-all.sh): no two lanes may build the same file at once.
.PHONY: test-prep
test-prep: deps
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,WBINVD=1)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=1)
	@$(MAKE) --no-print-directory $(APLOG) $(APLOG_ASAN) $(APSTART_EFI) $(ISO) \
		$(ISO_TEST_IMAGES) $(ISO_TEST_EFI) $(VARSTORE) $(SCREENTEXT) $(PPMCHECK) flushmodel
	@# Debian's kernel for the Linux VM lanes (kexec, linux-hotplug, linux-vm):
	@# fetched once; without the mirror each of those lanes says so and skips.
	@tools/linux/vm/fetch.sh >/dev/null 2>&1 || echo "test-prep: Debian's kernel not fetched (the Linux VM lanes will say why)"

clean:
	rm -rf build
