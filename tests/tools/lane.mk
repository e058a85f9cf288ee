# SPDX-License-Identifier: MIT
# make tools-tests: the developer tools' contracts (tests/tools/run.sh).
# Included from the top-level Makefile; paths are relative to the repo root.
ifndef TOOLST_MK_INCLUDED
TOOLST_MK_INCLUDED := 1

TOOLST_TIMEOUT ?= 600

.PHONY: tools-tests
tools-tests: aplog
	@timeout $(TOOLST_TIMEOUT) bash tests/tools/run.sh

endif
