# SPDX-License-Identifier: MIT
# A tool's exit status through make, for the goals whose statuses are
# documented (make run, make ab, make bench-linux, make lava: 0 pass or a
# verdict, 1 fail, 2 no verdict). GNU make exits 2 whenever a recipe fails, and 1 only in
# question mode (-q) with a goal out of date. So when GOAL is make's only
# goal (and no -n), the tool runs as the remaking of an included makefile,
# build/GOAL-status.mk, which records its status; make then starts again
# and reads it: after a 1 it turns question mode on (the phony goal is out
# of date: make exits 1, printing nothing more); after any other failure
# it stops with an error (exit 2) whose text is the tool's last word, so
# that the last line printed says why (QEMU's own message, the runner's
# refusal). The tool writes that word to the file $EXIT_WHY names
# (tools/exit-why.sh).
#
#   $(eval $(call EXIT_STATUS_GOAL,GOAL,PREREQUISITES-VARIABLE,COMMAND-VARIABLE))
#
# With other goals beside it, GOAL is a plain rule (make's own statuses).
# Included from the top-level Makefile before the goals that use it.
ifndef EXIT_STATUS_MK_INCLUDED
EXIT_STATUS_MK_INCLUDED := 1

define EXIT_STATUS_GOAL
ifeq ($$(MAKECMDGOALS)|$$(findstring n,$$(firstword -$$(MAKEFLAGS))),$(1)|)
ifeq ($$(MAKE_RESTARTS),)
# Emptied before make reads it: a status can only be this run's, and a
# failed remake (a package missing) says only what failed.
$$(shell mkdir -p build && : >build/$(1)-status.mk && rm -f build/$(1)-why.txt)
include build/$(1)-status.mk
build/$(1)-status.mk: $$($(2)) FORCE
	@EXIT_WHY=build/$(1)-why.txt; export EXIT_WHY; $$($(3)); echo "EXIT_STATUS_$(1) := $$$$?" >$$@
else
include build/$(1)-status.mk
ifeq ($$(EXIT_STATUS_$(1)),1)
MAKEFLAGS += -q
else ifneq ($$(EXIT_STATUS_$(1)),0)
$$(error $$(or $$(file <build/$(1)-why.txt),make $(1): exit status $$(or $$(EXIT_STATUS_$(1)),unknown) (see the messages above)))
endif
endif
$(1): ; @:
else
$(1): $$($(2))
	@$$($(3))
endif
endef

# Always out of date (not .PHONY: a phony prerequisite would do the same,
# but make help lists the phony targets). tools/build-vars.mk says so too.
FORCE:

endif
