/* SPDX-License-Identifier: MIT */
/* aplog fleet: one table for many machines, from serial logs, make lava's
 * results files (tools/lab/lava/results.py) and directories of them.
 *
 * A machine is what its runs say about it: @env vendor, family/model,
 * brand and microcode (when the record has it), @boot cpus and firmware,
 * and the kernel's arch. Each run that passed gives ONE value per op: its
 * mean AP start (the run's total over its counted samples; records-only
 * runs: @summary's total over cpus x cycles). Per machine, the WBINVD=1
 * runs (A, Linux before the patch) are set against the WBINVD=0 runs (B)
 * through tools/aplog/stats/verdict.c, as aplog compare does; the saving per CPU is
 * A's mean online start minus B's. The same run found in two files (a
 * serial log and a results file of one boot) counts once. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/format.h"
#include "tools/aplog/stats/verdict.h"
#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/out/text.h"
#include "tools/aplog/read/records.h"
#include "tools/aplog/stats/sets.h"
#include "tools/aplog/util.h"

/* K_FLUSH: runs under QEMU's flush model (@host flush_model=) are not the
 * same machine as runs without it. */
enum key {
	K_VENDOR, K_FAMILY, K_MODEL, K_BRAND, K_CPUS, K_FIRMWARE, K_MICROCODE,
	K_ARCH, K_FLUSH, K_COUNT
};
static const char *const key_name[K_COUNT] = {
	"vendor", "family", "model", "brand", "cpus", "firmware", "microcode", "arch",
	"flush_model"
};
/* The @env keys of K_VENDOR..K_BRAND. */
static const int env_key[] = { RK_env_vendor, RK_env_family, RK_env_model, RK_env_brand };

struct machine {
	char key[K_COUNT][STR_MAX];
	uint64_t *v[2][OP_COUNT]; /* [wbinvd][op]: one value per run */
	size_t n[2], cap[2][OP_COUNT];
	size_t failed, partial;   /* runs that failed; runs without totals */
	const char *emulated;     /* run_emulator() of any of its runs */
};

struct fleet {
	struct machine *m;
	size_t n, cap;
	char **path;
	bool *from_dir;
	size_t npath, path_cap, from_dir_cap;
	uint64_t *seen; /* fingerprints of the runs counted */
	size_t nseen, seen_cap;
	size_t runs, dups, empty, bad;
};

static void add_path(struct fleet *f, const char *p, bool from_dir)
{
	grow((void **)&f->path, &f->path_cap, f->npath + 1, sizeof(*f->path));
	grow((void **)&f->from_dir, &f->from_dir_cap, f->npath + 1, sizeof(*f->from_dir));
	size_t len = strlen(p) + 1;
	f->path[f->npath] = xrealloc_array(NULL, len, 1);
	memcpy(f->path[f->npath], p, len);
	f->from_dir[f->npath++] = from_dir;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under dir (names starting with '.' left out),
 * sorted, so that the table does not depend on the file system's order. */
static int walk(struct fleet *f, const char *dir, int depth)
{
	if (depth > 16) {
		fprintf(stderr, "aplog: fleet: %s: directories nested too deep\n", dir);
		return 1;
	}
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "aplog: fleet: cannot read directory %s\n", dir);
		return 1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		grow((void **)&names, &cap, n + 1, sizeof(*names));
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		names[n] = xrealloc_array(NULL, len, 1);
		snprintf(names[n++], len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	int errors = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(names[i], &st) == 0 && S_ISDIR(st.st_mode))
			errors += walk(f, names[i], depth + 1);
		else if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			add_path(f, names[i], true);
		free(names[i]);
	}
	free(names);
	return errors;
}

/* A file found in a directory is read only if a line starts a run: the
 * directory of a LAVA job or a lab's results tree holds other files too. */
static bool has_boot_record(const char *path)
{
	char *buf;
	size_t len, pos = 0, n;
	if (read_all(path, &buf, &len))
		return false;
	bool found = false;
	const char *boot = RECORD_WORD(boot);
	size_t bl = strlen(boot);
	while (!found && pos < len) {
		const char *l = next_line(buf, len, &pos, &n);
		found = n > bl && !memcmp(l, boot, bl) && l[bl] == ' ';
	}
	free(buf);
	return found;
}

