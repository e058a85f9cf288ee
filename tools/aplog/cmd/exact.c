/* SPDX-License-Identifier: MIT */
/* The exact, per-phase comparison for instruction-counting runs (QEMU
 * -icount shift=0: 1 ns of virtual time = 1 instruction):
 *
 *   exact-baseline LOG      the phase table of one run, as a baseline file
 *   exact A -- B            A and B (each a log or such a file) must match
 *                           figure for figure; every difference named
 *   exact-diff OLD -- NEW   the whole table, old -> new (make baseline)
 *
 * A phase is any figure the kernel records per AP, per operation and per
 * cycle, found by the record schema, not from a list here: every key of
 * an @sample in nanoseconds (ns, ap_ns, to_real_ns, settled_ns, ...) and
 * every @phase record (phase=NAME ns=T, op=online), so phases the kernel
 * gains (a key in lib/records.def) are compared without a change here.
 * Values are kept per cycle; "na" is a value too. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/read/records.h"
#include "tools/aplog/stats/sets.h"
#include "tools/aplog/util.h"

#define EXACT_MAGIC "# aplog exact-baseline"
#define NA_VALUE UINT64_MAX /* "na" */

struct phase {
	uint32_t apic;
	uint8_t op;
	char name[STR_MAX];   /* the *_ns key, or "@phase:NAME" */
	size_t order;         /* first appearance, for a stable table */
	uint32_t *cycle;      /* parallel arrays, sorted by cycle */
	uint64_t *v;
	size_t n, cap;
};

struct ptable {
	const char *file;
	struct phase *p;
	size_t n, cap;
};

static void ptable_free(struct ptable *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->p[i].cycle);
		free(t->p[i].v);
	}
	free(t->p);
}

static struct phase *phase_get(struct ptable *t, uint32_t apic, int op,
			       const char *name, size_t nl)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].apic == apic && t->p[i].op == op &&
		    strlen(t->p[i].name) == nl && !memcmp(t->p[i].name, name, nl))
			return &t->p[i];
	grow((void **)&t->p, &t->cap, t->n + 1, sizeof(*t->p));
	struct phase *p = &t->p[t->n];
	*p = (struct phase){ .apic = apic, .op = (uint8_t)op, .order = t->n };
	memcpy(p->name, name, nl < STR_MAX - 1 ? nl : STR_MAX - 1);
	t->n++;
	return p;
}

/* One value; 0, or 1 after a message (duplicate cycle, bad number). */
static int phase_add(struct msgs *m, size_t line, struct phase *p,
		     uint32_t cycle, const char *v, size_t vl)
{
	uint64_t x = NA_VALUE;
	if (!(vl == 2 && !memcmp(v, "na", 2)) &&
	    parse_dec(v, vl, NS_MAX, &x) != NUM_OK) {
		char b[64];
		lerr(m, line, "%s=%s is neither a number of ns nor na", p->name,
		     show(b, sizeof(b), v, vl));
		return 1;
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->cycle[i] == cycle) {
			lerr(m, line, "apic=%" PRIu32 " op=%s %s: cycle %" PRIu32
			     " twice", p->apic, op_name[p->op], p->name, cycle);
			return 1;
		}
	size_t cap = p->cap;
	grow((void **)&p->cycle, &cap, p->n + 1, sizeof(*p->cycle));
	grow((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v));
	size_t i = p->n++;
	while (i > 0 && p->cycle[i - 1] > cycle) { /* keep cycle order */
		p->cycle[i] = p->cycle[i - 1];
		p->v[i] = p->v[i - 1];
		i--;
	}
	p->cycle[i] = cycle;
	p->v[i] = x;
	return 0;
}

