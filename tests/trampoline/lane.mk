# SPDX-License-Identifier: MIT
# make trampoline-tests: what each built trampoline contains (tests/trampoline/check.sh).
# Included from the top-level Makefile (tests/lanes lists the lanes).

trampoline-tests:
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,WBINVD=1)
	@tests/trampoline/check.sh build/wbinvd0/trampoline.bin 0 build/wbinvd0/apstart.elf
	@tests/trampoline/check.sh build/wbinvd1/trampoline.bin 1 build/wbinvd1/apstart.elf
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=1)
	@tests/trampoline/check.sh --arch i386 build/i386-wbinvd0/trampoline.bin 0 build/i386-wbinvd0/apstart.elf
	@tests/trampoline/check.sh --arch i386 build/i386-wbinvd1/trampoline.bin 1 build/i386-wbinvd1/apstart.elf
