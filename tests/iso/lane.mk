# SPDX-License-Identifier: MIT
# make iso-tests: the image and its boots (tests/iso/run.sh); make screenshots.
# Included from the top-level Makefile (tests/lanes lists the lanes).

iso-tests: $(ISO) $(ISO_TEST_IMAGES) $(PPMCHECK) $(SCREENTEXT) $(APLOG)
	$(ISO_Q)ISO=$(ISO) ISO_TEST_DIR=$(ISO_TEST_DIR) ISO_TEST_ARGS='$(ISO_TEST_ARGS)' \
		ISO_TEST_SCREEN_ARGS='$(ISO_TEST_SCREEN_ARGS)' PPMCHECK=$(PPMCHECK) \
		SCREENTEXT=$(SCREENTEXT) APLOG=$(APLOG) timeout $(ISO_TESTS_TIMEOUT) bash tests/iso/run.sh
