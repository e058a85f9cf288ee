// SPDX-License-Identifier: MIT
/* linux-hotplug: time Linux's own CPU hotplug through sysfs and print the
 * records apstart prints (@boot, @env, @cpu, @sample, @summary, @end), so
 * that aplog reads both alike. For each selected CPU, K cycles of writing
 * 0 then 1 to /sys/devices/system/cpu/cpuN/online, each write timed with
 * CLOCK_MONOTONIC. Every CPU is put back as it was at the start.
 * With --trace, Linux's cpuhp tracepoints are read around each write
 * (trace.h) and each state callback becomes an @cpuhp record.
 *
 * Exit status: 0 every cycle done, CPUs restored; 1 a CPU refused or the
 * run failed, CPUs restored; 2 usage error or refused before any change;
 * 3 a CPU could not be restored (named on stderr); 128+N stopped by
 * signal N, CPUs restored. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpus.h"
#include "report.h"
#include "restore.h"
#include "sysinfo.h"
#include "trace.h"

#define VERSION "0.1"
#define MAX_CYCLES 100000
/* 2 x 8 bytes per sample: caps memory at 512 MiB. */
#define MAX_SAMPLES (32u << 20)

struct options {
	const char *cpus;
	uint32_t cycles;
	bool dry_run;
	const char *sysfs_root;
	const char *proc_root;
	const char *kmsg_file;
	int wbinvd; /* -1: not given */
	bool trace;
	const char *tracefs;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: linux-hotplug [--cpus LIST] [--cycles K] [--dry-run] [--wbinvd 0|1]\n"
		"                     [--trace] [--tracefs DIR]\n"
		"                     [--sysfs-root DIR] [--proc-root DIR] [--kmsg FILE]\n"
		"Times Linux CPU hotplug: K cycles (default 10) of writing 0 then 1 to\n"
		"/sys/devices/system/cpu/cpuN/online for every CPU that has that file, or for\n"
		"LIST (e.g. 1-7,9). Prints apstart's records for aplog. Needs root. Every CPU\n"
		"is put back as it was, also after an error or Ctrl-C.\n"
		"  --dry-run         check everything, say what would be done, write nothing\n"
		"  --wbinvd 0|1      the running kernel's trampoline has WBINVD (1, stock\n"
		"                    Linux) or not (0, patched); recorded in @boot (default 1)\n"
		"  --trace           read Linux's cpuhp tracepoints around each write and print\n"
		"                    one @cpuhp record per state callback (tracefs, in an\n"
		"                    instance of its own, removed at the end)\n"
		"  --tracefs DIR     tracefs is mounted there (implies --trace; default\n"
		"                    <sysfs root>/kernel/tracing, then .../kernel/debug/tracing)\n"
		"  --sysfs-root DIR  use DIR instead of /sys   (env LINUX_HOTPLUG_SYSFS_ROOT)\n"
		"  --proc-root DIR   use DIR instead of /proc  (env LINUX_HOTPLUG_PROC_ROOT)\n"
		"  --kmsg FILE       read the kernel log from FILE instead of syslog(2)\n"
		"Exit: 0 done; 1 a CPU refused or the run failed (CPUs restored); 2 usage or\n"
		"refused before any change; 3 a CPU could not be restored; 128+N signal N.\n");
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "cycles", required_argument, NULL, 'k' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "sysfs-root", required_argument, NULL, 's' },
		{ "proc-root", required_argument, NULL, 'p' },
		{ "kmsg", required_argument, NULL, 'm' },
		{ "wbinvd", required_argument, NULL, 'w' },
		{ "trace", no_argument, NULL, 't' },
		{ "tracefs", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct options){ .cycles = 10, .wbinvd = -1 };
	o->sysfs_root = getenv("LINUX_HOTPLUG_SYSFS_ROOT");
	o->proc_root = getenv("LINUX_HOTPLUG_PROC_ROOT");
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		char *end;
		unsigned long v;
		switch (ch) {
		case 'c': o->cpus = optarg; break;
		case 'k':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-' ||
			    v < 1 || v > MAX_CYCLES) {
				fprintf(stderr, "linux-hotplug: --cycles '%s': expected 1..%d\n",
					optarg, MAX_CYCLES);
				return 2;
			}
			o->cycles = (uint32_t)v;
			break;
		case 'n': o->dry_run = true; break;
		case 's': o->sysfs_root = optarg; break;
		case 'p': o->proc_root = optarg; break;
		case 'm': o->kmsg_file = optarg; break;
		case 'w':
			if (strcmp(optarg, "0") && strcmp(optarg, "1")) {
				fprintf(stderr, "linux-hotplug: --wbinvd '%s': expected 0 or 1\n", optarg);
				return 2;
			}
			o->wbinvd = optarg[0] - '0';
			break;
		case 't': o->trace = true; break;
		case 'T': o->trace = true; o->tracefs = optarg; break;
		case 'h': usage(stdout); exit(0);
		default:
			fprintf(stderr, "linux-hotplug: '%s': unknown option, or its value is missing\n",
				argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "linux-hotplug: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (o->sysfs_root && !*o->sysfs_root)
		o->sysfs_root = NULL;
	if (o->proc_root && !*o->proc_root)
		o->proc_root = NULL;
	return 0;
}

