# SPDX-License-Identifier: MIT
# Developer conveniences, included from the top-level Makefile after the
# kernel rules (it uses $(OUT), $(WBINVD), $(SLOW_SPIN)):
#
#   make help                   every target and variable, one line each
#                               (tools/help.txt)
#   make debug [...]            QEMU (TCG) paused with its gdb server, and gdb
#                               with the kernel's symbols and the trampoline
#                               blob's at its run-time address (tools/debug.sh)
#   make trampoline-elf         the blob as an ELF with symbols, alone
#   make compile_commands.json  compilation database for clangd, from a dry
#                               run of the real build (tools/compile-commands.sh)
ifndef DEV_MK_INCLUDED
DEV_MK_INCLUDED := 1

# Rules here never change the includer's default goal.
DEV_SAVED_GOAL := $(.DEFAULT_GOAL)
DEV_Q := $(if $(filter 1,$(V)),,@)

.PHONY: help

help:
	@cat tools/help.txt

.DEFAULT_GOAL := $(DEV_SAVED_GOAL)
endif
