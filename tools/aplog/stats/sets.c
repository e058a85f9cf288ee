/* SPDX-License-Identifier: MIT */
/* Sets of logs as the commands see them (sets.h). */
#include "tools/aplog/stats/sets.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/aplog/options.h"
#include "tools/aplog/util.h"

const char *const row_name[ROW_COUNT] = { "Offline", "Online", "Total" };

const char *run_emulator(const struct run *r)
{
	size_t n;
	const char *v;
	if (r->flush_model[0])
		return NULL;
	if ((v = run_env_field(r, RK_env_brand, &n)) && n >= 8 && !memcmp(v, "QEMU_TCG", 8))
		return "QEMU TCG";
	if ((v = run_env_field(r, RK_env_hypervisor, &n)) && n == 1 && *v == '1')
		return "a hypervisor";
	if ((v = run_env_field(r, RK_env_acpi_oem, &n)) && n == 5 && !memcmp(v, "BOCHS", 5))
		return "QEMU or Bochs";
	return NULL;
}

/* One value per run: totals of the complete runs, medians of any run. */
static void side_run_values(struct side *sd)
{
	const struct set *st = &sd->set;
	for (int k = 0; k < ROW_COUNT; k++)
		sd->row_value[k] = xrealloc_array(NULL, st->n + 1, sizeof(uint64_t));
	for (int op = 0; op < OP_COUNT; op++)
		sd->run_median[op] = xrealloc_array(NULL, st->n + 1, sizeof(uint64_t));
	for (size_t i = 0; i < st->n; i++) {
		const struct run *r = &st->runs[i];
		enum use u = run_use(r);
		if (u == USE_NONE)
			continue;
		if (u == USE_FULL) {
			double tot[OP_COUNT];
			run_totals(r, tot);
			size_t k = sd->nrow_value++;
			sd->row_value[ROW_OFFLINE][k] = (uint64_t)tot[OP_OFFLINE];
			sd->row_value[ROW_ONLINE][k] = (uint64_t)tot[OP_ONLINE];
			sd->row_value[ROW_TOTAL][k] = (uint64_t)tot[OP_OFFLINE] +
						     (uint64_t)tot[OP_ONLINE];
		}
		for (int op = 0; op < OP_COUNT; op++) {
			uint64_t *v = xrealloc_array(NULL, r->ns + 1, sizeof(*v));
			size_t n = 0;
			for (size_t j = 0; j < r->ns; j++)
				if (r->s[j].op == op && sample_counted(&r->s[j]))
					v[n++] = sample_figure(r, &r->s[j]);
			if (n)
				sd->run_median[op][sd->nrun_median[op]++] = median_of(v, n);
			free(v);
		}
		const char *emu = run_emulator(r);
		if (emu && !sd->emulated)
			sd->emulated = emu;
	}
}

int side_load(struct side *sd, const char *const *files, size_t n,
	      const char *name, const char *purpose)
{
	int errors = 0;
	memset(sd, 0, sizeof(*sd));
	for (size_t i = 0; i < n; i++)
		errors += load_file(&sd->set, files[i], cli.given & O_TRUNC);
	sd->load_errors = errors;
	if (errors)
		return errors;

	double sum[OP_COUNT] = { 0, 0 };
	sd->wbinvd = sd->cpus = sd->cycles = -2;
	for (size_t i = 0; i < sd->set.n; i++) {
		const struct run *r = &sd->set.runs[i];
		enum use u = run_use(r);
		if (u == USE_NONE) {
			fprintf(stderr, "aplog: %s:%zu: warning: run %u ended with status=fail "
				"(online=%" PRIu32 " failed=%" PRIu32 "): excluded from "
				"%s\n", r->file, r->boot_line, r->index, r->end_online,
				r->end_failed, purpose);
			continue;
		}
		sd->usable++;
		sd->nmi_marked += r->nmi_marked;
		sd->smi_marked += r->smi_marked;
		sd->wbinvd = sd->wbinvd == -2 || sd->wbinvd == (int)r->wbinvd ?
			     (int)r->wbinvd : -1;
		sd->cpus = sd->cpus == -2 || sd->cpus == (long)r->cpus ?
			   (long)r->cpus : -1;
		sd->cycles = sd->cycles == -2 || sd->cycles == (long)r->cycles ?
			     (long)r->cycles : -1;
		const char *fig = run_offline_figure(r);
		sd->offline_figure = !sd->offline_figure ||
			!strcmp(sd->offline_figure, fig) ? fig : "mixed";
		if (r->flush_model[0]) {
			sd->flush_model = !sd->modelled ||
				(sd->flush_model && !strcmp(sd->flush_model, r->flush_model)) ?
				r->flush_model : NULL;
			sd->modelled++;
		}
		if (u != USE_FULL)
			continue;
		double tot[OP_COUNT];
		run_totals(r, tot);
		for (int op = 0; op < OP_COUNT; op++)
			sum[op] += tot[op];
		sd->complete++;
	}
	if (!sd->usable) {
		fprintf(stderr, "aplog: %s: no usable run (every run failed)\n",
			name);
		return 1;
	}
	for (int op = 0; op < OP_COUNT && sd->complete; op++)
		sd->mean_total[op] = sum[op] / (double)sd->complete;
	if (sd->wbinvd == -1)
		fprintf(stderr, "aplog: warning: %s mixes wbinvd=0 and wbinvd=1 "
			"runs\n", name);
	table_build(&sd->set, &sd->t);
	side_run_values(sd);
	return 0;
}

