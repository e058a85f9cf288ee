# apstart: build, run under QEMU, test.
#   make [WBINVD=0|1]            kernel -> build/apstart.elf (+ per-variant copy)
#   make run SMP=N ARGS="..."    boot it under QEMU (KVM if usable, else TCG);
#                                exit 0 pass, 1 fail, 2 no verdict (tools/run.mk)
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

VARIANT := $(if $(filter i386,$(ARCH)),i386-)wbinvd$(WBINVD)$(if $(filter-out 0,$(SLOW_TRAMP_NS)),-slow$(SLOW_TRAMP_NS))$(if $(filter-out 0,$(SLOW_PARK_NS)),-slowpark$(SLOW_PARK_NS))$(PAD_SUFFIX)$(if $(filter-out 512,$(MAX_CPUS)),-max$(MAX_CPUS))
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
	-DAPSTART_MAX_CPUS=$(MAX_CPUS) -DAPSTART_VERSION='"$(VERSION)"'
KLDFLAGS := -nostdlib -static -z max-page-size=0x1000 --no-warn-rwx-segments -z noexecstack \
	-m $(LD_EMULATION) -T linker.ld

KERNEL_C := $(filter-out %/asm_defs.c $(ARCH_C_OUT),$(wildcard app/*.c) $(wildcard smp/*.c) $(wildcard kernel/*.c) $(wildcard lib/*.c))
KERNEL_ASM := boot/multiboot_header.asm boot/start.asm kernel/gdt.asm kernel/isr.asm $(ARCH_ASM)
KERNEL_OBJS := $(patsubst %.c,$(OUT)/%.o,$(KERNEL_C)) \
	$(patsubst %.asm,$(OUT)/%.o,$(KERNEL_ASM)) \
	$(OUT)/realmode/blob.o $(OUT)/gen/font8x16.o

.PHONY: all kernel test clean deps deps-check unit-tests trampoline-check qemu-tests timing-tests tscskew-tests baseline soak
# make builds only: a missing build tool is named (deps-check), never installed.
all: deps-check kernel

include tools/font.mk

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
BUILD_VARIANT = $(MAKE) --no-print-directory ARCH=x86_64 WBINVD=0 MAX_CPUS=512 \
	SLOW_TRAMP_NS=0 SLOW_PARK_NS=0 PAD_INSNS=0 PAD_AT= PAD_REAL=0 PAD_PROT=0 \
	PAD_LONG=0 PAD_PARK=0 $(1) variant

$(OUT)/apstart.elf: $(KERNEL_OBJS) linker.ld
	@echo "  LD      $@"
	$(Q)$(LD) $(KLDFLAGS) -o $@ $(KERNEL_OBJS)

$(OUT)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	$(Q)$(CC) $(KCFLAGS) -c -o $@ $<

$(OUT)/gen/font8x16.o: $(FONT_GEN)
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) -c -o $@ $<

# Constants the assembly takes from C, so that each has one definition:
# <layer>/asm_defs.c is compiled to assembly and its markers become NASM
# %defines in $(OUT)/gen/<layer>/asm_defs.inc (see kernel/asm_defs.h).
ASM_DEFS := $(OUT)/gen/kernel/asm_defs.inc $(OUT)/gen/realmode/asm_defs.inc
NASMFLAGS := -I./ -I$(OUT)/gen/ -DARCH_$(ARCH)

$(OUT)/gen/%/asm_defs.inc: %/asm_defs.c Makefile
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)$(CC) $(KCFLAGS) -MT $@ -MF $(@:.inc=.d) -S -o $(@:.inc=.s) $<
	$(Q){ echo "; generated from $< by the Makefile: edit the C headers it includes"; \
	  sed -n 's/^[[:space:]]*\.ascii[[:space:]]*"->\([A-Za-z0-9_]*\) \$$\{0,1\}\(-\{0,1\}[0-9][0-9]*\)"$$/%define \1 \2/p' \
		$(@:.inc=.s); } >$@.tmp
	$(Q)grep -q '^%define' $@.tmp || { echo "$<: no constants found in $(@:.inc=.s)"; exit 1; }
	$(Q)mv $@.tmp $@

$(OUT)/%.o: %.asm Makefile | $(ASM_DEFS)
	@mkdir -p $(dir $@)
	@echo "  NASM    $@"
	$(Q)$(NASM) $(NASMFLAGS) -M -MF $(@:.o=.d) -MT $@ -MP $<
	$(Q)$(NASM) -f $(NASM_FORMAT) $(NASMFLAGS) -o $@ $<

# The trampoline: a flat binary, one per variant, embedded with incbin.
# (NASM 2.16's -MD leaves out the included files: dependencies come from
# a separate -M pass.)
$(OUT)/trampoline.bin: $(TRAMP_SRC_MAIN) Makefile | $(ASM_DEFS)
	@mkdir -p $(dir $@)
	$(Q)$(NASM) $(NASMFLAGS) -M -MF $(OUT)/trampoline.d -MT $@ -MP $<
	$(NASM) -f bin $(NASMFLAGS) -DWBINVD=$(WBINVD) -DSLOW_SPIN=$(SLOW_SPIN) \
		-DPAD_REAL=$(PAD_REAL) -DPAD_PROT=$(PAD_PROT) -DPAD_LONG=$(PAD_LONG) \
		-l $(OUT)/trampoline.lst -o $@ $<
	@size=$$(stat -c %s $@); if [ $$size -gt 4096 ]; then \
		echo "trampoline is $$size bytes: must fit in one 4 KiB page"; rm -f $@; exit 1; fi

$(OUT)/realmode/blob.o: realmode/blob.asm $(OUT)/trampoline.bin
	@mkdir -p $(dir $@)
	$(NASM) -f $(NASM_FORMAT) -DTRAMPOLINE_BIN='"$(OUT)/trampoline.bin"' -o $@ $<

-include $(KERNEL_OBJS:.o=.d) $(ASM_DEFS:.inc=.d) $(OUT)/trampoline.d

# Install the packages of tools/packages.list (root: apt-get; else the command).
deps:
	@tools/deps.sh

deps-check:
	@tools/deps.sh --check build

# Long, not in make test: do the verdicts hold? A/A and A/B repetitions of
# make ab and of the wall-clock gate (tests/verdicts/calibrate.sh).
.PHONY: verdict-calibration
verdict-calibration: deps
	@tests/verdicts/calibrate.sh

# tools.mk first: it names the kernel files host programs share (KSTATS_SRC).
include tools/tools.mk
include tools/run.mk
-include tests/unit/unit.mk
-include tests/unit-fbcon/fbcon.mk
-include tests/qr/qr.mk
-include tests/usb/usb.mk
-include tests/layers/layers.mk
-include tests/madt/madt.mk
-include tests/docs/docs.mk
-include tests/chroot/chroot.mk
-include tests/fuzz/fuzz.mk
-include tests/tools/tools-tests.mk
-include tests/fleet/fleet.mk
-include tests/kexec/kexec.mk
include tools/linux-hotplug/linux-hotplug.mk
include boot/efi/efi.mk
include tools/iso.mk
include tools/netboot.mk
include tools/lava/lava.mk
include tools/linux/linux.mk
-include tests/bochs/bochs.mk
include tools/flushmodel/flushmodel.mk
include tools/dev.mk
include tests/efi/efi-tests.mk

# make ab: both variants, RUNS boots each in randomised pairs, the table
# and its verdict (tools/ab.sh; docs/verdicts.md). AB_A/AB_B: each
# side's make variables (AB_A=WBINVD=0 AB_B=WBINVD=0: an A/A).
RUNS ?= 10
AB_A ?= WBINVD=1
AB_B ?= WBINVD=0
AB_ARCH = $(if $(filter i386,$(ARCH)),ARCH=i386)
# Under TCG one host thread for all vCPUs: far less run-to-run spread.
TCG_THREAD ?= single
.PHONY: ab
ab: deps $(APLOG) $(if $(strip $(FLUSH)),flushmodel)
	@tools/ab.sh --runs '$(RUNS)' --a '$(AB_ARCH) $(AB_A)' --b '$(AB_ARCH) $(AB_B)' --tcg-thread '$(TCG_THREAD)' \
		--smp '$(SMP)' --accel $(ACCEL) --machine $(MACHINE) --timeout $(TIMEOUT) \
		$(FLUSH_OPT) $(QEMU_ARCH_OPTS) -- '$(subst ','\'',$(ARGS))'

trampoline-check:
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,WBINVD=1)
	@tests/trampoline/check.sh build/wbinvd0/trampoline.bin 0 build/wbinvd0/apstart.elf
	@tests/trampoline/check.sh build/wbinvd1/trampoline.bin 1 build/wbinvd1/apstart.elf
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=1)
	@tests/trampoline/check.sh --arch i386 build/i386-wbinvd0/trampoline.bin 0 build/i386-wbinvd0/apstart.elf
	@tests/trampoline/check.sh --arch i386 build/i386-wbinvd1/trampoline.bin 1 build/i386-wbinvd1/apstart.elf

qemu-tests: $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,WBINVD=1)
	@$(call BUILD_VARIANT,WBINVD=0 MAX_CPUS=4)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=1)
	@APLOG=$(APLOG) tests/qemu/matrix.sh

timing-tests: deps
	@tests/timing/run.sh

# A TSC-skewed AP prints na (Bochs and KVM honour WRMSR IA32_TSC; TCG not).
tscskew-tests: deps $(APLOG)
	@APLOG=$(APLOG) tests/tscskew/run.sh

# Long run, not in make test: 1000 offline/online cycles on every AP at
# -smp 8; no CPU may be lost.
soak: deps $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0)
	@APLOG=$(APLOG) tests/soak/run.sh build/wbinvd0/apstart.elf 1000 8

# Long run, not in make test: serial vs parallel bring-up at -smp 8, 64,
# 255 under TCG, with the targets of issue 9 and a plot (tools/bench-scale.sh).
BENCH_NS ?= 8 64 255
BENCH_CYCLES ?= 3
BENCH_TIMEOUT ?= 1800
BENCH_TCG ?= multi
.PHONY: bench-scale
bench-scale: deps $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0)
	@BENCH_CYCLES='$(BENCH_CYCLES)' BENCH_TIMEOUT='$(BENCH_TIMEOUT)' BENCH_TCG='$(BENCH_TCG)' \
		tools/bench-scale.sh $(BENCH_NS)

# Rewrite tests/baselines/ from fresh runs and show what changed.
baseline: deps
	@tests/timing/run.sh --update

test: deps
	@tests/run-all.sh

clean:
	rm -rf build
