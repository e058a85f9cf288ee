# SPDX-License-Identifier: MIT
# make trampoline-tests: what each built trampoline contains
# (tests/trampoline/check.sh), and that a release build (make RELEASE=1)
# holds none of the AP path's test instrumentation (tests/trampoline/release.sh).
# Included from the top-level Makefile (tests/lanes lists the lanes).

# The release check's negative controls, a slowed and a padded blob:
# the blob alone (its asm_defs and trampoline.bin), not a kernel.
release_blob = $(MAKE) --no-print-directory ARCH=$(1) WBINVD=0 MAX_CPUS=512 MARKS=1 RELEASE=0 \
	SLOW_TRAMP_NS=0 SLOW_PARK_NS=0 PAD_INSNS=0 PAD_AT= PAD_REAL=0 PAD_PROT=0 PAD_LONG=0 \
	PAD_PARK=0 $(2) build/$(3)/trampoline.bin >/dev/null

trampoline-tests:
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,WBINVD=1)
	@tests/trampoline/check.sh build/wbinvd0/trampoline.bin 0 build/wbinvd0/apstart.elf
	@tests/trampoline/check.sh build/wbinvd1/trampoline.bin 1 build/wbinvd1/apstart.elf
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=1)
	@tests/trampoline/check.sh --arch i386 build/i386-wbinvd0/trampoline.bin 0 build/i386-wbinvd0/apstart.elf
	@tests/trampoline/check.sh --arch i386 build/i386-wbinvd1/trampoline.bin 1 build/i386-wbinvd1/apstart.elf
	@$(call BUILD_VARIANT,RELEASE=1)
	@$(call BUILD_VARIANT,ARCH=i386 RELEASE=1)
	@$(call release_blob,x86_64,SLOW_TRAMP_NS=2000,wbinvd0-slow2000)
	@$(call release_blob,x86_64,PAD_REAL=1 PAD_PROT=1 PAD_LONG=1,wbinvd0-padreal1-padprot1-padlong1)
	@$(call release_blob,i386,SLOW_TRAMP_NS=2000,i386-wbinvd0-slow2000)
	@$(call release_blob,i386,PAD_REAL=1 PAD_PROT=1 PAD_LONG=1,i386-wbinvd0-padreal1-padprot1-padlong1)
	@tests/trampoline/release.sh build/wbinvd0-release build/wbinvd0 \
		build/wbinvd0-slow2000 build/wbinvd0-padreal1-padprot1-padlong1
	@tests/trampoline/release.sh --arch i386 build/i386-wbinvd0-release build/i386-wbinvd0 \
		build/i386-wbinvd0-slow2000 build/i386-wbinvd0-padreal1-padprot1-padlong1