void side_free(struct side *sd)
{
	for (int k = 0; k < ROW_COUNT; k++)
		free(sd->row_value[k]);
	for (int op = 0; op < OP_COUNT; op++)
		free(sd->run_median[op]);
	table_free(&sd->t);
	set_free(&sd->set);
}

/* "WBINVD=W", and the test builds' slowdowns where the first run's @boot
 * has them (a slowed build is no WBINVD=0 like the others). */
static void build_label(const struct side *sd, char *out, size_t cap)
{
	static const struct { int key; const char *knob; } slow[] = {
		{ RK_boot_slow_tramp_ns, "SLOW_TRAMP_NS" }, { RK_boot_slow_park_ns, "SLOW_PARK_NS" } };
	int n = snprintf(out, cap, "WBINVD=%d", sd->wbinvd);
	for (size_t k = 0; k < 2 && sd->set.n && n > 0 && (size_t)n < cap; k++) {
		size_t len;
		const char *v = run_boot_field(&sd->set.runs[0], slow[k].key, &len);
		if (v && !(len == 1 && v[0] == '0'))
			n += snprintf(out + n, cap - (size_t)n, " %s=%.*s", slow[k].knob,
				      (int)(len < 20 ? len : 20), v);
	}
}

void side_labels(struct side s[2])
{
	for (int i = 0; i < 2; i++) {
		if (cli.label[i])
			s[i].label = cli.label[i];
		else if (s[i].wbinvd >= 0)
			build_label(&s[i], s[i].label_buf, sizeof(s[i].label_buf));
		else
			snprintf(s[i].label_buf, sizeof(s[i].label_buf), "%c", 'A' + i);
		if (!cli.label[i])
			s[i].label = s[i].label_buf;
	}
	/* One build on both sides (an A/A): its name, and which side. */
	if (!cli.label[0] && !cli.label[1] && !strcmp(s[0].label, s[1].label) &&
	    s[0].wbinvd >= 0) {
		char name[64];
		build_label(&s[0], name, sizeof name);
		for (int i = 0; i < 2; i++)
			snprintf(s[i].label_buf, sizeof(s[i].label_buf), "%s (%c)", name,
				 'A' + i);
	}
}

void side_label_one(struct side *s)
{
	if (cli.label[0]) {
		s->label = cli.label[0];
	} else if (s->wbinvd >= 0) {
		snprintf(s->label_buf, sizeof(s->label_buf), "WBINVD=%d", s->wbinvd);
		s->label = s->label_buf;
	} else {
		s->label = "A";
	}
}

void print_flush_note(const struct side *s, const char *prefix)
{
	if (!s->modelled)
		return;
	printf("%sMODELLED: %zu of %zu runs had each WBINVD/INVD charged a modelled "
	       "cost by the QEMU flushmodel plugin (flush_model=%s): not hardware\n",
	       prefix, s->modelled, s->usable,
	       s->flush_model ? s->flush_model : "(differs between runs)");
}

static void print_smi_note(const struct side *s, const char *prefix)
{
	if (!s->smi_marked)
		return;
	printf("%s%zu samples an SMI hit (smi= above 0: MSR_SMI_COUNT moved around their "
	       "window) are %s\n", prefix, s->smi_marked,
	       smi_samples_counted ? "counted (--with-smi)"
				   : "left out of every figure below (--with-smi keeps them)");
}

void print_nmi_note(const struct side *s, const char *prefix)
{
	print_smi_note(s, prefix);
	if (!s->nmi_marked)
		return;
	if (nmi_samples_counted)
		printf("%s%zu samples marked nmi=1 (an NMI inside their window) are "
		       "counted (--with-nmi)\n", prefix, s->nmi_marked);
	else
		printf("%s%zu samples marked nmi=1 (an NMI inside their window) are "
		       "left out of every figure below (--with-nmi keeps them)\n",
		       prefix, s->nmi_marked);
}

