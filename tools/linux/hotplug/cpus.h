/* SPDX-License-Identifier: MIT */
/* The CPUs as sysfs shows them: which exist, which can be taken offline
 * (have an `online` file), their state, and the timed state change. */
#ifndef LINUX_HOTPLUG_CPUS_H
#define LINUX_HOTPLUG_CPUS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* Linux's NR_CPUS tops out at 8192 (x86_64 MAXSMP). */
#define LH_MAX_CPUS 8192

struct lh_cpu {
	unsigned id;        /* N of /sys/devices/system/cpu/cpuN */
	bool hotpluggable;  /* has cpuN/online */
	bool online_at_start;
	bool selected;
	bool failed;        /* a write was refused or did not take effect */
	long apic;          /* from /proc/cpuinfo, -1 unknown */
	uint32_t samples[2]; /* timed writes that took effect: [0] offline, [1] online */
};

struct lh_cpus {
	char base[4096];    /* <sysfs root>/devices/system/cpu */
	struct lh_cpu *cpu; /* sorted by id */
	size_t n;
};

/* Reads <sysfs_root>/devices/system/cpu. Returns 0, or -1 with a message
 * in err (no such directory, no CPUs, out of memory). */
int lh_cpus_scan(struct lh_cpus *cs, const char *sysfs_root, char *err,
		 size_t errlen);
void lh_cpus_free(struct lh_cpus *cs);
struct lh_cpu *lh_cpus_find(struct lh_cpus *cs, unsigned id);

/* Parses "1-7,9" into a sorted id list (no duplicates). Returns the count,
 * or -1 with a message in err. */
long lh_parse_cpu_list(const char *s, unsigned *ids, size_t max, char *err,
		       size_t errlen);

/* Path of cpuN/online. */
void lh_online_path(const struct lh_cpus *cs, unsigned id, char *buf,
		    size_t len);

/* 1 online, 0 offline, -1 error (errno set; -1 with errno EINVAL when the
 * file holds something other than 0 or 1). */
int lh_read_online(const struct lh_cpus *cs, unsigned id);

/* Writes "0\n" or "1\n" to cpuN/online, timing only the write with
 * CLOCK_MONOTONIC (start_ns, if not NULL: when it began, CLOCK_MONOTONIC
 * ns, the clock --trace sets tracefs to). Returns 0, or the errno of the
 * failed open/write. */
int lh_write_online(const struct lh_cpus *cs, unsigned id, bool online,
		    uint64_t *ns, uint64_t *start_ns);

#endif
