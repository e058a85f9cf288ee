# SPDX-License-Identifier: MIT
# make linux-tool-tests, deb-tests, linux-vm-tests: the Linux side's lanes;
# make linux-session-long: the long one, a Debian disk image (tests/linux-session/).
# Included from the top-level Makefile (tests/lanes lists the lanes).

.PHONY: linux-tool-tests deb-tests linux-vm-tests linux-session-long

linux-tool-tests: $(APLOG) $(APREALMODE)
	@APLOG=$(APLOG) APREALMODE=$(APREALMODE) timeout 600 bash tests/linux-tool/run.sh

deb-tests: deb
	@DEB='$(DEB_FILE)' APLOG='$(APLOG)' timeout 900 bash tests/linux-tool/deb.sh

linux-vm-tests: linux-kernels $(APLOG)
	@timeout 900 bash tests/linux-tool/vm.sh $(APLOG)

linux-session-long: deb
	@DEB='$(DEB_FILE)' timeout 9000 bash tests/linux-session/run.sh
