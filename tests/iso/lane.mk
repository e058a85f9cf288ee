# SPDX-License-Identifier: MIT
# make iso-tests: the image and its boots (tests/iso/run.sh); make screenshots.
# make iso-long: the same with the whole BIOS/UEFI x CD/USB x exit/shot
# matrix (13 boots, not 9). Included from the top-level Makefile (tests/lanes
# lists the lanes).
# make test boots each medium once per firmware (USB: exit, CD: screens):
# the screens do not depend on the medium, GRUB's path to the kernel does.
ISO_TESTS_QUICK ?= 1
.PHONY: iso-long
iso-long: ISO_TESTS_QUICK = 0
iso-long: iso-tests

iso-tests: $(ISO) $(ISO_TEST_IMAGES) $(PPMCHECK) $(SCREENTEXT) $(APLOG)
	$(ISO_Q)ISO_TESTS_QUICK=$(ISO_TESTS_QUICK) ISO=$(ISO) ISO_TEST_DIR=$(ISO_TEST_DIR) ISO_TEST_ARGS='$(ISO_TEST_ARGS)' \
		ISO_TEST_SCREEN_ARGS='$(ISO_TEST_SCREEN_ARGS)' PPMCHECK=$(PPMCHECK) \
		SCREENTEXT=$(SCREENTEXT) APLOG=$(APLOG) timeout $(ISO_TESTS_TIMEOUT) bash tests/iso/run.sh
