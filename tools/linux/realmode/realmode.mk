# SPDX-License-Identifier: MIT
# aprealmode: Linux's realmode blob from a kernel image or build tree, as
# an LRM file for the kernel's trampoline=linux (docs/linux-trampoline.md).
# Included from the top-level Makefile.
#   build/host/aprealmode        the command (make install puts it in bin/)
#   build/host/aprealmode_asan   ASan + UBSan, for the tests
#   make realmode-tests          its lane (tests/realmode/lane.mk)
AP_RM_SAVED_GOAL := $(.DEFAULT_GOAL)

AP_RM_DIR := tools/linux/realmode
# The blob's check and the LRM file are the kernel's own (one source).
AP_RM_SHARED := wings/linux_trampoline/lrm_blob.c wings/linux_trampoline/lrm_file.c \
	lib/format.c lib/sha256.c
AP_RM_SRCS := $(sort $(wildcard $(AP_RM_DIR)/*.c)) $(AP_RM_SHARED)
AP_RM_DEPS := $(AP_RM_SRCS) $(wildcard $(AP_RM_DIR)/*.h) $(wildcard wings/linux_trampoline/*.h) \
	lib/format.h lib/sha256.h lib/bytes.h lib/kstring.h $(AP_RM_DIR)/realmode.mk
APREALMODE := build/host/aprealmode
APREALMODE_ASAN := build/host/aprealmode_asan
AP_RM_CC ?= gcc
AP_RM_CFLAGS := $(HOST_CFLAGS) $(HOST_OPT)
AP_RM_ASAN_CFLAGS := $(HOST_CFLAGS) $(HOST_DEBUG) $(HOST_SAN)
include tools/build/build-vars.mk
VARS.build/host/aprealmode = $(AP_RM_CC) $(AP_RM_CFLAGS) | $(AP_RM_ASAN_CFLAGS)

.PHONY: aprealmode
aprealmode: $(APREALMODE)

$(APREALMODE): $(AP_RM_DEPS) build/host/aprealmode.vars
	@mkdir -p $(@D)
	$(AP_RM_CC) $(AP_RM_CFLAGS) -o $@ $(AP_RM_SRCS)

$(APREALMODE_ASAN): $(AP_RM_DEPS) build/host/aprealmode.vars
	@mkdir -p $(@D)
	$(AP_RM_CC) $(AP_RM_ASAN_CFLAGS) -o $@ $(AP_RM_SRCS)

.DEFAULT_GOAL := $(AP_RM_SAVED_GOAL)