/* The phases of the one run in a log (it must pass aplog's parser). */
static int ptable_from_log(struct ptable *t, const char *path, const char *buf,
			  size_t len)
{
	struct set s = { 0 };
	int errors = load_file(&s, path, false);
	if (!errors && s.n != 1) {
		fprintf(stderr, "aplog: %s: %zu runs: exact comparisons take one run per "
			"log\n", path, s.n);
		errors = 1;
	}
	if (!errors && run_use(&s.runs[0]) != USE_FULL) {
		fprintf(stderr, "aplog: %s: the run did not pass (see aplog verify)\n", path);
		errors = 1;
	}
	set_free(&s);
	if (errors)
		return 1;

	struct msgs m = { .file = path };
	static struct record rec;
	size_t pos = 0, line = 0, n;
	while (pos < len) {
		const char *p = next_line(buf, len, &pos, &n);
		line++;
		if (!n || p[0] != '@' || !record_parse(&m, line, p, n, &rec) ||
		    (rec.id != RW_sample && rec.id != RW_phase))
			continue;
		bool phase = rec.id == RW_phase;
		uint64_t apic, cycle;
		int op = OP_ONLINE;
		if (!need_required(&m, line, &rec) ||
		    !get_num(&m, line, &rec, phase ? RK_phase_apic : RK_sample_apic, 0,
			     UINT32_MAX, &apic) ||
		    !get_num(&m, line, &rec, phase ? RK_phase_cycle : RK_sample_cycle, 0,
			     CYCLES_MAX, &cycle) ||
		    (!phase && !get_choice(&m, line, &rec, RK_sample_op, op_choices, &op)))
			continue;
		if (phase) {
			const struct field *nm = rec_get(&rec, RK_phase_phase),
					   *v = rec_get(&rec, RK_phase_ns);
			char name[STR_MAX];
			int nl = snprintf(name, sizeof(name), "@phase:%.*s",
					  (int)nm->vl, nm->v);
			if (nl < 0 || (size_t)nl >= sizeof(name)) {
				lerr(&m, line, "@phase: phase name too long");
				continue;
			}
			phase_add(&m, line, phase_get(t, (uint32_t)apic, op, name,
						      (size_t)nl),
				  (uint32_t)cycle, v->v, v->vl);
			continue;
		}
		for (size_t i = 0; i < rec.n; i++) {
			const struct field *f = &rec.f[i];
			if (f->key < 0 || record_keys[f->key].unit != U_NS)
				continue;
			phase_add(&m, line, phase_get(t, (uint32_t)apic, op, f->k, f->kl),
				  (uint32_t)cycle, f->v, f->vl);
		}
	}
	if (!m.errors && !t->n) {
		fprintf(stderr, "aplog: %s: no samples\n", path);
		m.errors++;
	}
	return m.errors ? 1 : 0;
}

/* The cycle of each of a baseline line's n values: 1..n without a
 * cycles= field, else "F-L" (n consecutive cycles) or "C,C,..." (n of
 * them, rising). NULL after a message. */
static uint32_t *cycles_of(struct msgs *m, size_t line, const struct field *f,
			   uint64_t n)
{
	uint32_t *c = calloc(n, sizeof(*c));
	if (!c) {
		fprintf(stderr, "aplog: out of memory\n");
		exit(1);
	}
	if (!f) {
		for (uint64_t i = 0; i < n; i++)
			c[i] = (uint32_t)(i + 1);
		return c;
	}
	char b[64];
	const char *dash = memchr(f->v, '-', f->vl);
	uint64_t a, z;
	if (dash) {
		if (parse_dec(f->v, (size_t)(dash - f->v), CYCLES_MAX, &a) != NUM_OK ||
		    parse_dec(dash + 1, f->vl - (size_t)(dash - f->v) - 1, CYCLES_MAX,
			      &z) != NUM_OK || z < a || z - a + 1 != n) {
			lerr(m, line, "cycles=%s is not a range F-L of n=%" PRIu64
			     " cycles", show(b, sizeof(b), f->v, f->vl), n);
			free(c);
			return NULL;
		}
		for (uint64_t i = 0; i < n; i++)
			c[i] = (uint32_t)(a + i);
		return c;
	}
	size_t got = 0, i = 0;
	while (i <= f->vl) {
		size_t j = i;
		while (j < f->vl && f->v[j] != ',')
			j++;
		if (got == n || parse_dec(f->v + i, j - i, CYCLES_MAX, &a) != NUM_OK ||
		    (got && a <= c[got - 1])) {
			got = n + 1;
			break;
		}
		c[got++] = (uint32_t)a;
		i = j + 1;
	}
	if (got != n) {
		lerr(m, line, "cycles=%s is not n=%" PRIu64 " rising cycle numbers",
		     show(b, sizeof(b), f->v, f->vl), n);
		free(c);
		return NULL;
	}
	return c;
}

/* An exact-baseline file: comment lines, then
 * "apic=A op=O phase=NAME n=N values=V,V,..." for cycles 1..N in order,
 * or with "cycles=F-L" when they are another consecutive run (the
 * bring-up's @phase records are cycle 0), or "cycles=C,C,..." otherwise:
 * a value is compared with the same cycle of the other side, never by
 * position. */
