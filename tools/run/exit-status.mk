# SPDX-License-Identifier: MIT
# A tool's exit status through make, for the goals whose statuses are
# documented (make run, make ab, make bench-linux, make lava: 0 pass or a
# verdict, 1 fail, 2 no verdict). GNU make exits 2 whenever a recipe
# fails; it exits 1 only in question mode (-q), and then when a recursive
# recipe line (one starting with +) exits 1. So when GOAL is make's only
# goal (and no -n), make runs in question mode, where it runs only + lines:
#   1. build/GOAL-status-PID (+): a sub-make, out of question mode, makes
#      the prerequisites; then the tool runs; its status goes to the file;
#   2. GOAL (+), its recipe written from that status once the file is
#      made: 0 ends make with 0; 1 with 1 (question mode: nothing more is
#      printed); anything else stops make with an error (exit 2) whose
#      text is the tool's last word, so that the last line printed says
#      why (QEMU's own message, the runner's refusal). The tool writes that
#      word to the file $EXIT_WHY names (tools/run/exit-why.sh).
# One make, no restart.
#
#   $(eval $(call EXIT_STATUS_GOAL,GOAL,PREREQUISITES-VARIABLE,COMMAND-VARIABLE))
#
# With other goals beside it, GOAL is a plain rule (make's own statuses).
# Included from the top-level Makefile before the goals that use it.
ifndef EXIT_STATUS_MK_INCLUDED
EXIT_STATUS_MK_INCLUDED := 1

# The files are this make's own (its process ID), so that two make runs
# at once never read each other's status; those of a make that stopped
# before reading them (it is gone) are removed.
EXIT_STATUS_PID := $(shell echo $$PPID)

# exit_status_end GOAL,STATUS-FILE: GOAL's recipe for the status read.
exit_status_end = $(call exit_status_say,$1,$2,$(strip $(file <$2)),$(strip $(file <$2.why)))
exit_status_say = $(if $(filter 0,$3),+@rm -f $2 $2.why,$(if $(filter 1,$3),+@rm -f $2 $2.why; exit 1,$(shell \
	rm -f $2 $2.why)$(error $(or $4,make $1: exit status $(or $3,unknown) (see the messages above)))))

define EXIT_STATUS_GOAL
ifeq ($$(MAKECMDGOALS)|$$(findstring n,$$(firstword -$$(MAKEFLAGS))),$(1)|)
MAKEFLAGS += -q
$(1)_STATUS := build/$(1)-status-$$(EXIT_STATUS_PID)
$$(shell mkdir -p build; for f in build/$(1)-status-*; do p=$$$${f##*-}; p=$$$${p%.why}; \
	[ -e "$$$$f" ] && ! kill -0 "$$$$p" 2>/dev/null && rm -f "$$$$f"; done; :)
# (the sub-make out of question mode: q is the first letter flag's)
$$($(1)_STATUS): FORCE
	+@MAKEFLAGS=$$$$(printf '%s' "$$$$MAKEFLAGS" | sed '1s/q//'); export MAKEFLAGS; \
	if $$(if $$($(2)),$$(MAKE) --no-print-directory $$($(2)),:); then \
		EXIT_WHY=$$@.why; export EXIT_WHY; $$($(3)); echo $$$$? >$$@; else echo 2 >$$@; fi
$(1): $$($(1)_STATUS)
	$$(call exit_status_end,$(1),$$($(1)_STATUS))
else
$(1): $$($(2))
	@$$($(3))
endif
endef

# Always out of date (not .PHONY: a phony prerequisite would do the same,
# but make help lists the phony targets). tools/build/build-vars.mk says so too.
FORCE:

endif