/* Marks the CPUs to cycle. Refuses (returns 2) a listed CPU that does not
 * exist or cannot be offlined, and a selection that is empty. */
static int select_cpus(struct lh_cpus *cs, const char *list)
{
	char err[256];
	if (list) {
		static unsigned ids[LH_MAX_CPUS];
		long n = lh_parse_cpu_list(list, ids, LH_MAX_CPUS, err, sizeof(err));
		if (n < 0) {
			fprintf(stderr, "linux-hotplug: --cpus: %s\n", err);
			return 2;
		}
		int bad = 0;
		for (long i = 0; i < n; i++) {
			struct lh_cpu *c = lh_cpus_find(cs, ids[i]);
			char path[4200];
			lh_online_path(cs, ids[i], path, sizeof(path));
			if (!c) {
				fprintf(stderr, "linux-hotplug: cpu%u does not exist (no %s/cpu%u)\n",
					ids[i], cs->base, ids[i]);
				bad = 1;
			} else if (!c->hotpluggable) {
				fprintf(stderr, "linux-hotplug: refusing cpu%u: it cannot be taken "
					"offline (no %s; the boot CPU has none)\n", ids[i], path);
				bad = 1;
			} else {
				c->selected = true;
			}
		}
		return bad ? 2 : 0;
	}
	size_t n = 0;
	for (size_t i = 0; i < cs->n; i++) {
		struct lh_cpu *c = &cs->cpu[i];
		c->selected = c->hotpluggable;
		n += c->selected;
	}
	if (!n) {
		fprintf(stderr, "linux-hotplug: CPU hotplug is not available: no cpuN/online "
			"file in %s (a single CPU, or a kernel without CONFIG_HOTPLUG_CPU)\n",
			cs->base);
		return 2;
	}
	return 0;
}

/* Every selected online file must be writable; says why not. */
static int check_writable(const struct lh_cpus *cs, bool real_sysfs)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct lh_cpu *c = &cs->cpu[i];
		char path[4200];
		if (!c->selected)
			continue;
		lh_online_path(cs, c->id, path, sizeof(path));
		if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0)
			continue;
		int e = errno;
		if (geteuid() != 0)
			fprintf(stderr, "linux-hotplug: not root: %s is not writable (%s); "
				"CPU hotplug needs root: run it with sudo%s\n", path, strerror(e),
				real_sysfs ? "" : " (or fix the permissions of this tree)");
		else
			fprintf(stderr, "linux-hotplug: %s is not writable even as root: %s%s\n",
				path, strerror(e),
				e == EROFS ? " (sysfs mounted read-only, e.g. in a container)" : "");
		return 2;
	}
	return 0;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	default: return "signal";
	}
}

