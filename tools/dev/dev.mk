# SPDX-License-Identifier: MIT
# Developer conveniences, included from the top-level Makefile after the
# kernel rules (it uses $(OUT), $(NASMFLAGS), $(TRAMP_DEFS)):
#
#   make help                   every target and variable, one line each
#                               (tools/dev/help.txt; the kernel's knobs from
#                               tools/build/knobs.mk, tools/dev/help.sh)
#   make debug [...]            QEMU (TCG) paused with its gdb server, and gdb
#                               with the kernel's symbols and the trampoline
#                               blob's at its run-time address (tools/dev/debug.sh)
#   make trampoline-elf         the blob as an ELF with symbols, alone
#   make compile_commands.json  compilation database for clangd, from a dry
#                               run of the real build (tools/dev/compile-commands.sh)
ifndef DEV_MK_INCLUDED
DEV_MK_INCLUDED := 1

# Rules here never change the includer's default goal.
DEV_SAVED_GOAL := $(.DEFAULT_GOAL)
DEV_Q := $(if $(filter 1,$(V)),,@)

.PHONY: help debug trampoline-elf compile_commands.json

help:
	@tools/dev/help.sh tools/dev/help.txt $(knob_help)

# ---- make debug
DEBUG_SMP ?= 2
DEBUG_PORT ?= 1234
DEBUG_TIMEOUT ?= 900
DEBUG_GDB ?= gdb
DEBUG_BATCH ?=
# The kernel function that copies the blob; its first argument is the page.
DEBUG_TRAMP_INSTALL ?= trampoline_install

# The blob as an ELF with symbols and DWARF lines: the same source and
# flags as the flat blob, as elf64 (elf32 for ARCH=i386), linked at 0. It must hold exactly the
# flat blob's bytes, or its symbols would lie: checked on every build.
TRAMP_SRC ?= $(TRAMP_SRC_MAIN)
TRAMP_ELF := $(OUT)/trampoline.elf
TRAMP_ELF_NASMFLAGS = $(NASMFLAGS) $(TRAMP_DEFS)

trampoline-elf: $(TRAMP_ELF)

# After the flat blob: its build makes the generated includes, and knows
# which sources it depends on.
$(OUT)/trampoline-elf.o: $(OUT)/trampoline.bin $(TRAMP_SRC) tools/dev/debug/flat-as-elf.inc \
		tools/dev/dev.mk
	@mkdir -p $(@D)
	@echo "  NASM    $@"
	$(DEV_Q)$(or $(NASM),nasm) -f $(NASM_FORMAT) -g -F dwarf -P tools/dev/debug/flat-as-elf.inc \
		$(TRAMP_ELF_NASMFLAGS) -o $@ $(TRAMP_SRC)

$(TRAMP_ELF): $(OUT)/trampoline-elf.o $(OUT)/trampoline.bin
	@echo "  LD      $@"
	$(DEV_Q)$(or $(LD),ld) -m $(LD_EMULATION) -Ttext=0 -e 0 -o $@ $(OUT)/trampoline-elf.o
	$(DEV_Q)objcopy -O binary -j .text $@ $@.bytes
	$(DEV_Q)if ! cmp -s $@.bytes $(OUT)/trampoline.bin; then \
		echo "$@: its code differs from $(OUT)/trampoline.bin (flags or source out of step?)"; \
		rm -f $@ $@.bytes; exit 1; fi
	@rm -f $@.bytes

debug: $(OUT)/apstart.elf $(TRAMP_ELF)
	@tools/dev/debug.sh --kernel $(OUT)/apstart.elf --tramp-elf $(TRAMP_ELF) \
		--listing $(OUT)/trampoline.lst --install '$(DEBUG_TRAMP_INSTALL)' \
		--port '$(DEBUG_PORT)' --timeout '$(DEBUG_TIMEOUT)' --smp '$(DEBUG_SMP)' \
		--gdb '$(DEBUG_GDB)' $(if $(DEBUG_BATCH),--batch '$(DEBUG_BATCH)') \
		-- '$(subst ','\'',$(ARGS))'

# ---- make compile_commands.json
# What to describe: the kernel (first, so kernel files get its flags) and
# every host program.
COMPDB_TARGETS = $(OUT)/apstart.elf $(APLOG) $(UNIT_DIR)/unit_tests $(FBT_BIN) \
	$(FONT_TOOL) $(PPMCHECK) $(LH) $(LH_SHIM) $(LH_TRACESHIM) $(FLUSHMODEL_SO) $(FLUSHMODEL_ARGS) \
	$(FLUSHMODEL_TEST) $(FLUSHMODEL_WHERE_TEST) $(FLUSHMODEL_PROBE_TEST) $(if $(QRT_DIR),$(QRT_DIR)/test_qr $(QRT_DIR)/qrtool) \
	$(EFI_OUT)/apstart.so $(VARSTORE)

compile_commands.json:
	@mkdir -p build
	$(DEV_Q)$(MAKE) --no-print-directory -n -B V=1 $(COMPDB_TARGETS) >build/compdb.cmds
	@# kernel/libgcc32.c is built only for ARCH=i386: its entry from that build.
	$(DEV_Q)$(MAKE) --no-print-directory -n -B V=1 ARCH=i386 build/i386-wbinvd0/kernel/libgcc32.o \
		>>build/compdb.cmds
	$(DEV_Q)tools/dev/compile-commands.sh <build/compdb.cmds >$@.new
	@mv -f $@.new $@
	@echo "  wrote $@ ($$(grep -c '"file"' $@) files)"

.DEFAULT_GOAL := $(DEV_SAVED_GOAL)
endif
