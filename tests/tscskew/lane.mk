# SPDX-License-Identifier: MIT
# make tscskew-tests: a TSC-skewed AP prints na (Bochs, KVM).
# Included from the top-level Makefile (tests/lanes lists the lanes).

# A TSC-skewed AP prints na (Bochs and KVM honour WRMSR IA32_TSC; TCG not).
tscskew-tests: deps $(APLOG)
	@APLOG=$(APLOG) tests/tscskew/run.sh