static void print_records_head(const struct lh_sysinfo *si, const struct lh_cpus *cs,
			       const struct options *o, const char *apic_source,
			       const char *prefix)
{
	size_t taking_part = 0;
	for (size_t i = 0; i < cs->n; i++)
		taking_part += cs->cpu[i].online_at_start || cs->cpu[i].selected;
	int wbinvd = o->wbinvd < 0 ? 1 : o->wbinvd;
	/* tsc_khz=1000000 tsc_source=clock_monotonic: ticks count
	 * CLOCK_MONOTONIC nanoseconds. tramp=0x0: Linux does not say where
	 * its trampoline is (page 0 never holds one). */
	printf("%s@boot kernel=linux version=%s wbinvd=%d cpus=%zu x2apic=%d "
	       "tsc_khz=1000000 tsc_source=clock_monotonic tramp=0x0 firmware=%s "
	       "cycles=%" PRIu32 " tool=linux-hotplug-" VERSION "\n", prefix,
	       si->release, wbinvd, taking_part, si->x2apic > 0 ? 1 : 0,
	       si->uefi ? "uefi" : "bios", o->cycles);
	char fam[16], mod[16], step[16];
	snprintf(fam, sizeof(fam), si->family < 0 ? "none" : "0x%x", si->family);
	snprintf(mod, sizeof(mod), si->model < 0 ? "none" : "0x%x", si->model);
	snprintf(step, sizeof(step), si->stepping < 0 ? "none" : "%d", si->stepping);
	printf("%s@env vendor=%s family=%s model=%s stepping=%s brand=%s llc_kib=%u "
	       "microcode=%s hypervisor=%d smt_control=%s smt_active=%d firmware=%s "
	       "x2apic_source=%s wbinvd_source=%s kmsg=%s apic_source=%s rcu_expedited=%d\n",
	       prefix, si->vendor, fam, mod, step, si->brand, si->llc_kib, si->microcode,
	       si->hypervisor, si->smt_control, si->smt_active,
	       si->uefi ? "uefi" : "bios", si->x2apic_source,
	       o->wbinvd < 0 ? "assumed" : "option", si->kmsg_source, apic_source,
	       si->rcu_expedited);
	for (size_t i = 0; i < cs->n; i++) {
		const struct lh_cpu *c = &cs->cpu[i];
		printf("%s@cpu cpu=%u apic=%ld state=%s hotplug=%d selected=%d\n", prefix,
		       c->id, c->apic, c->online_at_start ? "online" : "offline",
		       c->hotpluggable, c->selected);
	}
}

static void print_kernel_log(const struct lh_sysinfo *si)
{
	if (!si->have_kmsg) {
		printf("linux-hotplug: kernel log not read (%s)\n",
		       si->kmsg_source[0] == 'n' ? "not available" : si->kmsg_source);
		return;
	}
	if (si->bringup_line[0])
		printf("linux-hotplug: kernel log: %s\n", si->bringup_line);
	if (si->total_line[0])
		printf("linux-hotplug: kernel log: %s\n", si->total_line);
	if (si->apic_line[0])
		printf("linux-hotplug: kernel log: %s\n", si->apic_line);
	if (si->bringup_ns >= 0)
		printf("@linux_bringup cpus=%ld ns=%" PRId64 " from=printk_time\n",
		       si->bringup_cpus, si->bringup_ns);
	else
		printf("linux-hotplug: boot-time bring-up not in the kernel log "
		       "(rotated out, or no printk times)\n");
}

/* aplog needs each CPU's APIC ID, one to one with its number. /proc/cpuinfo
 * lists them for online x86 CPUs; if any CPU taking part has none (not
 * x86, no procfs), every CPU is labelled by its number instead, so that
 * real IDs and numbers never mix. */
static const char *label_apics(const char *proc_root, struct lh_cpus *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		cs->cpu[i].apic = -1;
	lh_sysinfo_apic_ids(proc_root, cs);
	bool all = true;
	for (size_t i = 0; i < cs->n; i++)
		if ((cs->cpu[i].selected || cs->cpu[i].online_at_start) && cs->cpu[i].apic < 0)
			all = false;
	if (all)
		return "cpuinfo";
	for (size_t i = 0; i < cs->n; i++)
		cs->cpu[i].apic = cs->cpu[i].id;
	return "cpu_number";
}

/* --trace: the tracing instance while it is up, else NULL. */
static struct lh_trace *tracer;
static bool trace_failed;

/* A tracefs write or read around a sysfs write failed: the run goes on
 * untraced from here, and fails. */
static void trace_broke(const struct lh_cpu *c, uint32_t cycle, const char *what, int err)
{
	printf("@fail what=trace cpu=%u cycle=%" PRIu32 " errno=%d\n", c->id, cycle, err);
	fprintf(stderr, "linux-hotplug: --trace: %s around cpu%u's write failed: %s; "
		"tracing stops here\n", what, c->id, strerror(err));
	trace_failed = true;
}

