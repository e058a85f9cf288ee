// SPDX-License-Identifier: MIT
/* sysfs CPU directory: discovery, state, and the timed write. The write
 * is the whole measured operation: Linux's online_store() runs the entire
 * CPU hotplug state machine before write() returns. */
#define _GNU_SOURCE
#include "cpus.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int cmp_cpu(const void *a, const void *b)
{
	const struct lh_cpu *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* "cpu" followed by decimal digits only (not cpufreq, cpuidle, ...). */
static bool cpu_dir_id(const char *name, unsigned *id)
{
	if (strncmp(name, "cpu", 3) != 0 || name[3] < '0' || name[3] > '9')
		return false;
	unsigned long v = 0;
	for (const char *p = name + 3; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
		if (v >= LH_MAX_CPUS)
			return false;
	}
	*id = (unsigned)v;
	return true;
}

void lh_online_path(const struct lh_cpus *cs, unsigned id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/cpu%u/online", cs->base, id);
}

/* Reads a small file into buf (NUL-terminated). Returns bytes or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	int saved = errno;
	close(fd);
	errno = saved;
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

int lh_read_online(const struct lh_cpus *cs, unsigned id)
{
	char path[4200], buf[16];
	lh_online_path(cs, id, path, sizeof(path));
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	if ((buf[0] == '0' || buf[0] == '1') && (buf[1] == '\0' || buf[1] == '\n'))
		return buf[0] == '1';
	errno = EINVAL;
	return -1;
}

int lh_write_online(const struct lh_cpus *cs, unsigned id, bool online,
		    uint64_t *ns, uint64_t *start_ns)
{
	char path[4200];
	lh_online_path(cs, id, path, sizeof(path));
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	struct timespec t0, t1;
	const char *v = online ? "1\n" : "0\n";
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Offset 0: sysfs ignores it, a plain file (fake tree) is overwritten. */
	ssize_t n = pwrite(fd, v, 2, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	int err = n == 2 ? 0 : n < 0 ? errno : EIO;
	close(fd);
	*ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
	      (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
	if (start_ns)
		*start_ns = (uint64_t)t0.tv_sec * 1000000000u + (uint64_t)t0.tv_nsec;
	return err;
}

/* devices/system/cpu/online ("0-3,5"): the state of CPUs that have no
 * online file of their own. Returns false if unreadable. */
static bool in_online_list(const struct lh_cpus *cs, unsigned id, bool *known)
{
	char path[4200], buf[4096], err[64];
	static unsigned ids[LH_MAX_CPUS];
	snprintf(path, sizeof(path), "%s/online", cs->base);
	*known = false;
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	long n = lh_parse_cpu_list(buf, ids, LH_MAX_CPUS, err, sizeof(err));
	if (n < 0)
		return false;
	*known = true;
	for (long i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

int lh_cpus_scan(struct lh_cpus *cs, const char *sysfs_root, char *err,
		 size_t errlen)
{
	memset(cs, 0, sizeof(*cs));
	if ((size_t)snprintf(cs->base, sizeof(cs->base), "%s/devices/system/cpu",
			     sysfs_root) >= sizeof(cs->base)) {
		snprintf(err, errlen, "sysfs root path too long");
		return -1;
	}
	DIR *d = opendir(cs->base);
	if (!d) {
		snprintf(err, errlen, "cannot read %s: %s (is sysfs mounted?)",
			 cs->base, strerror(errno));
		return -1;
	}
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		unsigned id;
		if (!cpu_dir_id(e->d_name, &id))
			continue;
		if (cs->n == cap) {
			cap = cap ? cap * 2 : 64;
			struct lh_cpu *p = realloc(cs->cpu, cap * sizeof(*p));
			if (!p) {
				closedir(d);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			cs->cpu = p;
		}
		cs->cpu[cs->n++] = (struct lh_cpu){ .id = id, .apic = -1 };
	}
	closedir(d);
	if (cs->n == 0) {
		snprintf(err, errlen, "no cpuN directories in %s", cs->base);
		return -1;
	}
	qsort(cs->cpu, cs->n, sizeof(*cs->cpu), cmp_cpu);

	for (size_t i = 0; i < cs->n; i++) {
		struct lh_cpu *c = &cs->cpu[i];
		char path[4200];
		struct stat st;
		lh_online_path(cs, c->id, path, sizeof(path));
		c->hotpluggable = stat(path, &st) == 0;
		if (c->hotpluggable) {
			int s = lh_read_online(cs, c->id);
			if (s < 0) {
				snprintf(err, errlen, "cannot read %s: %s", path,
					 errno == EINVAL ? "neither 0 nor 1" : strerror(errno));
				return -1;
			}
			c->online_at_start = s == 1;
		} else {
			/* No online file: the boot CPU, or a kernel without
			 * CONFIG_HOTPLUG_CPU. Such a CPU is always online. */
			bool known;
			c->online_at_start = in_online_list(cs, c->id, &known) || !known;
		}
	}
	return 0;
}

void lh_cpus_free(struct lh_cpus *cs)
{
	free(cs->cpu);
	cs->cpu = NULL;
	cs->n = 0;
}

struct lh_cpu *lh_cpus_find(struct lh_cpus *cs, unsigned id)
{
	for (size_t i = 0; i < cs->n; i++)
		if (cs->cpu[i].id == id)
			return &cs->cpu[i];
	return NULL;
}

static bool parse_uint(const char **p, unsigned *out)
{
	const char *s = *p;
	unsigned long v = 0;
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v >= LH_MAX_CPUS)
			return false;
		s++;
	}
	*p = s;
	*out = (unsigned)v;
	return true;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

long lh_parse_cpu_list(const char *s, unsigned *ids, size_t max, char *err,
		       size_t errlen)
{
	size_t n = 0;
	const char *p = s;
	if (!*p) {
		snprintf(err, errlen, "empty CPU list");
		return -1;
	}
	for (;;) {
		unsigned a, b;
		const char *item = p;
		if (!parse_uint(&p, &a)) {
			snprintf(err, errlen, "bad CPU list '%s' at '%s' (expected e.g. 1-7,9; "
				 "CPU numbers below %d)", s, item, LH_MAX_CPUS);
			return -1;
		}
		b = a;
		if (*p == '-') {
			p++;
			if (!parse_uint(&p, &b) || b < a) {
				snprintf(err, errlen, "bad range in CPU list '%s' at '%s'", s, item);
				return -1;
			}
		}
		for (unsigned v = a; v <= b; v++) {
			if (n == max) {
				snprintf(err, errlen, "CPU list '%s' names more than %zu CPUs", s, max);
				return -1;
			}
			ids[n++] = v;
		}
		if (*p == '\0')
			break;
		if (*p != ',') {
			snprintf(err, errlen, "bad CPU list '%s' at '%s'", s, p);
			return -1;
		}
		p++;
	}
	qsort(ids, n, sizeof(*ids), cmp_uint);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || ids[k - 1] != ids[i])
			ids[k++] = ids[i];
	return (long)k;
}
