# SPDX-License-Identifier: MIT
# make timing-tests (both parts below), make baseline, make exact-tests (the
# exact gate alone, for make check), make marks-cost.
# Included from the top-level Makefile (tests/lanes lists the lanes).

# Both parts, as one lane.
timing-tests: deps
	@tests/timing/run.sh

# make test's two lanes of tests/timing/run.sh: the deterministic part
# (icount-tests: instruction counts, so it may run beside other lanes) and
# the wall clock (wallclock-tests: with nothing beside it).
.PHONY: icount-tests wallclock-tests
icount-tests: deps
	@TIMING_ICOUNT_ONLY=1 TIMING_LANE=icount tests/timing/run.sh

wallclock-tests: deps
	@TIMING_WALL_ONLY=1 TIMING_LANE=wallclock tests/timing/run.sh

# Long, not in make test: icount-tests' full form, every PAD build (both
# variants x three sets) and a second boot of each variant, the two
# compared sample by sample (make icount-tests boots it only when the
# exact check fails).
.PHONY: icount-long
icount-long: deps
	@TIMING_FULL=1 TIMING_ICOUNT_ONLY=1 TIMING_LANE=icount tests/timing/run.sh

# The exact icount gate alone (make check): each variant once against its
# baseline (tests/timing/exact.sh).
.PHONY: exact-tests
exact-tests: $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,WBINVD=1)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=1)
	@APLOG=$(APLOG) tests/timing/exact.sh

# Not in make test: what the per-phase marks cost the paths they measure,
# in instructions under -icount, with and without them (docs/timing.md).
.PHONY: marks-cost
marks-cost: deps $(APLOG)
	@$(call BUILD_VARIANT,WBINVD=0)
	@$(call BUILD_VARIANT,WBINVD=0 MARKS=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0)
	@$(call BUILD_VARIANT,ARCH=i386 WBINVD=0 MARKS=0)
	@tools/run/marks-cost.sh

# Rewrite tests/baselines/ from fresh runs and show what changed.
baseline: deps
	@tests/timing/run.sh --update
