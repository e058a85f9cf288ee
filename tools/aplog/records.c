/* SPDX-License-Identifier: MIT */
/* Parser for apstart serial logs (records.h). A run is the records from
 * one @boot to its @end; records are checked field by field, and a run as
 * a whole (duplicates, cpu/APIC ID clashes, @summary totals). */
#define _POSIX_C_SOURCE 200809L
#include "records.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *const op_name[OP_COUNT] = { "online", "offline" };
const char *const op_choices[] = { "online", "offline", NULL };

static const char *const boot_keys[] = { "kernel", "version", "wbinvd", "cpus",
	"x2apic", "tsc_khz", "tsc_source", "tramp", "firmware", "cycles", NULL };
static const char *const sample_keys[] = { "cpu", "apic", "cycle", "op", "ns",
	"ticks", NULL };
static const char *const summary_keys[] = { "op", "cpus", "cycles", "total_ns",
	"mean_ns", "median_ns", "min_ns", "max_ns", NULL };
static const char *const end_keys[] = { "status", "online", "failed", NULL };
static const char *const cpusum_keys[] = { "cpu", "apic", "cycles", "online_median_ns",
	"online_max_ns", "offline_median_ns", "offline_max_ns", NULL };
const char *const phase_names[PHASE_COUNT + 1] = { "init_assert", "init_deassert",
	"sipi", "real", "protected", "long", "c_entry", "tables", "lapic", "online",
	"seen", "sipi2", NULL };
static const char *const phase_keys[] = { "cpu", "apic", "cycle", "phase", "ns", NULL };
static const char *const round_keys[] = { "cycle", "op", "aps", "ns", NULL };
static const char *const bringup_keys[] = { "mode", "total_ns", NULL };
static const char *const firmware_names[] = { "bios", "uefi", NULL };
static const char *const status_choices[] = { "pass", "fail", NULL };

void set_free(struct set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->runs[i].s);
		free(s->runs[i].boot_fields);
		free(s->runs[i].env_fields);
		free(s->runs[i].sync);
		free(s->runs[i].ph);
		free(s->runs[i].rounds);
		free(s->runs[i].cs);
	}
	free(s->runs);
	memset(s, 0, sizeof(*s));
}

enum use run_use(const struct run *r)
{
	if (!r->ended)
		return USE_SAMPLES;
	return r->passed ? USE_FULL : USE_NONE;
}

const char *next_line(const char *buf, size_t len, size_t *pos, size_t *n)
{
	const char *p = buf + *pos;
	const char *nl = memchr(p, '\n', len - *pos);
	*n = nl ? (size_t)(nl - p) : len - *pos;
	*pos += *n + (nl != NULL);
	while (*n && p[*n - 1] == '\r')
		(*n)--;
	return p;
}

/* ------------------------------------------------------------------ */
/* Messages and key=value records                                      */

static void lmsg(struct msgs *m, size_t line, bool warning, const char *fmt,
		 va_list ap)
{
	fprintf(stderr, "%s:%zu: %s", m->file, line, warning ? "warning: " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void lerr(struct msgs *m, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lmsg(m, line, false, fmt, ap);
	va_end(ap);
	m->errors++;
}

void lwarn(struct msgs *m, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lmsg(m, line, true, fmt, ap);
	va_end(ap);
}

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

size_t key_len(const char *p, size_t n)
{
	const char *eq = memchr(p, '=', n);
	size_t kl = eq ? (size_t)(eq - p) : 0;
	for (size_t i = 0; i < kl; i++)
		if (!key_char(p[i]))
			return 0;
	return kl;
}

bool split_fields(struct msgs *m, size_t line, const char *word,
		  const char *p, size_t n, struct record *r)
{
	char b1[256];
	size_t i = 0;

	r->word = word;
	r->n = 0;
	for (;;) {
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i == n)
			return true;
		size_t start = i;
		while (i < n && p[i] != ' ' && p[i] != '\t')
			i++;
		const char *t = p + start;
		size_t tl = i - start;
		size_t kl = key_len(t, tl);
		if (!kl) {
			lerr(m, line, "%s: malformed field '%s' (expected key=value)",
			     word, show(b1, sizeof(b1), t, tl));
			return false;
		}
		for (size_t j = 0; j < r->n; j++) {
			if (r->f[j].kl == kl && memcmp(r->f[j].k, t, kl) == 0) {
				lerr(m, line, "%s: duplicate key '%s'", word,
				     show(b1, sizeof(b1), t, kl));
				return false;
			}
		}
		if (r->n == MAX_FIELDS) {
			lerr(m, line, "%s: more than %d fields", word, MAX_FIELDS);
			return false;
		}
		r->f[r->n++] = (struct field){ t, t + kl + 1, kl, tl - kl - 1 };
	}
}

const struct field *rec_get(const struct record *r, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i < r->n; i++)
		if (r->f[i].kl == kl && memcmp(r->f[i].k, key, kl) == 0)
			return &r->f[i];
	return NULL;
}

