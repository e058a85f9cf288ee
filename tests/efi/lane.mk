# SPDX-License-Identifier: MIT
# make efi-tests: apstart.efi, the summary kept in NVRAM across a reset,
# the stick after firmware writes (tests/efi/run.sh, about a minute and a
# half: six QEMU boots, five of them OVMF under TCG). Included from the
# top-level Makefile after tools/image/iso.mk.

VARSTORE := build/host/varstore
EFI_TESTS_TIMEOUT ?= 600

.PHONY: efi-tests
# The variable-store reader is a host parser: built with ASan/UBSan.
$(VARSTORE): tests/efi/varstore.c wings/efi/efi_vendor.h lib/bytes.h tests/efi/lane.mk
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) $(HOST_DEBUG) $(HOST_SAN) -o $@ $<

efi-tests: deps $(ISO) $(ISO_TEST_EFI) $(APSTART_EFI) $(VARSTORE) $(APLOG)
	@ISO=$(ISO) EFI_TEST_ISO=$(ISO_TEST_EFI) APSTART_EFI=$(APSTART_EFI) VARSTORE=$(VARSTORE) APLOG=$(APLOG) \
		timeout $(EFI_TESTS_TIMEOUT) bash tests/efi/run.sh

# make session-tests: apstart.efi's A/B session under OVMF (tests/efi/
# session.sh: K=2 per variant at -smp 4, a killed QEMU, a stop and
# resume, a failing run, the table on screen and as a QR code, a CD with
# a session's mark; six OVMF boots, about two minutes).
# make session-long: the same, the CD's boot with NVRAM nearly full too
# (OVMF then rewrites its whole store: about a minute more).
SESSION_TESTS_TIMEOUT ?= 600
SESSION_FULL_NVRAM ?= 0
.PHONY: session-tests session-long
session-long: SESSION_FULL_NVRAM = 1
session-long: session-tests
session-tests: deps $(ISO) $(ISO_TEST_EFI) $(APLOG) $(SCREENTEXT)
	@SESSION_FULL_NVRAM=$(SESSION_FULL_NVRAM) ISO=$(ISO) EFI_TEST_ISO=$(ISO_TEST_EFI) APLOG=$(APLOG) \
		SCREENTEXT=$(SCREENTEXT) timeout $(SESSION_TESTS_TIMEOUT) bash tests/efi/session.sh

# Long runs, not in make test (docs/session.md): a whole K=10 session at
# -smp 8 under OVMF (tools/run/session-qemu.sh: 21 boots, its wall time), and
# the bytes one run keeps in NVRAM against the CPU count.
SESSION_K ?= 10
SESSION_SMP ?= 8
SESSION_BYTES_NS ?= 1 2 4 8 16 32 64 128 255
.PHONY: session-k10 session-bytes
session-k10: deps $(ISO_TEST_EFI)
	@tools/run/session-qemu.sh --k $(SESSION_K) --smp $(SESSION_SMP)
session-bytes: deps $(ISO)
	@tools/run/session-qemu.sh --timeout 1800 --bytes $(SESSION_BYTES_NS)
