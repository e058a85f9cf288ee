# SPDX-License-Identifier: MIT
# make flushprobe-tests (and the long make flushprobe-long): the flush probe.
# Included from the top-level Makefile (tests/lanes lists the lanes).

# The flush probe (probe=flush, issue 25): short forms in make test, the
# long forms on their own (tests/flushprobe/run.sh --long).
flushprobe-tests: deps flushmodel $(FLUSHMODEL_PROBE_TEST) $(FLUSHMODEL_PROBE_TEST_ASAN) aplog aplog-asan
	@$(call BUILD_VARIANT,WBINVD=0) >/dev/null
	@$(call BUILD_VARIANT,WBINVD=1) >/dev/null
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0) >/dev/null
	@tests/flushprobe/run.sh

flushprobe-long: deps flushmodel $(FLUSHMODEL_PROBE_TEST) $(FLUSHMODEL_PROBE_TEST_ASAN) aplog aplog-asan
	@$(call BUILD_VARIANT,WBINVD=0) >/dev/null
	@$(call BUILD_VARIANT,WBINVD=1) >/dev/null
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0) >/dev/null
	@tests/flushprobe/run.sh --long
