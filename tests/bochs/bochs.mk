# SPDX-License-Identifier: MIT
# make bochs-tests: the BIOS image booted under Bochs (tests/bochs/run.sh),
# Intel and AMD CPU models with SMT. Its image: the ISO's kernels behind a
# menu whose default entry runs one cycle at once. Included from the
# top-level Makefile, after tools/iso.mk.

BOCHS_ISO := build/bochs-test/apstart-bochs.iso
$(eval $(call ISO_IMAGE,$(BOCHS_ISO),build/bochs-test/menu,0,0,cycles=1))

.PHONY: bochs-tests
bochs-tests: $(BOCHS_ISO)
	@timeout 600 tests/bochs/run.sh $(BOCHS_ISO)
