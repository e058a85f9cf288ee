# SPDX-License-Identifier: MIT
# make netboot-tests: network boot (tests/netboot/run.sh).
# Included from the top-level Makefile (tests/lanes lists the lanes).

# build/host/varstore: tests/efi/lane.mk's rule (included later).
netboot-tests: deps $(ISO_KERNELS) $(ISO) $(APLOG) build/host/varstore
	@tools/lab/netboot/mknetboot.sh --out $(NETBOOT_TEST_DIR) --kernels $(ISO_KDIR) \
		--timeout 0 --machines tests/netboot/machines
	@NETBOOT_TEST_DIR=$(NETBOOT_TEST_DIR) ISO_KDIR=$(ISO_KDIR) APLOG=$(APLOG) VARSTORE=build/host/varstore \
		timeout $(NETBOOT_TESTS_TIMEOUT) bash tests/netboot/run.sh
