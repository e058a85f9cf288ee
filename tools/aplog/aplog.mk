# SPDX-License-Identifier: MIT
# aplog: host tool that reads apstart serial logs (tools/aplog/README.md).
# Include from the top-level Makefile, or use alone:
#   make -f tools/aplog/aplog.mk aplog-tests
#
#   build/host/aplog        the tool, linked from its objects in
#                           build/host/aplog-obj/ (at their sources' paths:
#                           make layers-tests reads them)
#   build/host/aplog_asan   the same with ASan + UBSan, for the tests
#   aplog-asan              builds build/host/aplog_asan
#   aplog-tests             builds both and runs tests/aplog/run.sh

# Defined before any rule here so including this file never changes the
# includer's default goal.
APLOG_SAVED_GOAL := $(.DEFAULT_GOAL)

# The kernel's order statistics (median, p95...), compiled into host
# programs too so that they compute exactly what the kernel reports. The
# one place that says where that file lives.
KSTATS_SRC := lib/stats.c
KSTATS_HDR := $(KSTATS_SRC:.c=.h)

APLOG_DIR := tools/aplog
include tools/build/build-vars.mk
# The run-level verdict (tools/aplog/stats/verdict.c, one source for
# aplog and apstart.efi) formats with the kernel's fmt_duration.
VERDICT_SRC := lib/format.c
VERDICT_HDR := lib/format.h
# The names of a start's phases, the kernel's list (lib/phase_names.h).
PHASE_NAMES_SRC := lib/phase_names.c
# Which @warn records are events a run survives: the screen wing's list,
# which its result page uses too.
WARN_EVENTS_SRC := wings/screen/warn_events.c
# The record schema: every record and key, its unit (lib/records.def).
RECORDS_SCHEMA_SRC := tools/records/schema.c
# The flush model's own cost code, for aplog flush --against and aplog fit.
APLOG_MODEL_SRCS := tools/flushmodel/model.c tools/flushmodel/preset_file.c
# aplog's own files: main.c, options and util at the top, the rest in one
# folder per purpose (tools/aplog/README.md).
APLOG_SRCS := $(sort $(wildcard $(APLOG_DIR)/*.c $(APLOG_DIR)/*/*.c)) $(KSTATS_SRC) $(VERDICT_SRC) \
	$(PHASE_NAMES_SRC) $(WARN_EVENTS_SRC) $(RECORDS_SCHEMA_SRC) $(APLOG_MODEL_SRCS)
APLOG_HDRS := $(wildcard $(APLOG_DIR)/*.h $(APLOG_DIR)/*/*.h) $(KSTATS_HDR) $(VERDICT_HDR) \
	$(PHASE_NAMES_SRC:.c=.h) $(WARN_EVENTS_SRC:.c=.h) $(RECORDS_SCHEMA_SRC:.c=.h) lib/records.def \
	$(APLOG_MODEL_SRCS:.c=.h)
APLOG_DEPS := $(APLOG_SRCS) $(APLOG_HDRS) $(APLOG_DIR)/aplog.mk
APLOG_OUT := build/host
APLOG := $(APLOG_OUT)/aplog
APLOG_OBJ_DIR := $(APLOG_OUT)/aplog-obj
APLOG_OBJS := $(patsubst %.c,$(APLOG_OBJ_DIR)/%.o,$(APLOG_SRCS))
APLOG_ASAN := $(APLOG_OUT)/aplog_asan
# Host compiler: deliberately not $(CC), which may be set for the kernel.
APLOG_CC ?= gcc
# Every include names its file from the repository's top
# ("tools/aplog/read/records.h", "lib/stats.h").
APLOG_INC := -I.
APLOG_CFLAGS := $(HOST_CFLAGS) $(HOST_OPT) $(APLOG_INC)
APLOG_ASAN_CFLAGS := $(HOST_CFLAGS) $(HOST_TWIN_DEBUG) $(HOST_SAN) $(APLOG_INC)
APLOG_LDLIBS := -lm
# The compiler and flags aplog is built with (tools/build/build-vars.mk).
VARS.$(APLOG_OUT)/aplog = $(APLOG_CC) $(APLOG_CFLAGS) $(APLOG_LDLIBS) | $(APLOG_ASAN_CFLAGS)

.PHONY: aplog aplog-asan aplog-tests

aplog: $(APLOG)
aplog-asan: $(APLOG_ASAN)

$(APLOG): $(APLOG_OBJS)
	$(APLOG_CC) $(APLOG_CFLAGS) -o $@ $(APLOG_OBJS) $(APLOG_LDLIBS)

# Each object from its own source; any header or this file rebuilds all.
$(APLOG_OBJS): $(APLOG_OBJ_DIR)/%.o: %.c $(APLOG_HDRS) $(APLOG_DIR)/aplog.mk $(APLOG_OUT)/aplog.vars
	@mkdir -p $(dir $@)
	$(APLOG_CC) $(APLOG_CFLAGS) -c -o $@ $<

$(APLOG_ASAN): $(APLOG_DEPS) $(APLOG_OUT)/aplog.vars
	@mkdir -p $(dir $@)
	$(APLOG_CC) $(APLOG_ASAN_CFLAGS) -o $@ $(APLOG_SRCS) $(APLOG_LDLIBS)

# make trace-png [TRACE_SMP=64]: docs/trace-smp64.png, one parallel online
# round of apstart under QEMU TCG drawn from aplog trace's JSON (checked by
# tests/aplog/trace_check.py first) by tools/dev/trace-png.py with gnuplot.
TRACE_SMP ?= 64
.PHONY: trace-png
trace-png: $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0) >/dev/null
	@mkdir -p build/trace
	tools/run/qemu-run.sh --kernel build/wbinvd0/apstart.elf --smp $(TRACE_SMP) --accel tcg \
		--timeout 300 -- "cycles=1 bringup=parallel cycles_mode=parallel" >build/trace/smp$(TRACE_SMP).log 2>&1
	$(APLOG) trace --out build/trace/smp$(TRACE_SMP).json build/trace/smp$(TRACE_SMP).log
	python3 tests/aplog/trace_check.py build/trace/smp$(TRACE_SMP).json build/trace/smp$(TRACE_SMP).log
	python3 tools/dev/trace-png.py build/trace/smp$(TRACE_SMP).json docs/trace-smp$(TRACE_SMP).png \
		"round 1 online" "apstart WBINVD=0 under QEMU TCG -smp $(TRACE_SMP) (2 host cores): one parallel online round"

.DEFAULT_GOAL := $(APLOG_SAVED_GOAL)
