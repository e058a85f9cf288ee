# SPDX-License-Identifier: MIT
# make flushmodel-tests: the flush cost model, the QEMU plugin.
# Included from the top-level Makefile (tests/lanes lists the lanes).

flushmodel-tests: deps flushmodel $(FLUSHMODEL_TEST) $(FLUSHMODEL_TEST_ASAN) $(FLUSHMODEL_WHERE_TEST) aplog
	@$(call BUILD_VARIANT,WBINVD=0) >/dev/null
	@$(call BUILD_VARIANT,WBINVD=1) >/dev/null
	@tests/flushmodel/run.sh
