# SPDX-License-Identifier: MIT
# make bochs-tests: the BIOS image booted under Bochs (tests/bochs/run.sh),
# Intel and AMD CPU models with SMT, and x2APIC mode (QEMU's TCG has
# none). Its images: the ISO's kernels behind a menu whose default entry
# runs at once, with cycles=1, or cycles=2 x2apic=on, or that with
# broadcast bring-up and parallel cycles (issue 9), or parallel bring-up
# and cycles in xAPIC mode. Included from the
# top-level Makefile, after tools/image/iso.mk.

BOCHS_ISO := build/bochs-test/apstart-bochs.iso
BOCHS_ISO_X2 := build/bochs-test/apstart-bochs-x2apic.iso
$(eval $(call ISO_IMAGE,$(BOCHS_ISO),build/bochs-test/menu,0,0,cycles=1))
BOCHS_ISO_PAR := build/bochs-test/apstart-bochs-x2apic-parallel.iso
BOCHS_ISO_PAR_X := build/bochs-test/apstart-bochs-parallel.iso
$(eval $(call ISO_IMAGE,$(BOCHS_ISO_X2),build/bochs-test/menu-x2apic,0,0,cycles=2 x2apic=on))
$(eval $(call ISO_IMAGE,$(BOCHS_ISO_PAR),build/bochs-test/menu-x2apic-parallel,0,0,cycles=2 x2apic=on bringup=broadcast cycles_mode=parallel))
$(eval $(call ISO_IMAGE,$(BOCHS_ISO_PAR_X),build/bochs-test/menu-parallel,0,0,cycles=2 bringup=parallel cycles_mode=parallel))

.PHONY: bochs-tests
bochs-tests: $(BOCHS_ISO) $(BOCHS_ISO_X2) $(BOCHS_ISO_PAR) $(BOCHS_ISO_PAR_X)
	@timeout 600 tests/bochs/run.sh $(BOCHS_ISO) $(BOCHS_ISO_X2) $(BOCHS_ISO_PAR) $(BOCHS_ISO_PAR_X)

# Long, not in make test: the same and the AMD model's serial xAPIC boot.
.PHONY: bochs-long
bochs-long: $(BOCHS_ISO) $(BOCHS_ISO_X2) $(BOCHS_ISO_PAR) $(BOCHS_ISO_PAR_X)
	@BOCHS_FULL=1 timeout 720 tests/bochs/run.sh $(BOCHS_ISO) $(BOCHS_ISO_X2) $(BOCHS_ISO_PAR) $(BOCHS_ISO_PAR_X)
