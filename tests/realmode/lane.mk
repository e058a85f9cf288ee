# SPDX-License-Identifier: MIT
# make realmode-tests: aprealmode (tools/linux/realmode/) on Debian 12's
# kernel images (fetched once by tests/realmode/fetch-images.sh, as make
# test-prep does for the Linux VM lanes) and on synthetic images, trees
# and bad inputs (tests/realmode/run.sh). Included from the top-level
# Makefile.
#   make realmode-long   the long lane, not in make test: Linux 6.1's
#                        realmode blob built from linux-source-6.1, as
#                        shipped and with the reference diff applied by
#                        patch (tests/realmode/source.sh)
RM_MKFIXTURE := build/host/lrm_mkfixture
VARS.$(RM_MKFIXTURE) = $(HOST_CC) $(HOST_CFLAGS) $(HOST_DEBUG)
$(RM_MKFIXTURE): tests/realmode/mkfixture.c tests/unit/lrm_fixture.c tests/unit/lrm_fixture.h \
		wings/linux_trampoline/lrm_blob.h tests/realmode/lane.mk $(RM_MKFIXTURE).vars
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(HOST_DEBUG) -o $@ tests/realmode/mkfixture.c tests/unit/lrm_fixture.c

.PHONY: realmode-tests realmode-long
realmode-tests: $(APREALMODE) $(APREALMODE_ASAN) $(RM_MKFIXTURE)
	@timeout 600 tests/realmode/run.sh $(APREALMODE) $(APREALMODE_ASAN) $(RM_MKFIXTURE)

realmode-long: $(APREALMODE) $(APREALMODE_ASAN)
	@tests/realmode/source.sh $(APREALMODE) $(APREALMODE_ASAN)
