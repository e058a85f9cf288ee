/* SPDX-License-Identifier: MIT */
/* Which firmware the machine booted with, said only as far as it is
 * known. A kernel started by kexec from Linux gets no EFI tags and no
 * RSDP tag from kexec-tools, so absent EFI tags do not mean BIOS: the
 * answer is "unknown" unless something says otherwise. */
#ifndef APSTART_FIRMWARE_H
#define APSTART_FIRMWARE_H

#include <stdbool.h>
#include <stdint.h>

enum firmware { FIRMWARE_UNKNOWN, FIRMWARE_BIOS, FIRMWARE_UEFI };

/* What the boot shows. */
struct firmware_facts {
	bool efi_tags;          /* the loader handed over an EFI system table
				   or EFI memory map (Multiboot2 tags 11/12/17) */
	int protocol;           /* Multiboot 1 or 2 */
	const char *loader;     /* the loader's name ("" if none) */
	enum firmware hint;     /* firmware= (UNKNOWN: not given) */
	uint64_t rsdp_phys;     /* where a valid RSDP was found by address
				   (acpi_rsdp=); 0 if not known */
	uint64_t ebda_phys;     /* the EBDA the BIOS data area names, or 0 */
};

/* The firmware, and in why (never NULL) how it is known: in order, EFI
 * tags; the firmware= hint; an RSDP outside the areas where a BIOS must
 * put it (ACPI 6.5 §5.2.5.1: the EBDA's first KiB, 0xE0000-0xFFFFF; UEFI
 * hands it over in its configuration table, §5.2.5.2, anywhere); a
 * loader that gives EFI tags whenever it runs on UEFI and gave none
 * (GRUB's multiboot2), or that runs only on BIOS (QEMU's multiboot
 * option ROM, loader name "qemu"). Otherwise unknown. */
enum firmware firmware_identify(const struct firmware_facts *f, const char **why);

/* "uefi", "bios", "unknown" (records), and "UEFI", "BIOS", "unknown". */
const char *firmware_word(enum firmware fw);
const char *firmware_name(enum firmware fw);

#endif
