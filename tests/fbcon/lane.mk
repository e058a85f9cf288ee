# SPDX-License-Identifier: MIT
# Host tests for wings/screen/fbcon.c and tools/build/mkfont (make fbcon-tests).
# Include from the top-level Makefile; paths are relative to the repo root.
ifndef FBT_MK_INCLUDED
FBT_MK_INCLUDED := 1

include tools/build/font.mk

FBT_CC ?= gcc
FBT_CFLAGS ?= $(HOST_CFLAGS) $(HOST_DEBUG) $(HOST_SAN)
FBT_BIN := build/host/test_fbcon
FBT_SRCS := tests/fbcon/test_fbcon.c wings/screen/fbcon.c $(FONT_GEN)
FBT_TIMEOUT ?= 300

# The compiler and flags it is built with (tools/build/build-vars.mk).
VARS.$(FBT_BIN) = $(FBT_CC) $(FBT_CFLAGS)
$(FBT_BIN): $(FBT_SRCS) wings/screen/fbcon.h kernel/multiboot.h tests/fbcon/lane.mk $(FBT_BIN).vars
	@mkdir -p $(dir $@)
	$(FBT_CC) $(FBT_CFLAGS) -I. -o $@ $(FBT_SRCS)

.PHONY: fbcon-tests
fbcon-tests: $(FBT_BIN) $(FONT_TOOL)
	timeout $(FBT_TIMEOUT) $(FBT_BIN) $(FONT_TOOL) $(FONT_PF2)

endif
