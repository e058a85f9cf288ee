# SPDX-License-Identifier: MIT
# apstart on Linux (docs/from-linux.md): the program that runs apstart's
# kernel from a running Linux and files its records. Included from the
# top-level Makefile after tools/tools.mk ($(APLOG)).
#
#   make linux-tool-tests  apstart on fake machines (tests/linux-tool/run.sh)
ifndef LINUX_MK_INCLUDED
LINUX_MK_INCLUDED := 1
LINUX_SAVED_GOAL := $(.DEFAULT_GOAL)

.PHONY: linux-tool-tests

linux-tool-tests: $(APLOG)
	@APLOG=$(APLOG) timeout 600 bash tests/linux-tool/run.sh

.DEFAULT_GOAL := $(LINUX_SAVED_GOAL)
endif