/* The build facts a side's runs must share, and a label may name. */
static const int build_keys[] = { RK_boot_kernel, RK_boot_arch, RK_boot_wbinvd,
	RK_boot_slow_tramp_ns, RK_boot_slow_park_ns, -1 };

/* The first usable run of a side, NULL if none. */
static const struct run *first_usable(const struct side *sd)
{
	for (size_t i = 0; i < sd->set.n; i++)
		if (run_use(&sd->set.runs[i]) != USE_NONE)
			return &sd->set.runs[i];
	return NULL;
}

static bool same_value(const char *a, size_t an, const char *b, size_t bn)
{
	if (an != bn)
		return false;
	for (size_t i = 0; i < an; i++)
		if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return false;
	return true;
}

/* Every usable run of the side built alike; names the first that is not. */
static int check_one_build(const struct side *sd, char letter)
{
	const struct run *f = first_usable(sd);
	for (size_t i = 0; f && i < sd->set.n; i++) {
		const struct run *r = &sd->set.runs[i];
		if (run_use(r) == USE_NONE)
			continue;
		for (const int *k = build_keys; *k >= 0; k++) {
			size_t fn = 0, rn = 0;
			const char *fv = run_boot_field(f, *k, &fn);
			const char *rv = run_boot_field(r, *k, &rn);
			if (same_value(fv ? fv : "", fv ? fn : 0, rv ? rv : "", rv ? rn : 0))
				continue;
			fprintf(stderr, "aplog: set %c mixes builds: %s=%.*s (%s:%zu) and "
				"%s=%.*s (%s:%zu); a side is one build (--force compares "
				"them anyway)\n", letter, record_keys[*k].name, (int)fn, fv ? fv : "-",
				f->file, f->boot_line, record_keys[*k].name, (int)rn, rv ? rv : "-",
				r->file, r->boot_line);
			return 1;
		}
	}
	return 0;
}

/* A run's trampoline, as its @trampoline record names it: the kind and,
 * for Linux's, the blob's SHA-256 (a run without the record: the core's,
 * as every kernel before the record had). */
static void run_trampoline(const struct run *r, char *out, size_t cap)
{
	size_t kn = 0, sn = 0;
	const char *kind = run_tramp_field(r, RK_trampoline_kind, &kn);
	const char *sha = run_tramp_field(r, RK_trampoline_blob_sha256, &sn);
	if (!kind)
		snprintf(out, cap, "kind=apstart");
	else if (!sha)
		snprintf(out, cap, "kind=%.*s", (int)kn, kind);
	else
		snprintf(out, cap, "kind=%.*s blob_sha256=%.*s", (int)kn, kind, (int)sn, sha);
}

/* Every usable run of the side started its APs in one trampoline: Linux's
 * blob and apstart's own, or two blobs, are two things measured. Not
 * taken back by --force. */
static int check_one_trampoline(const struct side *sd, char letter)
{
	const struct run *f = first_usable(sd);
	char ft[160], rt[160];
	if (f)
		run_trampoline(f, ft, sizeof ft);
	for (size_t i = 0; f && i < sd->set.n; i++) {
		const struct run *r = &sd->set.runs[i];
		if (run_use(r) == USE_NONE)
			continue;
		run_trampoline(r, rt, sizeof rt);
		if (strcmp(ft, rt) == 0)
			continue;
		fprintf(stderr, "aplog: set %c mixes trampolines: %s (%s:%zu) and %s "
			"(%s:%zu); a side is one trampoline (@trampoline)\n", letter, ft,
			f->file, f->boot_line, rt, r->file, r->boot_line);
		return 1;
	}
	return 0;
}

/* A label's KEY=VALUE words that name a @boot key must match the runs:
 * "--label-a WBINVD=1" on wbinvd=0 runs is a swapped pair of files. */
static int check_label(const struct side *sd, const char *label, char letter)
{
	const struct run *f = first_usable(sd);
	if (!label || !f)
		return 0;
	char key[32];
	for (const char *p = label; *p;) {
		size_t n = strcspn(p, " ,;+/");
		const char *eq = memchr(p, '=', n);
		if (eq && eq > p && (size_t)(eq - p) < sizeof(key)) {
			size_t kl = (size_t)(eq - p), vn = 0;
			for (size_t i = 0; i < kl; i++)
				key[i] = (char)tolower((unsigned char)p[i]);
			key[kl] = '\0';
			int bk = record_key_find(RW_boot, key, kl);
			const char *v = bk >= 0 ? run_boot_field(f, bk, &vn) : NULL;
			if (v && !same_value(v, vn, eq + 1, n - kl - 1)) {
				fprintf(stderr, "aplog: --label-%c says %.*s, but set %c's runs "
					"say %s=%.*s in @boot (%s:%zu): files swapped? (--force "
					"compares them anyway)\n", tolower(letter), (int)n, p,
					letter, key, (int)vn, v, f->file, f->boot_line);
				return 1;
			}
		}
		p += n;
		p += *p != '\0';
	}
	return 0;
}

