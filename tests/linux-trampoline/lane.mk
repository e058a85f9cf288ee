# SPDX-License-Identifier: MIT
# make linux-trampoline-tests: every AP through Linux's own trampoline, from
# Debian's images, as shipped and patched (tests/linux-trampoline/run.sh).
# make baseline-linux: its exact baselines rewritten from fresh runs.
# Included from the top-level Makefile.
.PHONY: linux-trampoline-tests baseline-linux
LINUX_TRAMPOLINE_NEEDS := $(APLOG) $(APREALMODE)
linux-trampoline-tests: deps $(LINUX_TRAMPOLINE_NEEDS)
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@timeout 900 tests/linux-trampoline/run.sh

baseline-linux: deps $(LINUX_TRAMPOLINE_NEEDS)
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@tests/linux-trampoline/run.sh --update