static void copy_field(char *dst, const char *v, size_t n)
{
	if (!v || !n) {
		strcpy(dst, "-");
		return;
	}
	if (n >= STR_MAX)
		n = STR_MAX - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

static void machine_key(const struct run *r, char key[K_COUNT][STR_MAX])
{
	size_t n = 0;
	const char *v;
	for (int k = K_VENDOR; k <= K_BRAND; k++) {
		v = run_env_field(r, env_key[k - K_VENDOR], &n);
		copy_field(key[k], v, n);
	}
	v = run_env_field(r, RK_env_microcode, &n);
	copy_field(key[K_MICROCODE], v, n);
	snprintf(key[K_CPUS], STR_MAX, "%" PRIu32, r->cpus);
	if (!(v = run_env_field(r, RK_env_firmware, &n)))
		v = run_boot_field(r, RK_boot_firmware, &n);
	copy_field(key[K_FIRMWARE], v, n);
	if (!(v = run_boot_field(r, RK_boot_arch, &n))) {
		v = "x86_64";
		n = 6;
	}
	copy_field(key[K_ARCH], v, n);
	copy_field(key[K_FLUSH], r->flush_model, strlen(r->flush_model));
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* The same boot seen twice has the same @boot, @env and records. */
static uint64_t fingerprint(const struct run *r)
{
	uint64_t h = 14695981039346656037ULL;
	if (r->boot_fields)
		h = fnv(h, r->boot_fields, strlen(r->boot_fields));
	if (r->env_fields)
		h = fnv(h, r->env_fields, strlen(r->env_fields));
	for (size_t i = 0; i < r->ns; i++)
		h = fnv(h, &r->s[i].text_hash, sizeof(r->s[i].text_hash));
	for (int op = 0; op < OP_COUNT; op++)
		h = fnv(h, &r->sum[op].total_ns, sizeof(r->sum[op].total_ns));
	return h;
}

/* The run's mean AP start for op, rounded to a nanosecond. */
static bool run_value(const struct run *r, int op, uint64_t *out)
{
	if (r->summary_only) {
		uint64_t starts = (uint64_t)r->sum[op].cpus * r->sum[op].cycles;
		uint64_t tot = op == OP_OFFLINE && r->settled ? r->sum[op].settled_total_ns
							      : r->sum[op].total_ns;
		if (!r->sum[op].present || !starts)
			return false;
		*out = (tot + starts / 2) / starts;
		return true;
	}
	unsigned __int128 sum = 0;
	uint64_t k = 0;
	for (size_t i = 0; i < r->ns; i++)
		if (r->s[i].op == op && sample_counted(&r->s[i])) {
			sum += sample_figure(r, &r->s[i]);
			k++;
		}
	if (!k)
		return false;
	*out = (uint64_t)((sum + k / 2) / k);
	return true;
}

/* Two keys name one machine when every field's string is the same (the
 * bytes after each string's end are not part of it). */
static bool same_key(char a[K_COUNT][STR_MAX], char b[K_COUNT][STR_MAX])
{
	for (int k = 0; k < K_COUNT; k++)
		if (strcmp(a[k], b[k]))
			return false;
	return true;
}

static struct machine *machine_of(struct fleet *f, char key[K_COUNT][STR_MAX])
{
	for (size_t i = 0; i < f->n; i++)
		if (same_key(f->m[i].key, key))
			return &f->m[i];
	grow((void **)&f->m, &f->cap, f->n + 1, sizeof(*f->m));
	struct machine *m = &f->m[f->n++];
	memset(m, 0, sizeof(*m));
	memcpy(m->key, key, sizeof(m->key));
	return m;
}

static void add_run(struct fleet *f, const struct run *r)
{
	uint64_t fp = fingerprint(r);
	for (size_t i = 0; i < f->nseen; i++)
		if (f->seen[i] == fp) {
			f->dups++;
			return;
		}
	grow((void **)&f->seen, &f->seen_cap, f->nseen + 1, sizeof(*f->seen));
	f->seen[f->nseen++] = fp;
	f->runs++;

	char key[K_COUNT][STR_MAX] = { { 0 } };
	machine_key(r, key);
	struct machine *m = machine_of(f, key);
	if (!m->emulated)
		m->emulated = run_emulator(r);
	enum use u = run_use(r);
	uint64_t v[OP_COUNT];
	if (u == USE_NONE) {
		m->failed++;
		return;
	}
	if (u != USE_FULL || !run_value(r, OP_ONLINE, &v[OP_ONLINE]) ||
	    !run_value(r, OP_OFFLINE, &v[OP_OFFLINE])) {
		m->partial++; /* truncated, or no AP to time (maxcpus=1) */
		return;
	}
	int w = r->wbinvd ? 1 : 0;
	for (int op = 0; op < OP_COUNT; op++) {
		grow((void **)&m->v[w][op], &m->cap[w][op], m->n[w] + 1, sizeof(uint64_t));
		m->v[w][op][m->n[w]] = v[op];
	}
	m->n[w]++;
}

static uint64_t mean_of(const uint64_t *v, size_t n)
{
	unsigned __int128 s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? (uint64_t)((s + n / 2) / n) : 0;
}

/* Per op, the verdict row of A (WBINVD=1) against B (WBINVD=0). */
struct outcome {
	bool both;
	uint64_t mean[2][OP_COUNT];
	struct verdict_row row[OP_COUNT];
	int64_t saving; /* A - B online, ns per CPU start */
};

static void outcome_of(const struct machine *m, struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	for (int w = 0; w < 2; w++)
		for (int op = 0; op < OP_COUNT; op++)
			o->mean[w][op] = mean_of(m->v[w][op], m->n[w]);
	o->both = m->n[0] && m->n[1];
	if (!o->both)
		return;
	for (int op = 0; op < OP_COUNT; op++)
		verdict_compute(m->v[1][op], m->n[1], m->v[0][op], m->n[0], cli.min_runs,
				m->emulated == NULL, &o->row[op]);
	o->saving = (int64_t)o->mean[1][OP_ONLINE] - (int64_t)o->mean[0][OP_ONLINE];
}

static void put_signed(char *buf, size_t size, int64_t ns)
{
	char d[32];
	fmt_duration(d, sizeof(d), (uint64_t)(ns < 0 ? -ns : ns));
	snprintf(buf, size, "%s%s", ns < 0 ? "-" : "", d);
}

/* "faster (-83.1%, 95% CI -85.0..-81.2%)", "not measurable here (QEMU TCG)". */
static void verdict_text(char *buf, size_t size, const struct machine *m,
			 const struct outcome *o, int op)
{
	if (!o->both) {
		snprintf(buf, size, "no verdict: runs of %s only",
			 m->n[1] ? "WBINVD=1" : m->n[0] ? "WBINVD=0" : "neither variant");
		return;
	}
	const struct verdict_row *r = &o->row[op];
	char pct[24], lo[24], hi[24];
	verdict_format_pct(pct, sizeof(pct), r->change_ppm);
	if (r->word == VERDICT_NOT_MEASURABLE)
		snprintf(buf, size, "not measurable here (%s; %s)", m->emulated, pct);
	else if (!r->has_ci)
		snprintf(buf, size, "no verdict: %zu+%zu runs (%zu per variant needed; %s)",
			 r->na, r->nb, cli.min_runs, pct);
	else {
		verdict_format_pct(lo, sizeof(lo), r->lo_ppm);
		verdict_format_pct(hi, sizeof(hi), r->hi_ppm);
		snprintf(buf, size, "%s (%s, 95%% CI %s..%s)", verdict_word_text(r->word),
			 pct, lo, hi);
	}
}

static void print_table(const struct fleet *f)
{
	printf("Per machine: each variant's mean AP start, online / offline, over "
	       "its runs (each run one value: its mean start); saving = WBINVD=1 - "
	       "WBINVD=0 per CPU start, x (cpus - 1) for all APs; verdict on the "
	       "online change from WBINVD=1 to WBINVD=0 (runs as observations, "
	       "Welch 95%% CI, docs/verdicts.md)\n");
	printf("%-3s %-60s %5s %-5s %-10s | %-28s | %-28s | %10s %10s | %s\n", "#",
	       "machine (vendor family/model brand)", "cpus", "fw", "microcode",
	       "WBINVD=1: runs online offline", "WBINVD=0: runs online offline",
	       "saving/CPU", "all APs", "verdict (online)");
	for (size_t i = 0; i < f->n; i++) {
		const struct machine *m = &f->m[i];
		struct outcome o;
		outcome_of(m, &o);
		char name[STR_MAX * 6 + 24], side[2][64], sv[40] = "-", all[40] = "-", vt[200];
		bool other_arch = strcmp(m->key[K_ARCH], "x86_64") != 0;
		bool modelled = strcmp(m->key[K_FLUSH], "-") != 0;
		snprintf(name, sizeof(name), "%s %s/%s %s%s%s%s%s", m->key[K_VENDOR],
			 m->key[K_FAMILY], m->key[K_MODEL], modelled ? "FLUSH=" : "",
			 modelled ? m->key[K_FLUSH] : "", modelled ? " " : "", m->key[K_BRAND],
			 other_arch ? " arch=" : "");
		if (other_arch)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), "%s",
				 m->key[K_ARCH]);
		if (strlen(name) > 60)
			strcpy(name + 57, "...");
		for (int w = 1; w >= 0; w--) {
			char on[24], off[24];
			if (!m->n[w]) {
				snprintf(side[w], sizeof(side[w]), "%4d %11s %11s", 0, "-", "-");
				continue;
			}
			fmt_duration(on, sizeof(on), o.mean[w][OP_ONLINE]);
			fmt_duration(off, sizeof(off), o.mean[w][OP_OFFLINE]);
			snprintf(side[w], sizeof(side[w]), "%4zu %11s %11s", m->n[w], on, off);
		}
		if (o.both) {
			uint64_t aps = strtoull(m->key[K_CPUS], NULL, 10);
			put_signed(sv, sizeof(sv), o.saving);
			put_signed(all, sizeof(all), o.saving * (int64_t)(aps ? aps - 1 : 0));
		}
		verdict_text(vt, sizeof(vt), m, &o, OP_ONLINE);
		printf("%-3zu %-60s %5s %-5s %-10s | %-28s | %-28s | %10s %10s | %s", i + 1, name,
		       m->key[K_CPUS], m->key[K_FIRMWARE], m->key[K_MICROCODE], side[1],
		       side[0], sv, all, vt);
		if (m->failed || m->partial)
			printf(" [%zu failed, %zu without totals: left out]", m->failed, m->partial);
		putchar('\n');
	}
}

