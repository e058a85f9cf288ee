# SPDX-License-Identifier: MIT
# make soak: a long run, not a lane of make test.
# Included from the top-level Makefile (tests/lanes lists the lanes).

# Long run, not in make test: 1000 offline/online cycles on every AP at
# -smp 8; no CPU may be lost.
soak: deps $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0)
	@APLOG=$(APLOG) tests/soak/run.sh build/wbinvd0/apstart.elf 1000 8
