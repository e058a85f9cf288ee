# SPDX-License-Identifier: MIT
# make secureboot-tests: the Secure Boot chain and its refusals under OVMF
# with Secure Boot enforced, make keys and make sign (tests/secureboot/
# run.sh: seven OVMF boots, two at a time, TCG). Included from the
# top-level Makefile after tools/image/esp.mk and tools/image/iso.mk.

SECUREBOOT_TESTS_TIMEOUT ?= 900
.PHONY: secureboot-tests
secureboot-tests: deps $(ISO_TEST_EFI) $(APSTART_EFI) $(APSTART_EFI_TEST)
	@EFI_TEST_ISO=$(ISO_TEST_EFI) APSTART_EFI=$(APSTART_EFI) APSTART_EFI_TEST=$(APSTART_EFI_TEST) EFI_HASHES=$(EFI_HASHES) \
		SHIM_EFI=$(SHIM_EFI) MOKMANAGER_EFI=$(MOKMANAGER_EFI) SIGNED_GRUB_EFI=$(SIGNED_GRUB_EFI) \
		timeout $(SECUREBOOT_TESTS_TIMEOUT) bash tests/secureboot/run.sh

# Long, not in make test: apstart's key enrolled through MokManager's own
# screens (from the stick's menu; as after mokutil --import) and removed
# again (as after mokutil --delete), keys typed on QEMU's USB keyboard
# (tests/secureboot/enrol.py: seven OVMF boots, several minutes).
.PHONY: secureboot-enrol
secureboot-enrol: deps $(ISO_TEST_EFI) $(APSTART_EFI)
	@timeout $(SECUREBOOT_TESTS_TIMEOUT) python3 tests/secureboot/enrol.py $(ISO_TEST_EFI) $(APSTART_EFI)
