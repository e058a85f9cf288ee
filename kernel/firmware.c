/* SPDX-License-Identifier: MIT */
/* Which firmware, and how it is known (kernel/firmware.h). */
#include "kernel/firmware.h"

#include "lib/kstring.h"

/* ACPI 6.5 §5.2.5.1: on IA-PC systems with a legacy BIOS the RSDP lies in
 * the first KiB of the EBDA or in the BIOS read-only area 0xE0000-0xFFFFF. */
#define BIOS_ROM_START 0xE0000ull
#define BIOS_ROM_END 0x100000ull
#define EBDA_RSDP_WINDOW 1024ull

static bool starts_with(const char *s, const char *prefix)
{
	return s && strlen(s) >= strlen(prefix) && memcmp(s, prefix, strlen(prefix)) == 0;
}

static bool in_bios_areas(uint64_t a, uint64_t ebda)
{
	return (a >= BIOS_ROM_START && a < BIOS_ROM_END) ||
	       (ebda && a >= ebda && a < ebda + EBDA_RSDP_WINDOW);
}

enum firmware firmware_identify(const struct firmware_facts *f, const char **why)
{
	if (f->efi_tags) {
		*why = "the loader handed over EFI tags";
		return FIRMWARE_UEFI;
	}
	if (f->hint != FIRMWARE_UNKNOWN) {
		*why = "firmware= on the command line";
		return f->hint;
	}
	if (f->rsdp_phys && !in_bios_areas(f->rsdp_phys, f->ebda_phys)) {
		*why = "the RSDP lies outside the BIOS areas (ACPI 6.5 5.2.5)";
		return FIRMWARE_UEFI;
	}
	if (f->protocol == 2 && starts_with(f->loader, "GRUB")) {
		*why = "GRUB gives EFI tags on UEFI and gave none";
		return FIRMWARE_BIOS;
	}
	if (f->protocol == 1 && f->loader && strlen(f->loader) == 4 &&
	    memcmp(f->loader, "qemu", 4) == 0) {
		*why = "QEMU's multiboot option ROM runs on BIOS only";
		return FIRMWARE_BIOS;
	}
	*why = "no EFI tags, no firmware= and no RSDP outside the BIOS areas";
	return FIRMWARE_UNKNOWN;
}

const char *firmware_word(enum firmware fw)
{
	return fw == FIRMWARE_UEFI ? "uefi" : fw == FIRMWARE_BIOS ? "bios" : "unknown";
}

const char *firmware_name(enum firmware fw)
{
	return fw == FIRMWARE_UEFI ? "UEFI" : fw == FIRMWARE_BIOS ? "BIOS" : "unknown";
}