static int ptable_from_baseline(struct ptable *t, const char *path,
			       const char *buf, size_t len)
{
	struct msgs m = { .file = path };
	static struct record rec;
	static const char *const keys[] = { "apic", "op", "phase", "n", "values", NULL };
	size_t pos = 0, line = 0, n;
	while (pos < len) {
		const char *p = next_line(buf, len, &pos, &n);
		line++;
		if (!n || p[0] == '#')
			continue;
		uint64_t apic, cnt;
		int op;
		if (!split_fields(&m, line, "baseline line", p, n, &rec) ||
		    !need_keys(&m, line, &rec, keys) ||
		    !field_num(&m, line, &rec, rec_named(&rec, "apic"), 0, UINT32_MAX, &apic) ||
		    !field_choice(&m, line, &rec, rec_named(&rec, "op"), op_choices, &op) ||
		    !field_num(&m, line, &rec, rec_named(&rec, "n"), 1, CYCLES_MAX, &cnt))
			continue;
		const struct field *nm = rec_named(&rec, "phase"),
				   *vs = rec_named(&rec, "values");
		if (nm->vl >= STR_MAX) {
			lerr(&m, line, "phase name too long");
			continue;
		}
		uint32_t *cyc = cycles_of(&m, line, rec_named(&rec, "cycles"), cnt);
		if (!cyc)
			continue;
		struct phase *ph = phase_get(t, (uint32_t)apic, op, nm->v, nm->vl);
		size_t got = 0, i = 0;
		while (i <= vs->vl) {
			size_t j = i;
			while (j < vs->vl && vs->v[j] != ',')
				j++;
			if (got < cnt && phase_add(&m, line, ph, cyc[got], vs->v + i, j - i))
				break;
			got++;
			i = j + 1;
		}
		if (got != cnt)
			lerr(&m, line, "n=%" PRIu64 " but %zu values", cnt, got);
		free(cyc);
	}
	if (!m.errors && !t->n) {
		fprintf(stderr, "aplog: %s: no phases\n", path);
		m.errors++;
	}
	return m.errors ? 1 : 0;
}

static int ptable_load(struct ptable *t, const char *path)
{
	char *buf;
	size_t len;
	*t = (struct ptable){ .file = path };
	if (read_all(path, &buf, &len) != 0)
		return 1;
	bool bl = len >= strlen(EXACT_MAGIC) && !memcmp(buf, EXACT_MAGIC,
							strlen(EXACT_MAGIC));
	int rc = bl ? ptable_from_baseline(t, path, buf, len)
		    : ptable_from_log(t, path, buf, len);
	free(buf);
	return rc;
}

static int cmp_phase(const void *x, const void *y)
{
	const struct phase *a = x, *b = y;
	if (a->apic != b->apic)
		return a->apic < b->apic ? -1 : 1;
	if (a->op != b->op)
		return a->op < b->op ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}


/* Median of the numbers (the lower one of an even count); NA_VALUE if
 * any value is na. */
static uint64_t phase_median(const struct phase *p)
{
	uint64_t *v = xcalloc(p->n, sizeof(*v));
	memcpy(v, p->v, p->n * sizeof(*v));
	qsort(v, p->n, sizeof(*v), cmp_u64);
	uint64_t med = v[p->n - 1] == NA_VALUE ? NA_VALUE : v[(p->n - 1) / 2];
	free(v);
	return med;
}

static const char *fmt_val(char b[24], uint64_t v)
{
	if (v == NA_VALUE)
		return "na";
	snprintf(b, 24, "%" PRIu64, v);
	return b;
}

/* "+N ns (= N instructions)" */
static const char *fmt_delta(char b[64], int64_t d)
{
	snprintf(b, 64, "%+" PRId64 " ns (= %" PRId64 " instruction%s)", d, d,
		 d == 1 || d == -1 ? "" : "s");
	return b;
}

static const struct phase *find(const struct ptable *t, const struct phase *p)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->p[i].apic == p->apic && t->p[i].op == p->op &&
		    !strcmp(t->p[i].name, p->name))
			return &t->p[i];
	return NULL;
}

