# SPDX-License-Identifier: MIT
# make efi-tests: apstart.efi, the summary kept in NVRAM across a reset,
# the stick after firmware writes (tests/efi/run.sh, about a minute and a
# half: six QEMU boots, five of them OVMF under TCG). Included from the
# top-level Makefile after tools/iso.mk.

VARSTORE := build/host/varstore
EFI_TESTS_TIMEOUT ?= 600

.PHONY: efi-tests
# The variable-store reader is a host parser: built with ASan/UBSan.
$(VARSTORE): tests/efi/varstore.c kernel/efi_vendor.h lib/bytes.h tests/efi/efi-tests.mk
	@mkdir -p $(@D)
	gcc -std=c11 -O1 -g -Wall -Wextra -Werror -I. -fsanitize=address,undefined \
		-fno-sanitize-recover=all -o $@ $<

efi-tests: deps $(ISO) $(ISO_TEST_EFI) $(APSTART_EFI) $(VARSTORE) $(APLOG)
	@ISO=$(ISO) EFI_TEST_ISO=$(ISO_TEST_EFI) APSTART_EFI=$(APSTART_EFI) VARSTORE=$(VARSTORE) APLOG=$(APLOG) \
		timeout $(EFI_TESTS_TIMEOUT) bash tests/efi/run.sh
