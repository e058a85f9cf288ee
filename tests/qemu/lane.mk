# SPDX-License-Identifier: MIT
# make qemu-tests: the QEMU matrix and the CPU floor (tests/qemu/matrix.sh,
# tests/floor/instructions.sh, tests/qemu/cpu-models.sh), CONTRIBUTING.md's
# recipe for a wing walked through (tests/qemu/planted-wing.sh); make
# cpu-models: every model.
# Included from the top-level Makefile (tests/lanes lists the lanes).

qemu-tests: $(APLOG) $(SCREENTEXT)
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,WBINVD=1)
	@$(call BUILD_VARIANT,WBINVD=0 MAX_CPUS=4)
	@$(call BUILD_VARIANT,WBINVD=0 WINGS=)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=1)
	@st=0; APLOG=$(APLOG) tests/qemu/matrix.sh || st=1; tests/floor/instructions.sh || st=1; \
		tests/qemu/cpu-models.sh || st=1; tests/qemu/planted-wing.sh || st=1; exit $$st

# Long, not in make test: qemu-tests with x2APIC under a paravirtual KVM
# too (make qemu-tests boots it on hardware-backed KVM only).
.PHONY: qemu-long
qemu-long:
	@$(MAKE) --no-print-directory QEMU_FULL=1 qemu-tests

# Long, not in make test: the CPU floor under every CPU model QEMU lists,
# for both kernels (make qemu-tests boots a representative set).
.PHONY: cpu-models
cpu-models:
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@tests/qemu/cpu-models.sh --all
