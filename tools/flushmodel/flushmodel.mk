# SPDX-License-Identifier: MIT
# flushmodel: QEMU TCG plugin that charges WBINVD/INVD a modelled cost
# (tools/flushmodel/README.md). Included from the top-level Makefile;
# paths are relative to the repository root. Variables are FLUSHMODEL_-prefixed.
#
#   flushmodel          build/host/flushmodel.so + build/host/flushmodel-args
#   flushmodel-tests    the test lane (tests/flushmodel/run.sh)
#   seed-table          the reference table in emulation: both variants,
#                       interleaved, under the model (SMP=, FLUSH=, CYCLES=, ROUNDS=)

FLUSHMODEL_SAVED_GOAL := $(.DEFAULT_GOAL)

FLUSHMODEL_DIR := tools/flushmodel
FLUSHMODEL_SO := build/host/flushmodel.so
FLUSHMODEL_ARGS := build/host/flushmodel-args
FLUSHMODEL_TEST := build/host/flushmodel_test
FLUSHMODEL_TEST_ASAN := build/host/flushmodel_test_asan
# Host compiler: not $(CC), which may be set for the kernel.
FLUSHMODEL_CC ?= gcc
include tools/build/build-vars.mk
FLUSHMODEL_CFLAGS := $(HOST_CFLAGS) $(HOST_OPT)
FLUSHMODEL_ASAN_CFLAGS := $(HOST_CFLAGS) $(HOST_DEBUG) $(HOST_SAN)
FLUSHMODEL_DEPS := $(FLUSHMODEL_DIR)/model.c $(FLUSHMODEL_DIR)/model.h \
	$(FLUSHMODEL_DIR)/dirty_track.c $(FLUSHMODEL_DIR)/dirty_track.h \
	$(FLUSHMODEL_DIR)/preset_file.c $(FLUSHMODEL_DIR)/preset_file.h \
	$(FLUSHMODEL_DIR)/disturb.c $(FLUSHMODEL_DIR)/disturb.h \
	$(FLUSHMODEL_DIR)/flushmodel.mk
FLUSHMODEL_TEST_DEPS := $(FLUSHMODEL_DEPS) $(FLUSHMODEL_DIR)/test_check.h
# free=/only= address ranges (where.h): separate from the cost model.
FLUSHMODEL_WHERE := $(FLUSHMODEL_DIR)/where.c $(FLUSHMODEL_DIR)/where.h
FLUSHMODEL_WHERE_TEST := build/host/flushmodel_where_test

FLUSHMODEL_PROBE_SRCS := $(FLUSHMODEL_DIR)/test_probe_model.c $(FLUSHMODEL_DIR)/model.c \
	$(FLUSHMODEL_DIR)/dirty_track.c $(FLUSHMODEL_DIR)/preset_file.c
FLUSHMODEL_PROBE_TEST := build/host/flushmodel_probe_test
FLUSHMODEL_PROBE_TEST_ASAN := build/host/flushmodel_probe_test_asan
# The compiler and flags all of them are built with (tools/build/build-vars.mk).
FLUSHMODEL_VARS := build/host/flushmodel.vars
VARS.build/host/flushmodel = $(FLUSHMODEL_CC) $(FLUSHMODEL_CFLAGS) | $(FLUSHMODEL_ASAN_CFLAGS)

.PHONY: flushmodel flushmodel-tests seed-table flushprobe-tests flushprobe-long

flushmodel: $(FLUSHMODEL_SO) $(FLUSHMODEL_ARGS)

# A shared object QEMU dlopen()s: the qemu_plugin_* functions it calls are
# left undefined here and resolved from the QEMU binary at load time.
$(FLUSHMODEL_SO): $(FLUSHMODEL_DIR)/flushmodel.c $(FLUSHMODEL_DIR)/plugin-api.h $(FLUSHMODEL_DEPS) $(FLUSHMODEL_WHERE) $(FLUSHMODEL_VARS)
	@mkdir -p $(dir $@)
	$(FLUSHMODEL_CC) $(FLUSHMODEL_CFLAGS) -fPIC -fvisibility=hidden -pthread -shared \
		-o $@ $(FLUSHMODEL_DIR)/flushmodel.c $(FLUSHMODEL_DIR)/model.c $(FLUSHMODEL_DIR)/where.c \
		$(FLUSHMODEL_DIR)/dirty_track.c $(FLUSHMODEL_DIR)/preset_file.c \
		$(FLUSHMODEL_DIR)/disturb.c -lm

