/* SPDX-License-Identifier: MIT */
/* What the boot found and chose, printed before the measurement: lines
 * for people (the banner, boot:, cmdline:, cpus:, wake:, nmi:, park:,
 * cpu:) and records for aplog (@boot, @env, @cpu of a skipped CPU, the
 * MADT's @warn). kmain (app/main.c) decides; this file only prints. */
#ifndef APSTART_BOOT_REPORT_H
#define APSTART_BOOT_REPORT_H

#include <stdint.h>

#include "app/options.h"
#include "app/wing.h"
#include "smp/wake.h"
#include "kernel/acpi.h"
#include "kernel/multiboot.h"

/* What boot_report_run() prints from. */
struct boot_choices {
	const struct boot_info *boot;
	const struct acpi_info *acpi;
	const struct options *opt;
	uint64_t tramp;           /* the trampoline's (SIPI) page */
	const struct run_facts *facts; /* whose trampoline, its WBINVD */
	uint32_t aps;             /* APs to start */
	uint32_t cycles;          /* per AP, after the sample store's bound */
};

/* The first line: version, architecture, trampoline variant. */
void boot_report_banner(void);
/* The loader, firmware and screen, and the command line as given. */
void boot_report_loader(const struct boot_info *boot, const char *firmware_why);
/* One @warn record per kind of MADT/ACPI problem acpi_parse() counted. */
void boot_report_acpi_warnings(const struct acpi_info *acpi);
/* The CPUs, the skipped ones, the wake and park configuration, @boot
 * and the machine (@env). */
void boot_report_run(const struct boot_choices *c);
/* The header's CPU model: the brand string without its padding, or
 * vendor, family and model when the CPU has none. */
void boot_report_cpu_model(char out[49]);

#endif