static void csv_u64(uint64_t v, bool have)
{
	if (have)
		printf("%" PRIu64, v);
	putchar(',');
}

static void csv_pct(int64_t ppm, bool have)
{
	if (have) {
		char b[24];
		verdict_format_pct(b, sizeof(b), ppm);
		b[strlen(b) - 1] = '\0'; /* the '%' goes: the column says pct */
		fputs(b, stdout);
	}
	putchar(',');
}

static void print_csv(const struct fleet *f)
{
	printf("machine");
	for (int k = 0; k < K_COUNT; k++)
		printf(",%s", key_name[k]);
	printf(",emulated,failed_runs,runs_without_totals");
	for (int w = 1; w >= 0; w--)
		printf(",runs_wbinvd%d,online_ns_wbinvd%d,offline_ns_wbinvd%d", w, w, w);
	printf(",saving_ns_per_cpu,saving_ns_all_aps");
	for (int op = 0; op < OP_COUNT; op++)
		printf(",%s_change_pct,%s_ci_lo_pct,%s_ci_hi_pct,%s_verdict", op_name[op],
		       op_name[op], op_name[op], op_name[op]);
	putchar('\n');
	for (size_t i = 0; i < f->n; i++) {
		const struct machine *m = &f->m[i];
		struct outcome o;
		outcome_of(m, &o);
		printf("%zu", i + 1);
		for (int k = 0; k < K_COUNT; k++) {
			putchar(',');
			csv_field(m->key[k]);
		}
		putchar(',');
		csv_field(m->emulated ? m->emulated : "");
		printf(",%zu,%zu,", m->failed, m->partial);
		for (int w = 1; w >= 0; w--) {
			printf("%zu,", m->n[w]);
			csv_u64(o.mean[w][OP_ONLINE], m->n[w]);
			csv_u64(o.mean[w][OP_OFFLINE], m->n[w]);
		}
		if (o.both) {
			uint64_t aps = strtoull(m->key[K_CPUS], NULL, 10);
			printf("%" PRId64 ",%" PRId64 ",", o.saving,
			       o.saving * (int64_t)(aps ? aps - 1 : 0));
		} else {
			printf(",,");
		}
		for (int op = 0; op < OP_COUNT; op++) {
			const struct verdict_row *r = &o.row[op];
			csv_pct(r->change_ppm, o.both && r->has_change);
			csv_pct(r->lo_ppm, o.both && r->has_ci);
			csv_pct(r->hi_ppm, o.both && r->has_ci);
			csv_field(o.both ? verdict_word_text(r->word) : "no verdict");
			if (op + 1 < OP_COUNT)
				putchar(',');
		}
		putchar('\n');
	}
}