$(FLUSHMODEL_ARGS): $(FLUSHMODEL_DIR)/args.c $(FLUSHMODEL_DEPS) $(FLUSHMODEL_WHERE) $(FLUSHMODEL_VARS)
	@mkdir -p $(dir $@)
	$(FLUSHMODEL_CC) $(FLUSHMODEL_CFLAGS) -o $@ $(FLUSHMODEL_DIR)/args.c $(FLUSHMODEL_DIR)/model.c $(FLUSHMODEL_DIR)/where.c \
		$(FLUSHMODEL_DIR)/preset_file.c -lm

$(FLUSHMODEL_WHERE_TEST): $(FLUSHMODEL_DIR)/test_where.c $(FLUSHMODEL_WHERE) $(FLUSHMODEL_DIR)/test_check.h \
		$(FLUSHMODEL_DIR)/flushmodel.mk $(FLUSHMODEL_VARS)
	@mkdir -p $(dir $@)
	$(FLUSHMODEL_CC) $(FLUSHMODEL_ASAN_CFLAGS) -o $@ $(FLUSHMODEL_DIR)/test_where.c $(FLUSHMODEL_DIR)/where.c

$(FLUSHMODEL_TEST): $(FLUSHMODEL_DIR)/test_model.c $(FLUSHMODEL_TEST_DEPS) $(FLUSHMODEL_VARS)
	@mkdir -p $(dir $@)
	$(FLUSHMODEL_CC) $(FLUSHMODEL_CFLAGS) -o $@ $(FLUSHMODEL_DIR)/test_model.c $(FLUSHMODEL_DIR)/model.c -lm

$(FLUSHMODEL_TEST_ASAN): $(FLUSHMODEL_DIR)/test_model.c $(FLUSHMODEL_TEST_DEPS) $(FLUSHMODEL_VARS)
	@mkdir -p $(dir $@)
	$(FLUSHMODEL_CC) $(FLUSHMODEL_ASAN_CFLAGS) -o $@ $(FLUSHMODEL_DIR)/test_model.c $(FLUSHMODEL_DIR)/model.c -lm

$(FLUSHMODEL_PROBE_TEST): $(FLUSHMODEL_PROBE_SRCS) $(FLUSHMODEL_TEST_DEPS) $(FLUSHMODEL_VARS)
	@mkdir -p $(dir $@)
	$(FLUSHMODEL_CC) $(FLUSHMODEL_CFLAGS) -o $@ $(FLUSHMODEL_PROBE_SRCS) -lm

$(FLUSHMODEL_PROBE_TEST_ASAN): $(FLUSHMODEL_PROBE_SRCS) $(FLUSHMODEL_TEST_DEPS) $(FLUSHMODEL_VARS)
	@mkdir -p $(dir $@)
	$(FLUSHMODEL_CC) $(FLUSHMODEL_ASAN_CFLAGS) -o $@ $(FLUSHMODEL_PROBE_SRCS) -lm

seed-table: deps flushmodel aplog
	@$(call BUILD_VARIANT,WBINVD=0) >/dev/null
	@$(call BUILD_VARIANT,WBINVD=1) >/dev/null
	@$(FLUSHMODEL_DIR)/seed-table.sh --smp '$(SMP)' --flush '$(or $(strip $(FLUSH)),xeon6985p)' \
		$(if $(CYCLES),--cycles '$(CYCLES)') $(if $(ROUNDS),--rounds '$(ROUNDS)') \
		--timeout $(TIMEOUT) -- '$(subst ','\'',$(ARGS))'

.DEFAULT_GOAL := $(FLUSHMODEL_SAVED_GOAL)
