# SPDX-License-Identifier: MIT
# make madt-tests: the kernel booted on crafted MADTs (tests/madt/run.sh),
# made by the host tool tests/madt/mkmadt.c. Included from the top-level Makefile.

MKMADT := build/host/mkmadt

.PHONY: madt-tests
$(MKMADT): tests/madt/mkmadt.c tests/madt/lane.mk
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(HOST_OPT) -o $@ $<

madt-tests: $(MKMADT)
	@$(call BUILD_VARIANT,WBINVD=0)
	@MKMADT=$(MKMADT) KERNEL=build/wbinvd0/apstart.elf timeout 900 tests/madt/run.sh