/* How p (in A) and q (in B) differ, in words; "" when they do not. */
static void describe_diff(const struct phase *p, const struct phase *q, char *out,
		     size_t outsz)
{
	char a[24], b[24], d[64];
	out[0] = 0;
	size_t used = 0;
#define ADD(...) do { int k_ = snprintf(out + used, outsz - used, __VA_ARGS__); \
	if (k_ > 0) used += (size_t)k_ < outsz - used ? (size_t)k_ : outsz - used - 1; } while (0)
	if (p->n != q->n)
		ADD("%zu samples -> %zu; ", p->n, q->n);
	/* Per-cycle deltas over the cycles both have. */
	size_t same = 0, differ = 0, shown = 0;
	int64_t first = 0;
	bool uniform = true, na = false;
	for (size_t i = 0; i < p->n; i++)
		for (size_t j = 0; j < q->n; j++) {
			if (p->cycle[i] != q->cycle[j])
				continue;
			if (p->v[i] == q->v[j]) {
				same++;
				break;
			}
			if (p->v[i] == NA_VALUE || q->v[j] == NA_VALUE) {
				na = true;
				uniform = false;
			} else {
				int64_t dd = (int64_t)(q->v[j] - p->v[i]);
				if (differ && dd != first)
					uniform = false;
				if (!differ)
					first = dd;
			}
			differ++;
		}
	/* Cycles on one side only (both lists are sorted by cycle). */
	size_t only_p = 0, only_q = 0, i = 0, j = 0;
	uint32_t first_p = 0, first_q = 0;
	while (i < p->n || j < q->n) {
		if (j == q->n || (i < p->n && p->cycle[i] < q->cycle[j])) {
			if (!only_p++)
				first_p = p->cycle[i];
			i++;
		} else if (i == p->n || q->cycle[j] < p->cycle[i]) {
			if (!only_q++)
				first_q = q->cycle[j];
			j++;
		} else {
			i++;
			j++;
		}
	}
	if (!differ && !only_p && !only_q) {
		used = 0;
		out[0] = 0;
		return;
	}
	if (only_p)
		ADD("%zu cycle(s) only in A (first: %" PRIu32 "); ", only_p, first_p);
	if (only_q)
		ADD("%zu cycle(s) only in B (first: %" PRIu32 "); ", only_q, first_q);
	if (differ && uniform && !same) {
		ADD("%s in every sample (%zu)", fmt_delta(d, first), differ);
	} else if (differ) {
		uint64_t mp = phase_median(p), mq = phase_median(q);
		if (mp != NA_VALUE && mq != NA_VALUE)
			ADD("median %s, ", fmt_delta(d, (int64_t)(mq - mp)));
		ADD("%zu of %zu samples differ%s:", differ, differ + same,
		    na ? " (na involved)" : "");
		for (size_t i = 0; i < p->n && shown < 8; i++)
			for (size_t j = 0; j < q->n; j++)
				if (p->cycle[i] == q->cycle[j] && p->v[i] != q->v[j]) {
					if (p->v[i] == NA_VALUE || q->v[j] == NA_VALUE)
						ADD(" cycle %" PRIu32 " %s -> %s;", p->cycle[i],
						    fmt_val(a, p->v[i]), fmt_val(b, q->v[j]));
					else
						ADD(" cycle %" PRIu32 " %s -> %s (%+" PRId64 ");",
						    p->cycle[i], fmt_val(a, p->v[i]),
						    fmt_val(b, q->v[j]),
						    (int64_t)(q->v[j] - p->v[i]));
					shown++;
				}
		if (shown < differ)
			ADD(" ...");
	}
	if (!na && p->n && q->n) {
		uint64_t mp = phase_median(p), mq = phase_median(q);
		if (mp != NA_VALUE && mq != NA_VALUE && differ && uniform && !same)
			ADD(" (median %s -> %s)", fmt_val(a, mp), fmt_val(b, mq));
	}
	if (used >= 2 && !strcmp(out + used - 2, "; "))
		out[used - 2] = 0;
#undef ADD
}

static int load_pair(struct ptable *a, struct ptable *b, const char *what)
{
	if (cli.nfiles[0] != 1 || cli.nfiles[1] != 1)
		usage_error("%s takes one file on each side: A -- B", what);
	int rc = ptable_load(a, cli.files[0][0]);
	rc |= ptable_load(b, cli.files[1][0]);
	if (!rc) {
		qsort(a->p, a->n, sizeof(*a->p), cmp_phase);
		qsort(b->p, b->n, sizeof(*b->p), cmp_phase);
	}
	return rc;
}

/* A baseline line's cycles= field, left out when they are 1..n. */
static void print_cycles(const struct phase *p)
{
	bool one_to_n = true, consecutive = true;
	for (size_t j = 0; j < p->n; j++) {
		one_to_n &= p->cycle[j] == j + 1;
		consecutive &= p->cycle[j] == p->cycle[0] + j;
	}
	if (one_to_n)
		return;
	if (consecutive) {
		printf("cycles=%" PRIu32 "-%" PRIu32 " ", p->cycle[0],
		       p->cycle[p->n - 1]);
		return;
	}
	printf("cycles=");
	for (size_t j = 0; j < p->n; j++)
		printf("%s%" PRIu32, j ? "," : "", p->cycle[j]);
	printf(" ");
}

