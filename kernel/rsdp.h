/* SPDX-License-Identifier: MIT */
/* Where the ACPI tables start (the RSDP, ACPI 6.5 §5.2.5), in the order
 * the kernel tries: the loader's copy; else acpi_rsdp= (kexec from Linux
 * hands over none); else the BIOS areas' scan (§5.2.5.1). The tables
 * themselves are read by kernel/acpi.c. */
#ifndef APSTART_RSDP_H
#define APSTART_RSDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/multiboot.h"

struct rsdp_found {
	const void *rsdp;
	size_t len;     /* how far it may be read */
	uint64_t phys;  /* 0: the loader's copy */
};

/* acpi_rsdp=ADDR (0: not given), checked as soon as the command line is
 * known: ADDR if an RSDP is there (the firmware's identification counts
 * it, kernel/firmware.h), else 0; rsdp_find() says why not. */
uint64_t rsdp_check_option(uint64_t addr);
/* The RSDP, saying which was used and why another was not; false if
 * there is none (with what to give under UEFI). */
bool rsdp_find(const struct boot_info *bi, struct rsdp_found *out);
/* The EBDA the BIOS data area names, or 0 if it names none plausible. */
uint64_t rsdp_bios_ebda(void);

#endif
