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

# The words go to NAME.vars.new through $(file) (as they are: no shell
# quoting), which replaces NAME.vars only when it differs.
%.vars: FORCE
	@$(shell mkdir -p $(@D))$(file >$@.new,$(VARS.$*))if cmp -s $@.new $@; then rm -f $@.new; else \
		[ ! -e $@ ] || echo "  VARS    $@: built with other variables before: rebuilding"; \
		mv -f $@.new $@; fi

# Always out of date (not .PHONY, which make help would list).
FORCE:

endif