bool need_keys(struct msgs *m, size_t line, const struct record *r,
	       const char *const *keys)
{
	char missing[512] = "";
	size_t o = 0;
	for (; *keys; keys++) {
		if (rec_get(r, *keys))
			continue;
		o += (size_t)snprintf(missing + o, sizeof(missing) - o, "%s%s",
				      o ? ", " : "", *keys);
		if (o >= sizeof(missing))
			o = sizeof(missing) - 1;
	}
	if (o)
		lerr(m, line, "%s: missing key(s): %s", r->word, missing);
	return o == 0;
}

bool get_num(struct msgs *m, size_t line, const struct record *r,
	     const char *key, uint64_t min, uint64_t max, uint64_t *out)
{
	char b[256];
	const struct field *f = rec_get(r, key);
	enum numres res = parse_dec(f->v, f->vl, max, out);

	if (res == NUM_BAD) {
		lerr(m, line, "%s: %s=%s is not a decimal number", r->word, key,
		     show(b, sizeof(b), f->v, f->vl));
		return false;
	}
	if (res == NUM_RANGE || *out < min) {
		lerr(m, line, "%s: %s=%s out of range (%" PRIu64 "..%" PRIu64 ")",
		     r->word, key, show(b, sizeof(b), f->v, f->vl), min, max);
		return false;
	}
	return true;
}

bool get_choice(struct msgs *m, size_t line, const struct record *r,
		const char *key, const char *const *choices, int *out)
{
	char b[256];
	const struct field *f = rec_get(r, key);
	for (int i = 0; choices[i]; i++) {
		if (strlen(choices[i]) == f->vl &&
		    memcmp(choices[i], f->v, f->vl) == 0) {
			*out = i;
			return true;
		}
	}
	char list[128] = "";
	size_t o = 0;
	for (int i = 0; choices[i] && o < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
				      i ? "|" : "", choices[i]);
	lerr(m, line, "%s: %s=%s must be %s", r->word, key,
	     show(b, sizeof(b), f->v, f->vl), list);
	return false;
}

static bool get_str(struct msgs *m, size_t line, const struct record *r,
		    const char *key, char *dst)
{
	char b[256];
	const struct field *f = rec_get(r, key);
	bool ok = f->vl > 0 && f->vl < STR_MAX;
	for (size_t i = 0; ok && i < f->vl; i++)
		ok = f->v[i] > 0x20 && f->v[i] < 0x7f;
	if (!ok) {
		lerr(m, line, "%s: %s=%s must be 1..%d printable characters",
		     r->word, key, show(b, sizeof(b), f->v, f->vl), STR_MAX - 1);
		return false;
	}
	memcpy(dst, f->v, f->vl);
	dst[f->vl] = '\0';
	return true;
}

/* The value of key in a record's "k=v k=v" text, or NULL. */
static const char *field_in(const char *p, const char *key, size_t *len)
{
	size_t kl = strlen(key);

	while (p && *p) {
		while (*p == ' ' || *p == '\t')
			p++;
		size_t tl = strcspn(p, " \t");
		if (tl > kl && p[kl] == '=' && memcmp(p, key, kl) == 0) {
			*len = tl - kl - 1;
			return p + kl + 1;
		}
		p += tl;
	}
	return NULL;
}

const char *run_boot_field(const struct run *r, const char *key, size_t *len)
{
	return field_in(r->boot_fields, key, len);
}

const char *run_env_field(const struct run *r, const char *key, size_t *len)
{
	return field_in(r->env_fields, key, len);
}

/* ------------------------------------------------------------------ */
/* Runs                                                                */

