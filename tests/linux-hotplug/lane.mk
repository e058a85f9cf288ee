# SPDX-License-Identifier: MIT
# make linux-hotplug-tests: linux-hotplug (tests/linux-hotplug/run.sh).
# Included from the top-level Makefile (tests/lanes lists the lanes).

linux-hotplug-tests: $(LH) $(LH_ASAN) $(LH_SHIM) $(LH_TRACESHIM) aplog
	LH=$(LH) LH_ASAN=$(LH_ASAN) LH_SHIM=$(LH_SHIM) LH_TRACESHIM=$(LH_TRACESHIM) APLOG=$(APLOG) \
		timeout 900 bash tests/linux-hotplug/run.sh
