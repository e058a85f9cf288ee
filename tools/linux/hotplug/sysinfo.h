/* SPDX-License-Identifier: MIT */
/* What the @boot and @env records say about the machine and the running
 * kernel, read from procfs, sysfs and the kernel log. */
#ifndef LINUX_HOTPLUG_SYSINFO_H
#define LINUX_HOTPLUG_SYSINFO_H

#include <stdbool.h>
#include <stdint.h>

#include "cpus.h"

#define LH_STR 80

struct lh_sysinfo {
	/* Every string is record-safe: printable, no spaces or '='. */
	char release[LH_STR];     /* uname -r */
	char vendor[LH_STR];
	char brand[LH_STR];
	char microcode[LH_STR];
	char smt_control[LH_STR]; /* on|off|forceoff|notsupported|notimplemented|none */
	int family, model, stepping; /* -1 unknown */
	int hypervisor;           /* CPUID hypervisor bit as cpuinfo shows it; -1 unknown */
	int smt_active;           /* -1 unknown */
	int rcu_expedited;        /* /sys/kernel/rcu_expedited; -1 unknown */
	unsigned llc_kib;         /* 0 unknown */
	bool uefi;                /* /sys/firmware/efi exists */
	bool have_cpuinfo;

	/* x2APIC in use: the kernel log says so ("x2apic enabled"), else
	 * the cpuinfo flag (which nox2apic clears, but a failed switch does
	 * not). */
	int x2apic;
	const char *x2apic_source; /* kmsg|cpuinfo|none */

	/* From the kernel log (empty when it could not be read). */
	bool have_kmsg;
	const char *kmsg_source;   /* syslog|file|none */
	char bringup_line[256];    /* "smp: Brought up 1 node, 8 CPUs" */
	char total_line[256];      /* "smpboot: Total of 8 processors activated ..." */
	char apic_line[256];       /* APIC routing */
	long bringup_cpus;         /* N of "Brought up ..., N CPUs", -1 none */
	int64_t bringup_ns;        /* printk time "Brought up" - "Bringing up", -1 none */
};

/* kmsg_file: read the kernel log from this file (tests, or a saved dmesg);
 * NULL and use_syslog: read it with syslog(2); NULL and !use_syslog: none. */
void lh_sysinfo_collect(struct lh_sysinfo *si, const char *sysfs_root,
			const char *proc_root, const char *kmsg_file,
			bool use_syslog, const struct lh_cpus *cs);

/* Sets each CPU's apic from /proc/cpuinfo ("apicid"; only online CPUs are
 * listed). Returns how many were found. */
unsigned lh_sysinfo_apic_ids(const char *proc_root, struct lh_cpus *cs);

/* Parses one kernel log text (as syslog(2) READ_ALL or dmesg -r gives it,
 * "<6>[    0.123456] text" lines; prefixes optional) into si. Exposed for
 * tests. */
void lh_sysinfo_parse_kmsg(struct lh_sysinfo *si, const char *text, size_t len);

#endif