struct loader {
	struct msgs m;
	struct set *set;
	bool allow_trunc;
	long cur;           /* index of the open run, -1 if none */
	size_t last_end;    /* line of the last @end, 0 if none */
	unsigned runs_in_file;
	char host_flush[HOST_STR_MAX]; /* @host flush_model= for the next run */
};

static int cmp_by_cpu(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	if (x->cycle != y->cycle)
		return x->cycle < y->cycle ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_by_apic(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	if (x->apic != y->apic)
		return x->apic < y->apic ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* A run's samples must not repeat (cpu, op, cycle), and cpu index and APIC
 * ID must map one to one: otherwise lines were garbled or duplicated. */
static void check_run(struct loader *ld, const struct run *r)
{
	if (r->ns < 2)
		return;
	struct sample *c = xrealloc_array(NULL, r->ns, sizeof(*c));
	memcpy(c, r->s, r->ns * sizeof(*c));
	qsort(c, r->ns, sizeof(*c), cmp_by_cpu);
	for (size_t i = 1; i < r->ns; i++) {
		const struct sample *a = &c[i - 1], *b = &c[i];
		if (a->cpu != b->cpu)
			continue;
		if (a->op == b->op && a->cycle == b->cycle)
			lerr(&ld->m, b->line,
			     "duplicate @sample cpu=%" PRIu32 " op=%s cycle=%" PRIu32
			     " (also at line %zu)",
			     b->cpu, op_name[b->op], b->cycle, a->line);
		else if (a->apic != b->apic)
			lerr(&ld->m, b->line,
			     "cpu=%" PRIu32 " has apic=%" PRIu32
			     " here but apic=%" PRIu32 " at line %zu",
			     b->cpu, b->apic, a->apic, a->line);
	}
	qsort(c, r->ns, sizeof(*c), cmp_by_apic);
	for (size_t i = 1; i < r->ns; i++) {
		const struct sample *a = &c[i - 1], *b = &c[i];
		if (a->apic == b->apic && a->cpu != b->cpu)
			lerr(&ld->m, b->line,
			     "apic=%" PRIu32 " belongs to cpu=%" PRIu32
			     " here but to cpu=%" PRIu32 " at line %zu",
			     b->apic, b->cpu, a->cpu, a->line);
	}
	free(c);
}

/* The kernel's own @summary totals should equal the sum of the samples we
 * read; a difference means lost or corrupted serial lines. */
static void check_summaries(struct loader *ld, const struct run *r)
{
	if (r->summary_only)
		return; /* nothing was lost: there were never samples */
	for (int op = 0; op < OP_COUNT; op++) {
		if (!r->sum[op].present)
			continue;
		uint64_t sum = 0;
		size_t n = 0;
		bool ovf = false;
		for (size_t i = 0; i < r->ns; i++) {
			if (r->s[i].op != op)
				continue;
			n++;
			if (sum > UINT64_MAX - r->s[i].ns)
				ovf = true;
			else
				sum += r->s[i].ns;
		}
		if (ovf || sum != r->sum[op].total_ns)
			lwarn(&ld->m, r->sum[op].line,
			      "@summary op=%s total_ns=%" PRIu64 " but the run's %zu "
			      "%s samples sum to %" PRIu64 "%s (lost serial lines?)",
			      op_name[op], r->sum[op].total_ns, n, op_name[op], sum,
			      ovf ? " and more" : "");
	}
}

static void close_run(struct loader *ld, size_t at_line, const char *why)
{
	struct run *r = &ld->set->runs[ld->cur];
	ld->cur = -1;
	if (!r->ended) {
		if (ld->allow_trunc)
			lwarn(&ld->m, r->boot_line,
			      "run %u truncated: no @end %s at line %zu; using its "
			      "%zu samples but not its totals",
			      r->index, why, at_line, r->ns);
		else
			lerr(&ld->m, r->boot_line,
			     "run truncated: this @boot has no @end %s at line %zu "
			     "(--allow-truncated uses it anyway)",
			     why, at_line);
	}
	check_run(ld, r);
	r->summary_only = r->ended && !r->ns && r->sum[OP_ONLINE].present &&
			  r->sum[OP_OFFLINE].present;
	if (r->ended)
		check_summaries(ld, r);
	size_t offline = 0, settled = 0;
	for (size_t i = 0; i < r->ns; i++) {
		offline += r->s[i].op == OP_OFFLINE;
		settled += r->s[i].op == OP_OFFLINE && r->s[i].x == X_NUM;
	}
	r->settled = offline && settled == offline;
	if (r->summary_only) /* the kernel's Offline total says which */
		r->settled = r->sum[OP_OFFLINE].settled;
}

bool nmi_samples_counted;

bool sample_counted(const struct sample *s)
{
	return !s->nmi || nmi_samples_counted;
}

uint64_t sample_figure(const struct run *r, const struct sample *s)
{
	return s->op == OP_OFFLINE && r->settled ? s->xns : s->ns;
}

const char *run_offline_figure(const struct run *r)
{
	return r->settled ? "settled_ns" : "ns";
}

int run_tsc_sync(const struct run *r, uint32_t apic)
{
	for (size_t i = 0; i < r->nsync; i++)
		if (r->sync[i].apic == apic)
			return r->sync[i].sync;
	return -1;
}

/* Every @boot opens a run, even a malformed one: later lines belong to it
 * and are not blamed on the run before. */
static struct run *begin_boot(struct loader *ld, size_t line, const char *p,
			      size_t n)
{
	if (ld->cur >= 0)
		close_run(ld, line, "before the next @boot");
	struct set *s = ld->set;
	grow((void **)&s->runs, &s->cap, s->n + 1, sizeof(*s->runs));
	struct run *r = &s->runs[s->n];
	memset(r, 0, sizeof(*r));
	r->file = ld->m.file;
	r->index = ++ld->runs_in_file;
	r->boot_line = line;
	memcpy(r->flush_model, ld->host_flush, sizeof(r->flush_model));
	ld->host_flush[0] = '\0';
	r->boot_fields = xcalloc(n + 1, 1);
	memcpy(r->boot_fields, p, n);
	ld->cur = (long)s->n++;
	return r;
}

static void on_boot(struct loader *ld, size_t line, const struct record *rec,
		    struct run *r)
{
	uint64_t wb = 0, x2 = 0, cpus = 0, cycles = 0;
	char b[256];
	const struct field *tr;
	struct msgs *m = &ld->m;

	bool ok = need_keys(m, line, rec, boot_keys) &&
		  get_str(m, line, rec, "kernel", r->kernel) &&
		  get_str(m, line, rec, "version", r->version) &&
		  get_num(m, line, rec, "wbinvd", 0, 1, &wb) &&
		  get_num(m, line, rec, "cpus", 1, CPUS_MAX, &cpus) &&
		  get_num(m, line, rec, "x2apic", 0, 1, &x2) &&
		  get_num(m, line, rec, "tsc_khz", 0, UINT32_MAX, &r->tsc_khz) &&
		  get_str(m, line, rec, "tsc_source", r->tsc_source) &&
		  get_choice(m, line, rec, "firmware", firmware_names,
			     &r->firmware) &&
		  get_num(m, line, rec, "cycles", 0, CYCLES_MAX, &cycles);
	if (ok) {
		tr = rec_get(rec, "tramp");
		if (parse_hex(tr->v, tr->vl, &r->tramp) != NUM_OK) {
			lerr(m, line, "@boot: tramp=%s must be a 0x hex address",
			     show(b, sizeof(b), tr->v, tr->vl));
			ok = false;
		}
	}
	r->wbinvd = (unsigned)wb;
	r->x2apic = (unsigned)x2;
	r->cpus = (uint32_t)cpus;
	r->cycles = (uint32_t)cycles;
	r->bad_boot = !ok;
}

/* A record that belongs to a run, outside one. */
static bool in_run(struct loader *ld, size_t line, const char *word)
{
	if (ld->cur >= 0)
		return true;
	if (ld->last_end)
		lerr(&ld->m, line, "%s after @end (line %zu) and before the next "
		     "@boot", word, ld->last_end);
	else
		lerr(&ld->m, line, "%s before @boot", word);
	return false;
}

static uint64_t fnv1a(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return h;
}

/* A cross-CPU figure: enum xfig, or -1 (reported) if the value is
 * neither a number nor na. */
static int get_xfig(struct msgs *m, size_t line, const struct record *rec,
		    const char *key, uint64_t *out)
{
	const struct field *f = rec_get(rec, key);
	if (!f)
		return X_ABSENT;
	if (f->vl == 2 && memcmp(f->v, "na", 2) == 0)
		return X_NA;
	return get_num(m, line, rec, key, 0, NS_MAX, out) ? X_NUM : -1;
}

static void on_sample(struct loader *ld, size_t line, const struct record *rec,
		      uint64_t text_hash)
{
	if (!in_run(ld, line, "@sample"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t cpu, apic, cycle, ns, ticks;
	int op;
	bool ok = need_keys(m, line, rec, sample_keys) &&
		  get_num(m, line, rec, "cpu", 0, CPUS_MAX - 1, &cpu) &&
		  get_num(m, line, rec, "apic", 0, UINT32_MAX, &apic) &&
		  get_num(m, line, rec, "cycle", 0, CYCLES_MAX, &cycle) &&
		  get_choice(m, line, rec, "op", op_choices, &op) &&
		  get_num(m, line, rec, "ns", 0, NS_MAX, &ns) &&
		  get_num(m, line, rec, "ticks", 0, UINT64_MAX, &ticks);
	if (!ok)
		return;
	uint64_t xns = 0, real_ns;
	int x = get_xfig(m, line, rec, op == OP_ONLINE ? "ap_ns" : "settled_ns",
			 &xns);
	int x_real = op == OP_ONLINE ? get_xfig(m, line, rec, "to_real_ns", &real_ns)
				     : X_ABSENT;
	if (x < 0 || x_real < 0)
		return; /* neither a number nor na: reported */
	/* No cpu < cpus check: cpu indexes every CPU in the MADT, skipped
	 * ones too, while cpus counts those started. cycle counts from 1 in
	 * apstart; 0 is accepted too. */
	if (!r->bad_boot && cycle > r->cycles) {
		lerr(m, line, "@sample: cycle=%" PRIu64 " but @boot at line %zu "
		     "has cycles=%" PRIu32, cycle, r->boot_line, r->cycles);
		return;
	}
	uint64_t nmi = 0;
	if (rec_get(rec, "nmi") && !get_num(m, line, rec, "nmi", 0, 1, &nmi))
		return;
	r->nmi_marked += nmi;
	grow((void **)&r->s, &r->cap, r->ns + 1, sizeof(*r->s));
	r->s[r->ns++] = (struct sample){ (uint32_t)cpu, (uint32_t)apic,
		(uint32_t)cycle, (uint8_t)op, ns, ticks, text_hash, line,
		(uint8_t)x, xns, (uint8_t)x_real, nmi == 1 };
}

/* @phase: one phase of one AP start (smp/phases.c). */
static void on_phase(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@phase"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t cpu, apic, cycle, ns = 0;
	int phase;
	bool ok = need_keys(m, line, rec, phase_keys) &&
		  get_num(m, line, rec, "cpu", 0, CPUS_MAX - 1, &cpu) &&
		  get_num(m, line, rec, "apic", 0, UINT32_MAX, &apic) &&
		  get_num(m, line, rec, "cycle", 0, CYCLES_MAX, &cycle) &&
		  get_choice(m, line, rec, "phase", phase_names, &phase);
	if (!ok)
		return;
	int x = get_xfig(m, line, rec, "ns", &ns);
	if (x < 0)
		return;
	uint64_t nmi = 0;
	if (rec_get(rec, "nmi") && !get_num(m, line, rec, "nmi", 0, 1, &nmi))
		return;
	if (!r->bad_boot && cycle > r->cycles) {
		lerr(m, line, "@phase: cycle=%" PRIu64 " but @boot at line %zu "
		     "has cycles=%" PRIu32, cycle, r->boot_line, r->cycles);
		return;
	}
	grow((void **)&r->ph, &r->ph_cap, r->nph + 1, sizeof(*r->ph));
	r->ph[r->nph++] = (struct phase_rec){ (uint32_t)cpu, (uint32_t)apic,
		(uint32_t)cycle, (uint8_t)phase, x == X_NA, nmi == 1, ns };
}

/* @round: the wall time of one round of cycles_mode=parallel. */
static void on_round(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@round"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t cycle, aps, ns;
	int op;
	if (!(need_keys(m, line, rec, round_keys) &&
	      get_num(m, line, rec, "cycle", 1, CYCLES_MAX, &cycle) &&
	      get_choice(m, line, rec, "op", op_choices, &op) &&
	      get_num(m, line, rec, "aps", 0, CPUS_MAX, &aps) &&
	      get_num(m, line, rec, "ns", 0, NS_MAX, &ns)))
		return;
	grow((void **)&r->rounds, &r->rounds_cap, r->nrounds + 1, sizeof(*r->rounds));
	r->rounds[r->nrounds++] = (struct round_rec){ (uint32_t)cycle, (uint32_t)aps,
		(uint8_t)op, ns };
}

/* @bringup: the mode that ran and its total (first bring-up). */
static void on_bringup(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@bringup"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	if (need_keys(m, line, rec, bringup_keys) &&
	    get_str(m, line, rec, "mode", r->bringup))
		get_num(m, line, rec, "total_ns", 0, NS_MAX, &r->bringup_ns);
}

/* @cpu: only its TSC warp test result is kept (tsc_sync=0|1, apstart);
 * records without it (older kernels, other tools) are left alone. */
static void on_cpu(struct loader *ld, size_t line, const struct record *rec)
{
	uint64_t apic, sync;
	if (!in_run(ld, line, "@cpu"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	if (!rec_get(rec, "apic")) {
		lerr(m, line, "@cpu: tsc_sync= without apic=");
		return;
	}
	if (!get_num(m, line, rec, "apic", 0, UINT32_MAX, &apic) ||
	    !get_num(m, line, rec, "tsc_sync", 0, 1, &sync))
		return;
	if (run_tsc_sync(r, (uint32_t)apic) >= 0) {
		lerr(m, line, "second @cpu apic=%" PRIu64 " with tsc_sync= in this "
		     "run", apic);
		return;
	}
	grow((void **)&r->sync, &r->sync_cap, r->nsync + 1, sizeof(*r->sync));
	r->sync[r->nsync++] = (struct cpu_sync){ (uint32_t)apic, sync == 1, line };
}

static void on_summary(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@summary"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t v;
	int op;
	bool ok = need_keys(m, line, rec, summary_keys) &&
		  get_choice(m, line, rec, "op", op_choices, &op) &&
		  get_num(m, line, rec, "cpus", 0, CPUS_MAX, &v) &&
		  get_num(m, line, rec, "cycles", 0, CYCLES_MAX, &v) &&
		  get_num(m, line, rec, "mean_ns", 0, UINT64_MAX, &v) &&
		  get_num(m, line, rec, "median_ns", 0, UINT64_MAX, &v) &&
		  get_num(m, line, rec, "min_ns", 0, UINT64_MAX, &v) &&
		  get_num(m, line, rec, "max_ns", 0, UINT64_MAX, &v) &&
		  get_num(m, line, rec, "total_ns", 0, UINT64_MAX, &v);
	if (!ok)
		return;
	uint64_t cpus = 0, cycles = 0, settled = 0;
	get_num(m, line, rec, "cpus", 0, CPUS_MAX, &cpus);
	get_num(m, line, rec, "cycles", 0, CYCLES_MAX, &cycles);
	int x = op == OP_OFFLINE ? get_xfig(m, line, rec, "settled_total_ns", &settled)
				 : X_ABSENT;
	if (x < 0)
		return; /* neither a number nor na: reported */
	if (r->sum[op].present) {
		lerr(m, line, "second @summary op=%s in this run (first at line %zu)",
		     op_name[op], r->sum[op].line);
		return;
	}
	r->sum[op].present = true;
	r->sum[op].total_ns = v;
	r->sum[op].settled = x == X_NUM;
	r->sum[op].settled_total_ns = settled;
	r->sum[op].cpus = (uint32_t)cpus;
	r->sum[op].cycles = (uint32_t)cycles;
	r->sum[op].line = line;
}

/* @cpusum: one AP's summary (the QR code carries these when it cannot
 * carry samples). An AP once per run. */
static void on_cpusum(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@cpusum"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t cpu, apic, cycles, on_med, on_max, off_med, off_max;
	bool ok = need_keys(m, line, rec, cpusum_keys) &&
		  get_num(m, line, rec, "cpu", 0, CPUS_MAX - 1, &cpu) &&
		  get_num(m, line, rec, "apic", 0, UINT32_MAX, &apic) &&
		  get_num(m, line, rec, "cycles", 0, CYCLES_MAX, &cycles) &&
		  get_num(m, line, rec, "online_median_ns", 0, NS_MAX, &on_med) &&
		  get_num(m, line, rec, "online_max_ns", 0, NS_MAX, &on_max) &&
		  get_num(m, line, rec, "offline_median_ns", 0, NS_MAX, &off_med) &&
		  get_num(m, line, rec, "offline_max_ns", 0, NS_MAX, &off_max);
	if (!ok)
		return;
	for (size_t i = 0; i < r->ncs; i++)
		if (r->cs[i].apic == apic) {
			lerr(m, line, "second @cpusum apic=%" PRIu64 " in this run (first "
			     "at line %zu)", apic, r->cs[i].line);
			return;
		}
	if (on_med > on_max || off_med > off_max) {
		lerr(m, line, "@cpusum: a median above its max");
		return;
	}
	grow((void **)&r->cs, &r->cs_cap, r->ncs + 1, sizeof(*r->cs));
	struct cpusum *c = &r->cs[r->ncs++];
	*c = (struct cpusum){ (uint32_t)cpu, (uint32_t)apic, (uint32_t)cycles,
			      { 0, 0 }, { 0, 0 }, line };
	c->median[OP_ONLINE] = on_med;
	c->max[OP_ONLINE] = on_max;
	c->median[OP_OFFLINE] = off_med;
	c->max[OP_OFFLINE] = off_max;
}

/* @fail: the kernel's report of what went wrong. Only counted (verify
 * names the first); outside a run (a panic before @boot) the @end after
 * it is what gets reported. */
static void on_fail(struct loader *ld, size_t line)
{
	if (ld->cur < 0)
		return;
	struct run *r = &ld->set->runs[ld->cur];
	if (r->nfail++ == 0)
		r->fail_line = line;
}

/* @warn records of the events a passing run may have (NMIs, stray
 * interrupts, a wake-up sent again: smp/events.c, smp/wakeup.c). */
static void on_warn(struct loader *ld, const char *p, size_t n)
{
	static const char *const events[] = { "@warn what=nmi ",
		"@warn what=stray_irq ", "@warn what=sipi_retry " };
	if (ld->cur < 0)
		return;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		size_t l = strlen(events[i]);
		if (n >= l && memcmp(p, events[i], l) == 0)
			ld->set->runs[ld->cur].warn_events++;
	}
}

/* @env: the machine (vendor, brand, hypervisor=, acpi_oem=...), kept as
 * text for lookups: it says whether the flush under test cost anything. */
static void on_env(struct loader *ld, const char *p, size_t n)
{
	if (ld->cur < 0)
		return;
	struct run *r = &ld->set->runs[ld->cur];
	free(r->env_fields);
	r->env_fields = xcalloc(n + 1, 1);
	memcpy(r->env_fields, p, n);
}

static void on_end(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@end"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t online = 0, failed = 0, warnings = 0;
	int status = 1;
	bool ok = need_keys(m, line, rec, end_keys) &&
		  get_choice(m, line, rec, "status", status_choices, &status) &&
		  get_num(m, line, rec, "online", 0, CPUS_MAX, &online) &&
		  get_num(m, line, rec, "failed", 0, CPUS_MAX, &failed);
	/* Even a malformed @end ends the run, so later lines are not blamed. */
	r->ended = true;
	r->end_line = line;
	r->passed = ok && status == 0;
	r->end_online = (uint32_t)online;
	r->end_failed = (uint32_t)failed;
	r->end_warnings = -1;
	if (rec_get(rec, "warnings") &&
	    get_num(m, line, rec, "warnings", 0, UINT32_MAX, &warnings))
		r->end_warnings = (int64_t)warnings;
	ld->last_end = line;
	close_run(ld, line, "");
}

/* @host: facts from the host side of a run (tools/qemu-run.sh writes it
 * before QEMU starts). flush_model= marks the run that follows, or the
 * open one, as run under a modelled flush cost. Other keys are ignored. */
static void on_host(struct loader *ld, size_t line, const struct record *rec)
{
	char b[256];
	const struct field *f = rec_get(rec, "flush_model");
	if (!f)
		return;
	bool ok = f->vl > 0 && f->vl < HOST_STR_MAX;
	for (size_t i = 0; ok && i < f->vl; i++)
		ok = f->v[i] > 0x20 && f->v[i] < 0x7f;
	if (!ok) {
		lerr(&ld->m, line, "@host: flush_model=%s must be 1..%d printable "
		     "characters", show(b, sizeof(b), f->v, f->vl), HOST_STR_MAX - 1);
		return;
	}
	char *dst = ld->cur >= 0 ? ld->set->runs[ld->cur].flush_model
				 : ld->host_flush;
	memcpy(dst, f->v, f->vl);
	dst[f->vl] = '\0';
}

static bool has_text(const char *p, size_t n, const char *t)
{
	size_t tl = strlen(t);
	for (size_t i = 0; i + tl <= n; i++)
		if (memcmp(p + i, t, tl) == 0)
			return true;
	return false;
}

enum word { W_BOOT, W_SAMPLE, W_SUMMARY, W_FAIL, W_END, W_HOST, W_CPU, W_WARN,
	     W_CPUSUM, W_PHASE, W_ROUND, W_BRINGUP, W_ENV, W_COUNT };

static void on_line(struct loader *ld, const char *p, size_t n, size_t line)
{
	static const char *const words[W_COUNT] = { "@boot", "@sample",
		"@summary", "@fail", "@end", "@host", "@cpu", "@warn", "@cpusum",
		"@phase", "@round", "@bringup", "@env" };
	size_t w = 1;
	while (w < n && p[w] != ' ' && p[w] != '\t')
		w++;
	int kind = -1;
	for (int i = 0; i < W_COUNT; i++)
		if (strlen(words[i]) == w && memcmp(p, words[i], w) == 0)
			kind = i;
	if (kind < 0)
		return; /* unknown @-words are for other tools */
	if (kind == W_FAIL) {
		on_fail(ld, line);
		return;
	}
	if (kind == W_WARN) {
		on_warn(ld, p, n);
		return;
	}
	if (kind == W_ENV) {
		on_env(ld, p + w, n - w);
		return;
	}
	/* @cpu matters only with a warp test result; other @cpu lines (older
	 * kernels, linux-hotplug) stay as unread as before. */
	if (kind == W_CPU && !has_text(p, n, " tsc_sync="))
		return;

	static struct record rec; /* 4 KiB: keep it off the stack */
	bool fields_ok = split_fields(&ld->m, line, words[kind], p + w, n - w,
				      &rec);
	if (kind == W_BOOT) {
		struct run *r = begin_boot(ld, line, p + w, n - w);
		if (fields_ok)
			on_boot(ld, line, &rec, r);
		else
			r->bad_boot = true;
		return;
	}
	if (!fields_ok)
		return;
	switch (kind) {
	case W_SAMPLE: on_sample(ld, line, &rec, fnv1a(p + w, n - w)); break;
	case W_SUMMARY: on_summary(ld, line, &rec); break;
	case W_END: on_end(ld, line, &rec); break;
	case W_CPU: on_cpu(ld, line, &rec); break;
	case W_CPUSUM: on_cpusum(ld, line, &rec); break;
	case W_PHASE: on_phase(ld, line, &rec); break;
	case W_ROUND: on_round(ld, line, &rec); break;
	case W_BRINGUP: on_bringup(ld, line, &rec); break;
	default: on_host(ld, line, &rec); break;
	}
}

int load_file(struct set *set, const char *path, bool allow_trunc)
{
	char *buf;
	size_t len;
	if (read_all(path, &buf, &len) != 0)
		return 1;

	struct loader ld = { .m = { .file = strcmp(path, "-") ? path : "<stdin>" },
			     .set = set, .allow_trunc = allow_trunc, .cur = -1 };
	size_t first = set->n, pos = 0, line = 0;
	while (pos < len) {
		if (ld.m.errors >= MAX_ERRORS_PER_FILE) {
			fprintf(stderr, "%s:%zu: too many errors, giving up on this "
				"file\n", ld.m.file, line);
			break;
		}
		line++;
		size_t n;
		const char *p = next_line(buf, len, &pos, &n);
		if (n && p[0] == '@')
			on_line(&ld, p, n, line);
	}
	if (ld.cur >= 0 && ld.m.errors < MAX_ERRORS_PER_FILE)
		close_run(&ld, line, "before the end of the file");
	if (set->n == first && !ld.m.errors) {
		fprintf(stderr, "%s: no apstart run in this file (no @boot record)\n",
			ld.m.file);
		ld.m.errors++;
	}
	free(buf);
	return ld.m.errors;
}
