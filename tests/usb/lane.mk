# SPDX-License-Identifier: MIT
# Tests for tools/image/usb-write.sh (make usb-tests). No real disk is touched;
# the one real write goes to a loop device if this machine has them (root).
# Include from the top-level Makefile; paths are relative to the repo root.
ifndef USBT_MK_INCLUDED
USBT_MK_INCLUDED := 1

USBT_SCRIPT := tests/usb/run.sh
USBT_TIMEOUT ?= 600

.PHONY: usb-tests
usb-tests:
	timeout $(USBT_TIMEOUT) bash $(USBT_SCRIPT)

endif
