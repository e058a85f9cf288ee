# SPDX-License-Identifier: MIT
# make kexec-long (not in make test): apstart kexec'd from Debian's kernel
# under SeaBIOS and OVMF, its records read back through Linux's pstore by
# hand (tests/kexec/run.sh). make linux-vm-tests proves the same paths in
# make test (apstart run --via kexec, collect, the raw kexec at its last
# boots); this one keeps the recipe without the apstart tool, and its
# times for docs/from-linux.md.
.PHONY: kexec-long
kexec-long: $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0)
	@timeout 900 tests/kexec/run.sh build/wbinvd0/apstart.elf $(APLOG)