/* One timed write that must change the state; on failure says why. */
static bool step(struct lh_cpus *cs, struct lh_cpu *c, struct lh_samples *s,
		 size_t slot, uint32_t cycle, enum lh_op op)
{
	uint64_t ns, start;
	bool online = op == LH_ONLINE;
	const char *what = online ? "online" : "offline";
	bool traced = tracer && !trace_failed;
	int terr;
	if (traced && (terr = lh_trace_begin(tracer)) != 0) {
		trace_broke(c, cycle, "starting the trace", terr);
		traced = false;
	}
	int err = lh_write_online(cs, c->id, online, &ns, &start);
	if (traced && (terr = lh_trace_end(tracer)) != 0) {
		trace_broke(c, cycle, "reading the trace", terr);
		traced = false;
	}
	if (err) {
		printf("@fail what=%s_refused cpu=%u apic=%ld cycle=%" PRIu32
		       " errno=%d ns=%" PRIu64 "\n", what, c->id, c->apic, cycle, err, ns);
		fprintf(stderr, "linux-hotplug: cpu%u refused to go %s (cycle %" PRIu32 "): %s; "
			"leaving it out from here on\n", c->id, what, cycle, strerror(err));
		c->failed = true;
		return false;
	}
	int state = lh_read_online(cs, c->id);
	if (state != (int)online) {
		printf("@fail what=%s_not_taken cpu=%u apic=%ld cycle=%" PRIu32 "\n",
		       what, c->id, c->apic, cycle);
		fprintf(stderr, "linux-hotplug: cpu%u: the write succeeded but the CPU is %s; "
			"leaving it out from here on\n", c->id,
			state < 0 ? "in an unknown state" : state ? "online" : "offline");
		c->failed = true;
		return false;
	}
	s->ns[op][slot * s->cycles + c->samples[op]] = ns;
	c->samples[op]++;
	lh_print_sample(c, cycle, op, ns);
	if (traced)
		lh_trace_report(tracer, c, cycle, what, start, ns);
	return true;
}

/* Offline CPUs that were selected are brought online first (not timed),
 * so that every cycle starts from online as apstart's do. */
static bool prepare(struct lh_cpus *cs)
{
	bool ok = true;
	for (size_t i = 0; i < cs->n && !lh_stop_signal(); i++) {
		struct lh_cpu *c = &cs->cpu[i];
		if (!c->selected || c->online_at_start)
			continue;
		uint64_t ns;
		int err = lh_write_online(cs, c->id, true, &ns, NULL);
		if (err || lh_read_online(cs, c->id) != 1) {
			printf("@fail what=prepare_online cpu=%u errno=%d\n", c->id, err);
			fprintf(stderr, "linux-hotplug: cpu%u was offline and could not be brought "
				"online to start: %s\n", c->id, err ? strerror(err) : "state unchanged");
			c->failed = true;
			ok = false;
		}
	}
	return ok;
}

