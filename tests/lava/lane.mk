# SPDX-License-Identifier: MIT
# make lava-tests: LAVA (tests/lava/run.sh).
# Included from the top-level Makefile (tests/lanes lists the lanes).

lava-tests: deps $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0)
	@APLOG=$(APLOG) timeout $(LAVA_TESTS_TIMEOUT) bash tests/lava/run.sh
