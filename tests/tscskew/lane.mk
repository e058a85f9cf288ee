# SPDX-License-Identifier: MIT
# make tscskew-tests: a TSC-skewed AP prints na (Bochs, KVM).
# Included from the top-level Makefile (tests/lanes lists the lanes).

# A TSC-skewed AP prints na (Bochs and KVM honour WRMSR IA32_TSC; TCG not).
tscskew-tests: deps $(APLOG)
	@APLOG=$(APLOG) tests/tscskew/run.sh

# Long, not in make test: the same, with the KVM boot under a paravirtual
# KVM too (make tscskew-tests boots it on hardware-backed KVM only).
.PHONY: tscskew-long
tscskew-long: deps $(APLOG)
	@TSCSKEW_FULL=1 APLOG=$(APLOG) tests/tscskew/run.sh