int main(int argc, char **argv)
{
	struct options o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc;
	setvbuf(stdout, NULL, _IOLBF, 0);

	bool real_sysfs = o.sysfs_root == NULL;
	const char *sysfs = o.sysfs_root ? o.sysfs_root : "/sys";
	const char *proc = o.proc_root ? o.proc_root : "/proc";

	struct lh_cpus cs;
	char err[512];
	if (lh_cpus_scan(&cs, sysfs, err, sizeof(err)) != 0) {
		fprintf(stderr, "linux-hotplug: %s\n", err);
		return 2;
	}
	rc = select_cpus(&cs, o.cpus);
	if (!rc)
		rc = check_writable(&cs, real_sysfs);
	if (rc) {
		if (o.dry_run)
			printf("dry-run: a real run would refuse (above); nothing was written\n");
		lh_cpus_free(&cs);
		return rc;
	}
	static struct lh_trace trace;
	if (o.trace && lh_trace_probe(&trace, o.tracefs, sysfs, err, sizeof(err)) != 0) {
		fprintf(stderr, "linux-hotplug: %s\n", err);
		if (o.dry_run)
			printf("dry-run: a real run would refuse (above); nothing was written\n");
		lh_trace_free(&trace);
		lh_cpus_free(&cs);
		return 2;
	}
	size_t nsel = 0;
	for (size_t i = 0; i < cs.n; i++)
		nsel += cs.cpu[i].selected;
	if ((uint64_t)nsel * o.cycles > MAX_SAMPLES) {
		fprintf(stderr, "linux-hotplug: %zu CPUs x %" PRIu32 " cycles is more than %u "
			"samples per direction: use fewer --cycles\n", nsel, o.cycles, MAX_SAMPLES);
		lh_cpus_free(&cs);
		return 2;
	}

	struct lh_sysinfo si;
	lh_sysinfo_collect(&si, sysfs, proc, o.kmsg_file, real_sysfs, &cs);
	const char *apic_source = label_apics(proc, &cs);
	if (o.dry_run) {
		printf("dry-run: would cycle %zu CPU(s) %" PRIu32 " time(s) each (write 0, then 1, "
		       "to %s/cpuN/online, each write timed):", nsel, o.cycles, cs.base);
		for (size_t i = 0; i < cs.n; i++)
			if (cs.cpu[i].selected)
				printf(" cpu%u%s", cs.cpu[i].id,
				       cs.cpu[i].online_at_start ? "" : "(offline now: brought online first, left offline at the end)");
		printf("\ndry-run: left alone:");
		for (size_t i = 0; i < cs.n; i++)
			if (!cs.cpu[i].selected)
				printf(" cpu%u%s", cs.cpu[i].id,
				       cs.cpu[i].hotpluggable ? "" : "(no online file)");
		printf("\n");
		if (o.trace)
			printf("dry-run: would trace the cpuhp events of each write in a tracefs "
			       "instance %s/instances/linux-hotplug.%ld (clock mono; %zu state "
			       "names from hotplug/states), removed at the end\n", trace.root,
			       (long)getpid(), trace.nnames);
		printf("dry-run: the records would begin:\n");
		print_records_head(&si, &cs, &o, apic_source, "  ");
		print_kernel_log(&si);
		printf("dry-run: nothing was written\n");
		lh_trace_free(&trace);
		lh_cpus_free(&cs);
		return 0;
	}

	struct lh_samples s;
	if (lh_samples_alloc(&s, nsel, o.cycles) != 0) {
		fprintf(stderr, "linux-hotplug: out of memory for %zu x %" PRIu32 " samples\n",
			nsel, o.cycles);
		lh_cpus_free(&cs);
		return 2;
	}

	lh_signals_install();
	printf("linux-hotplug %s: Linux %s, %zu CPU(s) to cycle %" PRIu32 " time(s) through %s\n",
	       VERSION, si.release, nsel, o.cycles, cs.base);
	print_kernel_log(&si);
	bool ok = prepare(&cs);
	/* APIC IDs of CPUs that were offline are listed only now. */
	apic_source = label_apics(proc, &cs);
	print_records_head(&si, &cs, &o, apic_source, "");
	if (o.trace && !lh_stop_signal()) {
		if (lh_trace_start(&trace, err, sizeof(err)) == 0) {
			tracer = &trace;
			printf("@cpuhp_trace tracefs=%s clock=mono states=%zu\n", trace.root,
			       trace.nnames);
		} else {
			printf("@fail what=trace_setup\n");
			fprintf(stderr, "linux-hotplug: %s\n", err);
			trace_failed = true;
		}
	}

	size_t slot = 0;
	/* Asked to trace and could not: no untraced cycles instead. */
	bool skip = o.trace && !tracer;
	for (size_t i = 0; i < cs.n && !lh_stop_signal() && !skip; i++) {
		struct lh_cpu *c = &cs.cpu[i];
		if (!c->selected)
			continue;
		size_t my = slot++;
		for (uint32_t k = 1; k <= o.cycles && !c->failed && !lh_stop_signal(); k++) {
			if (!step(&cs, c, &s, my, k, LH_OFFLINE) || lh_stop_signal())
				break;
			step(&cs, c, &s, my, k, LH_ONLINE);
		}
		if (c->failed)
			ok = false;
	}

	lh_signals_block();
	int sig = lh_stop_signal();
	if (sig) {
		printf("@fail what=interrupted signal=%s\n", signame(sig));
		fprintf(stderr, "linux-hotplug: %s: stopping, putting every CPU back\n",
			signame(sig));
	}
	/* Tracing off before the restore's writes, which are not measured. */
	bool trace_left = o.trace && !lh_trace_stop(&trace);
	tracer = NULL;
	if (trace_failed)
		ok = false;
	unsigned left = lh_restore(&cs);

	lh_report(&cs, &s);
	unsigned failed = 0, online = 0;
	for (size_t i = 0; i < cs.n; i++) {
		const struct lh_cpu *c = &cs.cpu[i];
		bool complete = c->samples[LH_ONLINE] == o.cycles;
		if (c->selected && (c->failed || !complete))
			failed++;
		else if (c->selected || c->online_at_start)
			online++;
	}
	bool pass = ok && !sig && !left && !failed && !trace_left;
	printf("@end status=%s online=%u failed=%u restored=%s\n", pass ? "pass" : "fail",
	       online, failed, left ? "no" : "yes");
	if (left)
		fprintf(stderr, "linux-hotplug: %u CPU(s) NOT restored (see above)\n", left);

	lh_samples_free(&s);
	lh_trace_free(&trace);
	lh_cpus_free(&cs);
	if (left)
		return 3;
	if (sig)
		return 128 + sig;
	return pass ? 0 : 1;
}
