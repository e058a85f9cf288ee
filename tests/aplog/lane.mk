# SPDX-License-Identifier: MIT
# make aplog-tests: the log analyzer (tests/aplog/run.sh).
# Included from the top-level Makefile (tests/lanes lists the lanes).

aplog-tests: $(APLOG) $(APLOG_ASAN)
	APLOG=$(APLOG) APLOG_ASAN=$(APLOG_ASAN) bash tests/aplog/run.sh