int cmd_exact_baseline(void)
{
	if (cli.nfiles[0] != 1)
		usage_error("exact-baseline takes one LOG (one run)");
	struct ptable t;
	if (ptable_load(&t, cli.files[0][0])) {
		ptable_free(&t);
		return 1;
	}
	qsort(t.p, t.n, sizeof(*t.p), cmp_phase);
	char b[256];
	const char *f = cli.files[0][0];
	printf(EXACT_MAGIC ": every per-AP, per-operation phase of one run, "
	       "per cycle, in ns\n# (under -icount shift=0: instructions), "
	       "from %s\n", show(b, sizeof(b), f, strlen(f)));
	printf("# check: aplog exact THIS_FILE -- LOG (any difference fails)\n");
	if (cli.config)
		printf("# config: %s\n", cli.config);
	for (size_t i = 0; i < t.n; i++) {
		const struct phase *p = &t.p[i];
		printf("apic=%" PRIu32 " op=%s phase=%s n=%zu ", p->apic,
		       op_name[p->op], p->name, p->n);
		print_cycles(p);
		printf("values=");
		for (size_t j = 0; j < p->n; j++) {
			char v[24];
			printf("%s%s", j ? "," : "", fmt_val(v, p->v[j]));
		}
		printf("\n");
	}
	ptable_free(&t);
	return 0;
}

int cmd_exact(void)
{
	struct ptable a, b;
	int rc = load_pair(&a, &b, "exact");
	if (rc) {
		ptable_free(&a);
		ptable_free(&b);
		return 1;
	}
	size_t differ = 0, samples = 0;
	static char why[2048];
	for (size_t i = 0; i < a.n; i++) {
		const struct phase *p = &a.p[i], *q = find(&b, p);
		samples += p->n;
		if (!q) {
			printf("GONE apic=%" PRIu32 " op=%s phase=%s: in %s, not in %s\n",
			       p->apic, op_name[p->op], p->name, a.file, b.file);
			differ++;
			continue;
		}
		describe_diff(p, q, why, sizeof(why));
		if (why[0]) {
			printf("DIFF apic=%" PRIu32 " op=%s phase=%s: %s\n", p->apic,
			       op_name[p->op], p->name, why);
			differ++;
		}
	}
	for (size_t i = 0; i < b.n; i++)
		if (!find(&a, &b.p[i])) {
			printf("NEW  apic=%" PRIu32 " op=%s phase=%s: in %s, not in %s\n",
			       b.p[i].apic, op_name[b.p[i].op], b.p[i].name, b.file,
			       a.file);
			differ++;
		}
	if (differ)
		printf("exact: %zu of %zu phases differ (APs x ops x phases; "
		       "1 ns = 1 instruction)\n", differ, a.n);
	else
		printf("exact: all %zu phases identical (%zu figures)\n", a.n, samples);
	ptable_free(&a);
	ptable_free(&b);
	return differ ? 1 : 0;
}

int cmd_exact_diff(void)
{
	struct ptable a, b;
	int rc = load_pair(&a, &b, "exact-diff");
	if (rc) {
		ptable_free(&a);
		ptable_free(&b);
		return 1;
	}
	static char why[2048];
	size_t changed = 0;
	printf("%-5s %-8s %-18s %10s %10s  %s\n", "apic", "op", "phase", "old",
	       "new", "change (medians; 1 ns = 1 instruction)");
	for (size_t i = 0; i < a.n; i++) {
		const struct phase *p = &a.p[i], *q = find(&b, p);
		char x[24], y[24];
		if (!q) {
			printf("%-5" PRIu32 " %-8s %-18s %10s %10s  gone\n", p->apic,
			       op_name[p->op], p->name, fmt_val(x, phase_median(p)), "-");
			changed++;
			continue;
		}
		describe_diff(p, q, why, sizeof(why));
		changed += why[0] != 0;
		printf("%-5" PRIu32 " %-8s %-18s %10s %10s  %s\n", p->apic,
		       op_name[p->op], p->name, fmt_val(x, phase_median(p)),
		       fmt_val(y, phase_median(q)), why[0] ? why : "=");
	}
	for (size_t i = 0; i < b.n; i++)
		if (!find(&a, &b.p[i])) {
			char y[24];
			printf("%-5" PRIu32 " %-8s %-18s %10s %10s  new\n", b.p[i].apic,
			       op_name[b.p[i].op], b.p[i].name, "-",
			       fmt_val(y, phase_median(&b.p[i])));
			changed++;
		}
	printf("exact-diff: %zu of %zu phases changed\n", changed, a.n);
	ptable_free(&a);
	ptable_free(&b);
	return 0;
}
