# SPDX-License-Identifier: MIT
# Build-time font: build/host/mkfont (tools/build/mkfont.c) turns GRUB's
# Unifont PF2 (Debian package grub-common) into build/gen/font8x16.c,
# which the kernel links for its framebuffer console.
# Include from the top-level Makefile; paths are relative to the repo root.
ifndef FONT_MK_INCLUDED
FONT_MK_INCLUDED := 1

FONT_HOSTCC ?= gcc
FONT_HOSTCFLAGS ?= $(HOST_CFLAGS) $(HOST_OPT)
# First existing default; empty lets mkfont report the missing package.
FONT_PF2 ?= $(firstword $(wildcard /usr/share/grub/ascii.pf2 /usr/share/grub/unicode.pf2))

include tools/build/build-vars.mk
FONT_TOOL := build/host/mkfont
FONT_GEN := build/gen/font8x16.c
# What they are made with (tools/build/build-vars.mk): the compiler, the font.
VARS.$(FONT_TOOL) = $(FONT_HOSTCC) $(FONT_HOSTCFLAGS)
VARS.$(FONT_GEN) = $(FONT_PF2)

$(FONT_TOOL): tools/build/mkfont.c tools/build/font.mk $(FONT_TOOL).vars
	@mkdir -p $(dir $@)
	$(FONT_HOSTCC) $(FONT_HOSTCFLAGS) -o $@ $<

$(FONT_GEN): $(FONT_TOOL) $(wildcard $(FONT_PF2)) $(FONT_GEN).vars
	@mkdir -p $(dir $@)
	$(FONT_TOOL) $(FONT_PF2) $@

endif
