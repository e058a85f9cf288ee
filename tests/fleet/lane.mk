# SPDX-License-Identifier: MIT
# make fleet-tests: aplog fleet over recorded logs of four QEMU machines
# (tests/fleet/run.sh; the logs: tests/fleet/record.sh), under ASan/UBSan.
.PHONY: fleet-tests
fleet-tests: $(APLOG_ASAN)
	@APLOG_ASAN=$(APLOG_ASAN) bash tests/fleet/run.sh
