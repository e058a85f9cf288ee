/* SPDX-License-Identifier: MIT */
/* kernel/firmware.c: the firmware said as it is known, never guessed. */
#include <string.h>

#include "check.h"
#include "kernel/firmware.h"

static enum firmware identify(struct firmware_facts f, const char *why_part)
{
	const char *why = NULL;
	enum firmware fw = firmware_identify(&f, &why);
	CHECK(why != NULL && strstr(why, why_part) != NULL);
	return fw;
}

static void test_evidence(void)
{
	const struct firmware_facts kexec = { .protocol = 2, .loader = "kexec 2.0.25" };
	struct firmware_facts f;

	/* kexec-tools: no EFI tags, no RSDP tag: not known. */
	CHECK_EQ(identify(kexec, "no EFI tags"), FIRMWARE_UNKNOWN);
	/* ... an RSDP found where a BIOS may not put it: UEFI (OVMF's). */
	f = kexec;
	f.rsdp_phys = 0x3f77d014;
	CHECK_EQ(identify(f, "outside the BIOS areas"), FIRMWARE_UEFI);
	/* ... where a BIOS puts it: still not known (UEFI with a CSM copies it there). */
	f.rsdp_phys = 0xf5a40;
	CHECK_EQ(identify(f, "no EFI tags"), FIRMWARE_UNKNOWN);
	f.rsdp_phys = 0x9fc00; /* the EBDA's first KiB */
	f.ebda_phys = 0x9fc00;
	CHECK_EQ(identify(f, "no EFI tags"), FIRMWARE_UNKNOWN);
	f.rsdp_phys = 0x9fc00 + 1024; /* past it */
	CHECK_EQ(identify(f, "outside"), FIRMWARE_UEFI);
	f.rsdp_phys = 0xdfff0; /* below the BIOS ROM area */
	CHECK_EQ(identify(f, "outside"), FIRMWARE_UEFI);
	/* The hint says what Linux knew, before the RSDP's place. */
	f = kexec;
	f.hint = FIRMWARE_BIOS;
	f.rsdp_phys = 0x3f77d014;
	CHECK_EQ(identify(f, "firmware="), FIRMWARE_BIOS);
	f.hint = FIRMWARE_UEFI;
	CHECK_EQ(identify(f, "firmware="), FIRMWARE_UEFI);
	/* EFI tags before anything. */
	f.efi_tags = true;
	f.hint = FIRMWARE_BIOS;
	CHECK_EQ(identify(f, "EFI tags"), FIRMWARE_UEFI);
}

static void test_loaders(void)
{
	struct firmware_facts f = { .protocol = 2, .loader = "GRUB 2.06-13+deb12u2" };

	CHECK_EQ(identify(f, "GRUB"), FIRMWARE_BIOS);
	f.protocol = 1; /* GRUB's multiboot (1) runs on UEFI too */
	CHECK_EQ(identify(f, "no EFI tags"), FIRMWARE_UNKNOWN);
	f.loader = "qemu";
	CHECK_EQ(identify(f, "option ROM"), FIRMWARE_BIOS);
	f.loader = "qemu-system";
	CHECK_EQ(identify(f, "no EFI tags"), FIRMWARE_UNKNOWN);
	f.protocol = 2;
	f.loader = "";
	CHECK_EQ(identify(f, "no EFI tags"), FIRMWARE_UNKNOWN);
	f.loader = "GRU";
	CHECK_EQ(identify(f, "no EFI tags"), FIRMWARE_UNKNOWN);
	CHECK_STREQ(firmware_word(FIRMWARE_UNKNOWN), "unknown");
	CHECK_STREQ(firmware_word(FIRMWARE_BIOS), "bios");
	CHECK_STREQ(firmware_name(FIRMWARE_UEFI), "UEFI");
}

void test_firmware(void)
{
	RUN_CASE(test_evidence);
	RUN_CASE(test_loaders);
}
