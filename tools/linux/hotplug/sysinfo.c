// SPDX-License-Identifier: MIT
/* Machine facts for @boot/@env: /proc/cpuinfo (vendor, family, model,
 * stepping, microcode, APIC IDs), sysfs (cache sizes, SMT control, EFI),
 * the kernel release, and the kernel log's own account of the boot-time
 * bring-up (smp_init() prints "Bringing up secondary CPUs ..." before and
 * "Brought up N nodes, M CPUs" after bringing up every AP). */
#define _GNU_SOURCE
#include "sysinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* syslog(2) actions (man 2 syslog). */
enum { SYSLOG_READ_ALL = 3, SYSLOG_SIZE_BUFFER = 10 };

/* Whole file into a malloc'd NUL-terminated buffer (procfs files report
 * size 0, so read until EOF). Caps at max bytes. */
static char *slurp(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		if (n == cap) {
			if (cap >= max)
				break;
			cap *= 2;
			char *p = realloc(buf, cap + 1);
			if (!p) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = p;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

static bool read_line(const char *path, char *out, size_t len)
{
	size_t n;
	char *b = slurp(path, 4096, &n);
	if (!b)
		return false;
	b[strcspn(b, "\n")] = '\0';
	snprintf(out, len, "%s", b);
	free(b);
	return true;
}

/* Record values are key=value tokens: anything not printable, a space or
 * '=' becomes '_'; trailing blanks go; empty becomes "none". */
static void record_safe(char *dst, size_t len, const char *src)
{
	size_t n = 0;
	while (*src == ' ' || *src == '\t')
		src++;
	for (; *src && *src != '\n' && n + 1 < len; src++) {
		unsigned char ch = (unsigned char)*src;
		dst[n++] = (ch <= 0x20 || ch >= 0x7f || ch == '=') ? '_' : (char)ch;
	}
	while (n > 0 && dst[n - 1] == '_')
		n--;
	dst[n] = '\0';
	if (n == 0)
		snprintf(dst, len, "none");
}

/* "key\t: value" -> value, for a key at the start of line. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t kl = strlen(key);
	if (strncmp(line, key, kl) != 0)
		return NULL;
	const char *p = line + kl;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static bool has_flag(const char *flags, const char *flag)
{
	size_t fl = strlen(flag);
	for (const char *p = flags; *p;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " \n");
		if (n == fl && strncmp(p, flag, fl) == 0)
			return true;
		p += n;
		if (*p == '\n' || !*p)
			break;
	}
	return false;
}

static int parse_int(const char *v, int base)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, base);
	if (errno || end == v || x < 0 || x > 0x7fffffff)
		return -1;
	return (int)x;
}

/* Facts from the first processor block of /proc/cpuinfo. */
static void read_cpuinfo(struct lh_sysinfo *si, const char *proc_root)
{
	char path[4200];
	size_t len;
	snprintf(path, sizeof(path), "%s/cpuinfo", proc_root);
	char *text = slurp(path, 64u << 20, &len);
	if (!text)
		return;
	si->have_cpuinfo = true;
	int blocks = 0;
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		const char *v;
		if (cpuinfo_value(line, "processor") && ++blocks > 1)
			break;
		if ((v = cpuinfo_value(line, "vendor_id")))
			record_safe(si->vendor, sizeof(si->vendor), v);
		else if ((v = cpuinfo_value(line, "cpu family")))
			si->family = parse_int(v, 10);
		else if ((v = cpuinfo_value(line, "model name")))
			record_safe(si->brand, sizeof(si->brand), v);
		else if ((v = cpuinfo_value(line, "model")))
			si->model = parse_int(v, 10);
		else if ((v = cpuinfo_value(line, "stepping")))
			si->stepping = parse_int(v, 10);
		else if ((v = cpuinfo_value(line, "microcode")))
			record_safe(si->microcode, sizeof(si->microcode), v);
		else if ((v = cpuinfo_value(line, "cache size")) && si->llc_kib == 0)
			si->llc_kib = (unsigned)strtoul(v, NULL, 10); /* "512 KB" */
		else if ((v = cpuinfo_value(line, "flags"))) {
			si->hypervisor = has_flag(v, "hypervisor");
			si->x2apic = has_flag(v, "x2apic");
			si->x2apic_source = "cpuinfo";
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	free(text);
}

unsigned lh_sysinfo_apic_ids(const char *proc_root, struct lh_cpus *cs)
{
	char path[4200];
	size_t len;
	unsigned found = 0;
	snprintf(path, sizeof(path), "%s/cpuinfo", proc_root);
	char *text = slurp(path, 64u << 20, &len);
	if (!text)
		return 0;
	long cur = -1;
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		const char *v;
		if ((v = cpuinfo_value(line, "processor")))
			cur = parse_int(v, 10);
		else if ((v = cpuinfo_value(line, "apicid")) && cur >= 0) {
			struct lh_cpu *c = lh_cpus_find(cs, (unsigned)cur);
			int a = parse_int(v, 10);
			if (c && a >= 0) {
				if (c->apic < 0)
					found++;
				c->apic = a;
			}
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	free(text);
	return found;
}

/* Largest cache level of one CPU ("32768K" in cpuN/cache/indexI/size). */
static unsigned sysfs_llc_kib(const char *cpu_base, unsigned id)
{
	unsigned best_level = 0, best_kib = 0;
	for (int i = 0; i < 16; i++) {
		char path[4300], level[32], size[32], type[32];
		snprintf(path, sizeof(path), "%s/cpu%u/cache/index%d/level", cpu_base, id, i);
		if (!read_line(path, level, sizeof(level)))
			continue;
		snprintf(path, sizeof(path), "%s/cpu%u/cache/index%d/type", cpu_base, id, i);
		if (read_line(path, type, sizeof(type)) && strcmp(type, "Instruction") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%u/cache/index%d/size", cpu_base, id, i);
		if (!read_line(path, size, sizeof(size)))
			continue;
		unsigned lv = (unsigned)strtoul(level, NULL, 10);
		char *end;
		unsigned long kib = strtoul(size, &end, 10);
		if (*end == 'M')
			kib *= 1024;
		if (lv > best_level) {
			best_level = lv;
			best_kib = (unsigned)kib;
		}
	}
	return best_kib;
}

/* "[   12.345678] " -> ns; moves *p past it. */
static bool printk_time(const char **p, int64_t *ns)
{
	const char *s = *p;
	if (*s != '[')
		return false;
	s++;
	while (*s == ' ')
		s++;
	int64_t sec = 0, frac = 0;
	int digits = 0;
	if (*s < '0' || *s > '9')
		return false;
	while (*s >= '0' && *s <= '9' && sec < 100000000000)
		sec = sec * 10 + (*s++ - '0');
	if (*s != '.')
		return false;
	s++;
	while (*s >= '0' && *s <= '9') {
		if (digits < 9) {
			frac = frac * 10 + (*s - '0');
			digits++;
		}
		s++;
	}
	if (*s != ']')
		return false;
	while (digits < 9) {
		frac *= 10;
		digits++;
	}
	s++;
	if (*s == ' ')
		s++;
	*p = s;
	*ns = sec * 1000000000 + frac;
	return true;
}

static void keep_line(char *dst, size_t len, const char *text, size_t n)
{
	if (n >= len)
		n = len - 1;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)text[i];
		dst[k++] = (ch < 0x20 || ch >= 0x7f) ? '?' : (char)ch;
	}
	dst[k] = '\0';
}

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);
	return n >= pl && memcmp(s, prefix, pl) == 0;
}

static bool contains(const char *s, size_t n, const char *needle)
{
	size_t nl = strlen(needle);
	for (size_t i = 0; i + nl <= n; i++)
		if (memcmp(s + i, needle, nl) == 0)
			return true;
	return false;
}

void lh_sysinfo_parse_kmsg(struct lh_sysinfo *si, const char *text, size_t len)
{
	int64_t t_begin = -1;
	const char *end = text + len;
	for (const char *line = text; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *le = nl ? nl : end;
		const char *p = line;
		/* "<6>" syslog level, or dmesg -r's "<6>" too. */
		if (p < le && *p == '<') {
			const char *q = memchr(p, '>', (size_t)(le - p));
			if (q && q - p <= 8)
				p = q + 1;
		}
		int64_t t = -1;
		char tl[64];
		size_t tn = (size_t)(le - p) < sizeof(tl) - 1 ? (size_t)(le - p) : sizeof(tl) - 1;
		memcpy(tl, p, tn); /* printk_time reads a NUL-terminated copy */
		tl[tn] = '\0';
		const char *tp = tl;
		if (printk_time(&tp, &t))
			p += tp - tl;
		size_t n = (size_t)(le - p);

		if (starts(p, n, "smp: Bringing up secondary CPUs")) {
			t_begin = t;
		} else if (starts(p, n, "smp: Brought up ")) {
			keep_line(si->bringup_line, sizeof(si->bringup_line), p, n);
			/* "smp: Brought up 1 node, 8 CPUs" */
			const char *c = memchr(p, ',', n);
			si->bringup_cpus = c ? strtol(c + 1, NULL, 10) : -1;
			si->bringup_ns = (t >= 0 && t_begin >= 0 && t >= t_begin) ? t - t_begin : -1;
		} else if (contains(p, n, "Total of ") && contains(p, n, "processors activated")) {
			keep_line(si->total_line, sizeof(si->total_line), p, n);
		} else if (contains(p, n, "x2apic enabled") ||
			   contains(p, n, "x2apic: enabled by BIOS")) {
			si->x2apic = 1;
			si->x2apic_source = "kmsg";
		} else if (contains(p, n, "APIC routing to")) {
			keep_line(si->apic_line, sizeof(si->apic_line), p, n);
		}
		line = nl ? nl + 1 : end;
	}
	/* Logged APIC routing without "x2apic enabled": xAPIC mode. */
	if (strcmp(si->x2apic_source, "kmsg") != 0 && si->apic_line[0] &&
	    !strstr(si->apic_line, "x2apic")) {
		si->x2apic = 0;
		si->x2apic_source = "kmsg";
	}
}

static char *read_syslog(size_t *len)
{
	int size = klogctl(SYSLOG_SIZE_BUFFER, NULL, 0);
	if (size <= 0)
		return NULL;
	char *buf = malloc((size_t)size + 1);
	if (!buf)
		return NULL;
	int n = klogctl(SYSLOG_READ_ALL, buf, size);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

void lh_sysinfo_collect(struct lh_sysinfo *si, const char *sysfs_root,
			const char *proc_root, const char *kmsg_file,
			bool use_syslog, const struct lh_cpus *cs)
{
	char path[4200], v[LH_STR];
	memset(si, 0, sizeof(*si));
	si->family = si->model = si->stepping = -1;
	si->hypervisor = si->smt_active = si->x2apic = si->rcu_expedited = -1;
	si->x2apic_source = "none";
	si->kmsg_source = "none";
	si->bringup_cpus = -1;
	si->bringup_ns = -1;
	snprintf(si->vendor, sizeof(si->vendor), "none");
	snprintf(si->brand, sizeof(si->brand), "none");
	snprintf(si->microcode, sizeof(si->microcode), "none");

	snprintf(path, sizeof(path), "%s/sys/kernel/osrelease", proc_root);
	if (read_line(path, v, sizeof(v))) {
		record_safe(si->release, sizeof(si->release), v);
	} else {
		struct utsname u;
		record_safe(si->release, sizeof(si->release),
			    uname(&u) == 0 ? u.release : "none");
	}

	read_cpuinfo(si, proc_root);

	for (size_t i = 0; i < cs->n; i++) {
		if (!cs->cpu[i].online_at_start)
			continue;
		unsigned kib = sysfs_llc_kib(cs->base, cs->cpu[i].id);
		if (kib)
			si->llc_kib = kib;
		break;
	}

	snprintf(path, sizeof(path), "%s/smt/control", cs->base);
	if (read_line(path, v, sizeof(v)))
		record_safe(si->smt_control, sizeof(si->smt_control), v);
	else
		snprintf(si->smt_control, sizeof(si->smt_control), "none");
	snprintf(path, sizeof(path), "%s/smt/active", cs->base);
	if (read_line(path, v, sizeof(v)))
		si->smt_active = v[0] == '1';

	/* Expedited grace periods shorten the synchronize_rcu() waits of
	 * the hotplug callbacks: a run records which it had. */
	snprintf(path, sizeof(path), "%s/kernel/rcu_expedited", sysfs_root);
	if (read_line(path, v, sizeof(v)))
		si->rcu_expedited = v[0] == '1';

	struct stat st;
	snprintf(path, sizeof(path), "%s/firmware/efi", sysfs_root);
	si->uefi = stat(path, &st) == 0;

	size_t len = 0;
	char *log = NULL;
	if (kmsg_file) {
		log = slurp(kmsg_file, 64u << 20, &len);
		si->kmsg_source = "file";
	} else if (use_syslog) {
		log = read_syslog(&len);
		si->kmsg_source = "syslog";
	}
	if (log) {
		si->have_kmsg = true;
		lh_sysinfo_parse_kmsg(si, log, len);
		free(log);
	} else {
		si->kmsg_source = "none";
	}
}
