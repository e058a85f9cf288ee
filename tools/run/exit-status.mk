# SPDX-License-Identifier: MIT
# A tool's exit status through make, for the goals whose statuses are
# documented (make run, make ab, make bench-linux, make lava: 0 pass or a
# verdict, 1 fail, 2 no verdict). GNU make exits 2 whenever a recipe fails, and 1 only in
# question mode (-q) with a goal out of date. So when GOAL is make's only
# goal (and no -n), the tool runs as the remaking of an included makefile,
# build/GOAL-status-PID.mk, which records its status; make then starts again
# and reads it: after a 1 it turns question mode on (the phony goal is out
# of date: make exits 1, printing nothing more); after any other failure
# it stops with an error (exit 2) whose text is the tool's last word, so
# that the last line printed says why (QEMU's own message, the runner's
# refusal). The tool writes that word to the file $EXIT_WHY names
# (tools/run/exit-why.sh).
#
#   $(eval $(call EXIT_STATUS_GOAL,GOAL,PREREQUISITES-VARIABLE,COMMAND-VARIABLE))
#
# With other goals beside it, GOAL is a plain rule (make's own statuses).
# Included from the top-level Makefile before the goals that use it.
ifndef EXIT_STATUS_MK_INCLUDED
EXIT_STATUS_MK_INCLUDED := 1

# The files are this make's own (its process ID, which the restart keeps:
# make re-executes itself), so that two make runs at once never read each
# other's status.
EXIT_STATUS_PID := $(shell echo $$PPID)

define EXIT_STATUS_GOAL
ifeq ($$(MAKECMDGOALS)|$$(findstring n,$$(firstword -$$(MAKEFLAGS))),$(1)|)
$(1)_STATUS_MK := build/$(1)-status-$$(EXIT_STATUS_PID).mk
$(1)_WHY := build/$(1)-why-$$(EXIT_STATUS_PID).txt
ifeq ($$(MAKE_RESTARTS),)
# Emptied before make reads it: a status can only be this run's, and a
# failed remake (a package missing) says only what failed. Those a make
# that stopped there left behind go (their make is gone).
$$(shell mkdir -p build && : >$$($(1)_STATUS_MK) && rm -f $$($(1)_WHY) && \
	for f in build/$(1)-status-*.mk build/$(1)-why-*.txt; do \
		p=$$$${f##*-}; p=$$$${p%.*}; [ -e "$$$$f" ] && ! kill -0 "$$$$p" 2>/dev/null && rm -f "$$$$f"; done; :)
include $$($(1)_STATUS_MK)
$$($(1)_STATUS_MK): $$($(2)) FORCE
	@EXIT_WHY=$$($(1)_WHY); export EXIT_WHY; $$($(3)); echo "EXIT_STATUS_$(1) := $$$$?" >$$@
else
-include $$($(1)_STATUS_MK)
# (strip: make 4.3's file function keeps the last newline of a longer file)
$(1)_WHY_TEXT := $$(strip $$(file <$$($(1)_WHY)))
$$(shell rm -f $$($(1)_STATUS_MK) $$($(1)_WHY))
ifeq ($$(EXIT_STATUS_$(1)),1)
MAKEFLAGS += -q
else ifneq ($$(EXIT_STATUS_$(1)),0)
$$(error $$(or $$($(1)_WHY_TEXT),make $(1): exit status $$(or $$(EXIT_STATUS_$(1)),unknown) (see the messages above)))
endif
endif
$(1): ; @:
else
$(1): $$($(2))
	@$$($(3))
endif
endef

# Always out of date (not .PHONY: a phony prerequisite would do the same,
# but make help lists the phony targets). tools/build/build-vars.mk says so too.
FORCE:

endif