/* The same file twice, or on both sides: one run counted twice, or a
 * log compared with itself. */
static int check_files_distinct(void)
{
	struct stat st[2];
	for (int i = 0; i < 2; i++)
		for (size_t a = 0; a < cli.nfiles[i]; a++)
			for (int j = i; j < 2; j++)
				for (size_t b = (j == i ? a + 1 : 0); b < cli.nfiles[j]; b++) {
					const char *x = cli.files[i][a], *y = cli.files[j][b];
					if (!strcmp(x, "-") || !strcmp(y, "-") ||
					    stat(x, &st[0]) || stat(y, &st[1]) ||
					    st[0].st_dev != st[1].st_dev ||
					    st[0].st_ino != st[1].st_ino)
						continue;
					if (i == j)
						fprintf(stderr, "aplog: %s is given twice in set %c: "
							"each run counts once\n", y, 'A' + i);
					else
						fprintf(stderr, "aplog: %s is in both sets: a log "
							"compared with itself tells nothing\n", y);
					return 1;
				}
	return 0;
}

bool sides_measurable(const struct side s[2])
{
	if (!s[0].emulated && !s[1].emulated)
		return true;
	const struct run *a = first_usable(&s[0]), *b = first_usable(&s[1]);
	if (!a || !b || s[0].wbinvd == s[1].wbinvd)
		return true;
	for (const int *k = build_keys; *k >= 0; k++) {
		size_t an = 0, bn = 0;
		const char *av = run_boot_field(a, *k, &an), *bv = run_boot_field(b, *k, &bn);
		if (*k != RK_boot_wbinvd &&
		    !same_value(av ? av : "", av ? an : 0, bv ? bv : "", bv ? bn : 0))
			return true; /* another knob differs: that one costs time */
	}
	return false;
}

void print_emulated_note(const struct side s[2], const char *prefix)
{
	const char *emu = s[0].emulated ? s[0].emulated : s[1].emulated;
	if (!emu)
		return;
	/* A WBINVD A/B: its difference is the host's. Anything else (one
	 * build twice, rcu_expedited, a slowed build): no flush in it. */
	const char *tail = s[0].wbinvd != s[1].wbinvd
		? "a difference between the variants is the host's"
		: "no figure below includes a flush's cost";
	if (!strcmp(emu, "a hypervisor"))
		printf("%sEMULATED: WBINVD costs nothing here (a hypervisor: KVM and "
		       "most others take the guest's WBINVD as a VM exit and skip the "
		       "flush unless a passed-through device does non-coherent DMA); "
		       "%s\n", prefix, tail);
	else
		printf("%sEMULATED: WBINVD costs nothing here (%s); %s\n", prefix, emu,
		       tail);
}

int load_two(struct side s[2], const char *purpose)
{
	if (!cli.sep || !cli.nfiles[0] || !cli.nfiles[1])
		usage_error("'%s' needs A.log... -- B.log...", cli.cmd);
	memset(s, 0, 2 * sizeof(*s)); /* side_free() is safe on a refusal */
	if (check_files_distinct())
		return 1;
	int e0 = side_load(&s[0], cli.files[0], cli.nfiles[0], "set A", purpose);
	int e1 = side_load(&s[1], cli.files[1], cli.nfiles[1], "set B", purpose);
	if (e0 || e1)
		return 1;
	if (check_one_trampoline(&s[0], 'A') || check_one_trampoline(&s[1], 'B'))
		return 1;
	if (!(cli.given & O_FORCE) &&
	    (check_one_build(&s[0], 'A') || check_one_build(&s[1], 'B') ||
	     check_label(&s[0], cli.label[0], 'A') ||
	     check_label(&s[1], cli.label[1], 'B')))
		return 1;
	side_labels(s);
	if (s[0].cpus >= 0 && s[1].cpus >= 0 && s[0].cpus != s[1].cpus)
		fprintf(stderr, "aplog: warning: A has cpus=%ld but B has cpus=%ld: "
			"the totals cover different numbers of CPUs\n", s[0].cpus,
			s[1].cpus);
	if (strcmp(s[0].offline_figure, s[1].offline_figure))
		fprintf(stderr, "aplog: warning: offline figures differ: A uses %s, "
			"B uses %s\n", s[0].offline_figure, s[1].offline_figure);
	if (s[0].cycles >= 0 && s[1].cycles >= 0 && s[0].cycles != s[1].cycles)
		fprintf(stderr, "aplog: warning: A has cycles=%ld but B has "
			"cycles=%ld: the totals are not comparable\n", s[0].cycles,
			s[1].cycles);
	return 0;
}
