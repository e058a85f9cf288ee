/* SPDX-License-Identifier: MIT */
/* ACPI tables apstart needs: RSDP -> RSDT/XSDT -> MADT (CPUs), HPET, FADT
 * (PM timer). Every length and checksum is validated before use; a bad
 * table is reported and skipped, never followed. */
#ifndef APSTART_ACPI_H
#define APSTART_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/config.h"
#include "kernel/multiboot.h"
#include "lib/format.h"

/* MADT Local APIC / Local x2APIC flags (ACPI 6.5, Table 5.37). */
#define MADT_CPU_ENABLED        (1u << 0)
#define MADT_CPU_ONLINE_CAPABLE (1u << 1)

/* Kinds of problem the parser reports (and skips). */
enum acpi_warn {
	ACPI_WARN_TABLE,          /* a table unreadable, mis-sized, or a bad
				     checksum on a structure that does not hold */
	ACPI_WARN_MADT_TRUNCATED, /* the entry list stops early (bad length) */
	ACPI_WARN_MADT_ENTRY,     /* an entry of a known type mis-sized */
	ACPI_WARN_MADT_DUPLICATE, /* a CPU listed more than once */
	ACPI_WARN_CPUS_DROPPED,   /* more CPUs than APSTART_MAX_CPUS */
	ACPI_WARN_CHECKSUM,       /* a bad checksum, the table used all the same */
	ACPI_WARN_OTHER,
	ACPI_WARN_KINDS
};

struct acpi_cpu {
	uint32_t apic_id;     /* full 32-bit ID (x2APIC entries) */
	uint32_t acpi_uid;
	uint32_t flags;       /* MADT_CPU_* */
	uint8_t entry_type;   /* 0 = Local APIC, 9 = Local x2APIC */
};

struct acpi_info {
	uint64_t rsdp_phys;   /* 0 when the RSDP came from a boot loader copy */
	uint8_t revision;     /* RSDP revision */
	char oem_id[7];       /* RSDP OEMID, NUL-terminated */
	bool used_xsdt;

	bool have_madt;
	uint64_t lapic_phys;  /* MADT address, or the type-5 override */
	uint32_t madt_flags;
	uint32_t cpu_count;       /* entries stored in cpus[] (below) */
	uint32_t enabled_count;   /* of those, with MADT_CPU_ENABLED */
	uint32_t cpus_dropped;    /* usable entries that did not fit */
	uint32_t cpus_unusable;   /* entries neither enabled nor online-capable */

	bool have_hpet;
	uint64_t hpet_phys;

	bool have_pm_timer;
	uint32_t pm_timer_port;   /* I/O port */
	bool pm_timer_32bit;      /* FADT TMR_VAL_EXT */

	/* FADT RESET_REG and RESET_VALUE, when Flags RESET_REG_SUP says the
	 * register is there (ACPI 6.5 §4.8.3.6, Table 5.9): GAS space 0
	 * (memory) or 1 (I/O); others are not used. */
	bool have_reset_reg;
	uint8_t reset_space;
	uint64_t reset_addr;
	uint8_t reset_value;

	uint32_t problems;        /* tables or entries skipped */
	/* The same problems by kind (each counted once in problems too),
	 * for the @warn records: names in acpi_warn_name(). */
	uint32_t warn[ACPI_WARN_KINDS];
	/* Firmware's unused CPU slots (LAPIC ID 0xFF, x2APIC ID 0xFFFFFFFF):
	 * common on real machines, not a problem; one summary line. */
	uint32_t placeholders;
	uint32_t madt_stop_offset; /* where a truncated entry list stopped */

	/* Enabled CPUs first in MADT order, then the others (not enabled),
	 * duplicates by APIC ID removed. Last: acpi_parse() clears what
	 * comes before it, not every slot. */
	struct acpi_cpu cpus[APSTART_MAX_CPUS];
};

/* Short record-friendly name of a warning kind ("madt_truncated"...). */
const char *acpi_warn_name(enum acpi_warn kind);

/* Validate an RSDP (checksum over 20 bytes, extended checksum over
 * length for revision >= 2). len is how many bytes are readable. */
bool acpi_rsdp_valid(const void *rsdp, size_t len);
/* The same check, saying why not ("bad signature", "bad checksum", ...),
 * or NULL for a valid RSDP. */
const char *acpi_rsdp_problem(const void *rsdp, size_t len);

/* Scan for "RSD PTR " on 16-byte boundaries in the EBDA's first KiB and in
 * 0xE0000-0xFFFFF (ACPI 6.5 §5.2.5.1). Returns the physical address or 0. */
uint64_t acpi_scan_rsdp(phys_map_fn map, void *map_ctx, uint64_t ebda_phys);

/* Walk RSDT/XSDT from a validated RSDP image and fill out. Returns 0 if a
 * MADT with at least one CPU was found, -1 otherwise (out still holds what
 * was found; every problem was reported through diag). */
int acpi_parse(const void *rsdp, size_t rsdp_len, uint64_t rsdp_phys,
	       phys_map_fn map, void *map_ctx, struct acpi_info *out,
	       diag_fn diag, void *diag_ctx);

#endif
