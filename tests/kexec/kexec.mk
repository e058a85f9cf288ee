# SPDX-License-Identifier: MIT
# make kexec-tests: apstart kexec'd from Debian's kernel under SeaBIOS and
# OVMF, its records read back through Linux's pstore (tests/kexec/run.sh).
.PHONY: kexec-tests
kexec-tests: $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0)
	@timeout 900 tests/kexec/run.sh build/wbinvd0/apstart.elf $(APLOG)
