# SPDX-License-Identifier: MIT
# Every build follows its variables. A folder's name need not say all a
# build was made with (make ab's build/ab/build-a holds whatever AB_A
# says; build/host/ whatever compiler CC-like variables name), so each
# build has a stamp, NAME.vars, holding the words it is made with: the
# compiler, its flags, the variant's defines. The stamp is rewritten only
# when those words change, and the build's files depend on it: a changed
# variable rebuilds them, an unchanged one rebuilds nothing.
#
#   VARS.NAME = $(CC) $(CFLAGS) ...     the words (recursive: read late)
#   OUTPUT: ... NAME.vars
#
# Included by every makefile that uses it (guarded: read once).
ifndef BUILD_VARS_MK_INCLUDED
BUILD_VARS_MK_INCLUDED := 1

# The words go to NAME.vars.new-PID through $(file) (as they are: no
# shell quoting; PID: this make's, so that two makes at once never share
# it), which replaces NAME.vars only when it differs. Not under -n: make
# expands a recipe it only prints, and the file would be left behind.
BUILD_VARS_PID := $(shell echo $$PPID)
BUILD_VARS_DRY := $(findstring n,$(firstword -$(MAKEFLAGS)))
%.vars: FORCE
	@$(if $(BUILD_VARS_DRY),,$(shell mkdir -p $(@D))$(file >$@.new-$(BUILD_VARS_PID),$(VARS.$*)))t=$@.new-$(BUILD_VARS_PID); \
	if cmp -s $$t $@; then rm -f $$t; else \
		[ ! -e $@ ] || echo "  VARS    $@: built with other variables before: rebuilding"; \
		mv -f $$t $@; fi

# Always out of date (not .PHONY, which make help would list).
FORCE:

endif
