# SPDX-License-Identifier: MIT
# make run-chroot-test (long, not in make test; root, the Debian mirror):
# make run as a user who is not root, on a throw-away Debian with only the
# packages make run needs (tests/chroot/run.sh). Included from the Makefile.

.PHONY: run-chroot-test
run-chroot-test:
	@timeout 3600 tests/chroot/run.sh $(if $(filter 1,$(KEEP)),--keep)
