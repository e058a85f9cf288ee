# SPDX-License-Identifier: MIT
# make bochs-tests: the BIOS image booted under Bochs (tests/bochs/run.sh),
# Intel and AMD CPU models with SMT, and x2APIC mode (QEMU's TCG has
# none). Its images: the ISO's kernels behind its menu whose default entry
# runs at once with cycles=1; and lean CDs (tests/bochs/lean-iso.sh: the
# same x86_64 WBINVD=0 kernel behind a one-entry menu) with cycles=2
# x2apic=on, or that with broadcast bring-up and parallel cycles (issue
# 9), or parallel bring-up and cycles in xAPIC mode. Included from the
# top-level Makefile, after tools/image/iso.mk.

BOCHS_ISO := build/bochs-test/apstart-bochs.iso
$(eval $(call ISO_IMAGE,$(BOCHS_ISO),build/bochs-test/menu,0,0,cycles=1))
BOCHS_ISO_X2 := build/bochs-test/lean-x2apic.iso
BOCHS_ISO_PAR := build/bochs-test/lean-x2apic-broadcast.iso
BOCHS_ISO_PAR_X := build/bochs-test/lean-parallel.iso
# $(call BOCHS_LEAN_ISO,image,kernel arguments)
define BOCHS_LEAN_ISO
$(1): $(ISO_KDIR)/boot/apstart-wbinvd0.elf tests/bochs/lean-iso.sh tests/bochs/lane.mk
	@mkdir -p $$(@D)
	@echo "  ISO     $$@"
	@tests/bochs/lean-iso.sh $$@ $$< $(2)
endef
$(eval $(call BOCHS_LEAN_ISO,$(BOCHS_ISO_X2),cycles=2 x2apic=on))
$(eval $(call BOCHS_LEAN_ISO,$(BOCHS_ISO_PAR),cycles=2 x2apic=on bringup=broadcast cycles_mode=parallel))
$(eval $(call BOCHS_LEAN_ISO,$(BOCHS_ISO_PAR_X),cycles=2 bringup=parallel cycles_mode=parallel))

.PHONY: bochs-tests
bochs-tests: $(BOCHS_ISO) $(BOCHS_ISO_X2) $(BOCHS_ISO_PAR) $(BOCHS_ISO_PAR_X)
	@timeout 600 tests/bochs/run.sh $(BOCHS_ISO) $(BOCHS_ISO_X2) $(BOCHS_ISO_PAR) $(BOCHS_ISO_PAR_X)

# Long, not in make test: the same and the AMD model's serial xAPIC boot.
.PHONY: bochs-long
bochs-long: $(BOCHS_ISO) $(BOCHS_ISO_X2) $(BOCHS_ISO_PAR) $(BOCHS_ISO_PAR_X)
	@BOCHS_FULL=1 timeout 720 tests/bochs/run.sh $(BOCHS_ISO) $(BOCHS_ISO_X2) $(BOCHS_ISO_PAR) $(BOCHS_ISO_PAR_X)