int cmd_fleet(void)
{
	struct fleet f;
	memset(&f, 0, sizeof(f));
	int errors = 0;
	if (!cli.nfiles[0])
		usage_error("fleet needs LOG... or a DIR of logs");
	for (size_t i = 0; i < cli.nfiles[0]; i++) {
		const char *p = cli.files[0][i];
		struct stat st;
		if (strcmp(p, "-") && stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			errors += walk(&f, p, 0);
		else
			add_path(&f, p, false);
	}
	for (size_t i = 0; i < f.npath; i++) {
		struct set s = { 0 };
		if (f.from_dir[i] && !has_boot_record(f.path[i])) {
			f.empty++;
			continue;
		}
		int e = load_file(&s, f.path[i], cli.given & O_TRUNC);
		if (e) {
			fprintf(stderr, "aplog: fleet: %s left out (%d error%s above)\n", f.path[i],
				e, e == 1 ? "" : "s");
			f.bad++;
		} else {
			for (size_t j = 0; j < s.n; j++)
				add_run(&f, &s.runs[j]);
		}
		set_free(&s);
	}
	if (!f.n) {
		fprintf(stderr, "aplog: fleet: no apstart run in %zu file%s\n", f.npath,
			f.npath == 1 ? "" : "s");
		errors++;
	} else if (cli.given & O_CSV) {
		print_csv(&f);
	} else {
		printf("aplog fleet: %zu machine%s, %zu run%s from %zu file%s", f.n,
		       f.n == 1 ? "" : "s", f.runs, f.runs == 1 ? "" : "s",
		       f.npath - f.empty - f.bad, f.npath - f.empty - f.bad == 1 ? "" : "s");
		if (f.dups)
			printf(" (%zu run%s seen twice, counted once)", f.dups, f.dups == 1 ? "" : "s");
		if (f.bad)
			printf(" (%zu file%s left out: errors)", f.bad, f.bad == 1 ? "" : "s");
		printf("\n");
		print_table(&f);
		for (size_t i = 0; i < f.n; i++)
			if (f.m[i].emulated) {
				printf("EMULATED: WBINVD costs nothing on the machines marked "
				       "'not measurable here' (an emulator or a hypervisor, no "
				       "flush model): a difference between their variants is the "
				       "host's\n");
				break;
			}
		for (size_t i = 0; i < f.n; i++)
			if (strcmp(f.m[i].key[K_FLUSH], "-")) {
				printf("MODELLED: the machines marked FLUSH= ran under QEMU's "
				       "flush cost model (tools/flushmodel): each WBINVD/INVD was "
				       "charged a modelled cost, not measured\n");
				break;
			}
	}
	for (size_t i = 0; i < f.n; i++)
		for (int w = 0; w < 2; w++)
			for (int op = 0; op < OP_COUNT; op++)
				free(f.m[i].v[w][op]);
	free(f.m);
	for (size_t i = 0; i < f.npath; i++)
		free(f.path[i]);
	free(f.path);
	free(f.from_dir);
	free(f.seen);
	return errors || f.bad ? 1 : 0;
}
