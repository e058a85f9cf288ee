# SPDX-License-Identifier: MIT
# tools/linux/hotplug: times Linux's own CPU hotplug (README, "Compare with
# Linux on your machine"). Included from the top-level Makefile.
#   build/host/linux-hotplug        static: copy it into any initramfs
#   build/host/linux-hotplug_asan   ASan + UBSan (dynamic), for the tests
#   build/host/failwrite.so         test shim: write errors on chosen files
#   build/host/faketrace.so         test shim: a fake tracefs (--trace tests)

# Defined before any rule here so including this file never changes the
# includer's default goal.
LH_SAVED_GOAL := $(.DEFAULT_GOAL)

LH_DIR := tools/linux/hotplug
# Its statistics are the kernel's (lib/stats.c, aplog.mk's KSTATS_SRC).
LH_SRC := $(wildcard $(LH_DIR)/*.c) $(KSTATS_SRC)
LH_HDR := $(wildcard $(LH_DIR)/*.h) $(KSTATS_HDR)
LH := build/host/linux-hotplug
LH_ASAN := build/host/linux-hotplug_asan
LH_SHIM := build/host/failwrite.so
LH_TRACESHIM := build/host/faketrace.so
# Host compiler: deliberately not $(CC), which may be set for the kernel.
LH_CC ?= gcc
LH_CFLAGS := $(HOST_CFLAGS) $(HOST_OPT)
LH_ASAN_CFLAGS := $(HOST_CFLAGS) $(HOST_DEBUG) $(HOST_SAN)
# The compiler and flags all of them are built with (tools/build/build-vars.mk).
include tools/build/build-vars.mk
LH_VARS := build/host/linux-hotplug.vars
VARS.build/host/linux-hotplug = $(LH_CC) $(LH_CFLAGS) | $(LH_ASAN_CFLAGS)

.PHONY: linux-hotplug linux-hotplug-tests

linux-hotplug: $(LH)

$(LH): $(LH_SRC) $(LH_HDR) $(LH_DIR)/linux-hotplug.mk $(LH_VARS)
	@mkdir -p $(dir $@)
	$(LH_CC) $(LH_CFLAGS) -static -o $@ $(LH_SRC)

$(LH_ASAN): $(LH_SRC) $(LH_HDR) $(LH_DIR)/linux-hotplug.mk $(LH_VARS)
	@mkdir -p $(dir $@)
	$(LH_CC) $(LH_ASAN_CFLAGS) -o $@ $(LH_SRC)

$(LH_SHIM): tests/linux-hotplug/failwrite.c $(LH_DIR)/linux-hotplug.mk $(LH_VARS)
	@mkdir -p $(dir $@)
	$(LH_CC) $(HOST_CFLAGS) $(HOST_OPT) -shared -fPIC -o $@ $< -ldl

$(LH_TRACESHIM): tests/linux-hotplug/faketrace.c $(LH_DIR)/linux-hotplug.mk $(LH_VARS)
	@mkdir -p $(dir $@)
	$(LH_CC) $(HOST_CFLAGS) $(HOST_OPT) -shared -fPIC -o $@ $< -ldl

# make bench-linux [SMP=8] [CYCLES=10] [ROUNDS=3]: Linux's hotplug (Debian's
# kernel under QEMU), traced state by state, 2 x ROUNDS runs with
# rcu_expedited 0/1 alternating, and apstart on the same configuration.
# make bench-linux FLUSH=xeon6985p [CYCLES=2] [ROUNDS=5]: Linux alone,
# ROUNDS x 2 boots interleaved, every WBINVD charged by the flush model,
# then the trampoline's free: the patch emulated (docs/linux-trace.md).
# TCG_THREAD (single by default, as for make ab): one host thread for all
# vCPUs, far less spread on a busy host; multi: one thread each.
# CYCLES defaults to 10 (2 with FLUSH) for this target only: make
# seed-table reads the same variable and defaults to 1.
# Its exit status (0, 1 a boot or table failed, 2 no verdict) reaches
# the shell as make run's does (tools/run/exit-status.mk).
LINUX_TIMEOUT ?= 900
.PHONY: bench-linux
BENCH_LINUX_PREREQS := deps $(LH) aplog $(if $(strip $(FLUSH)),flushmodel)
BENCH_LINUX_CMD = $(if $(strip $(FLUSH)),true,$(call BUILD_VARIANT,WBINVD=1)) && \
	tools/linux/vm/bench.sh --smp '$(SMP)' --cycles '$(or $(CYCLES),$(if $(strip $(FLUSH)),2,10))' \
	--accel '$(ACCEL)' --machine '$(MACHINE)' --timeout '$(LINUX_TIMEOUT)' --wbinvd 1 \
	--tcg-thread '$(TCG_THREAD)' $(if $(ROUNDS),--rounds '$(ROUNDS)') \
	$(if $(strip $(FLUSH)),--flush '$(subst ','\'',$(strip $(FLUSH)))')
$(eval $(call EXIT_STATUS_GOAL,bench-linux,BENCH_LINUX_PREREQS,BENCH_LINUX_CMD))

.DEFAULT_GOAL := $(LH_SAVED_GOAL)
