/* aplog: read apstart serial logs (@boot/@sample/@summary/@end records mixed
 * with other console text) and report, compare and check per-CPU AP
 * online/offline timings. Host program; usage in tools/README-aplog.md.
 *
 * Exit status: 0 ok, 1 bad input or failed check, 2 usage error. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

enum op { OP_ONLINE, OP_OFFLINE, OP_COUNT };
static const char *const op_name[OP_COUNT] = { "online", "offline" };

/* Plausibility limits: a value beyond them is corrupt data, and keeping ns
 * well below 2^53 keeps sums and medians exact in a double. */
#define NS_MAX 1000000000000000ULL /* 1e6 s */
#define CPUS_MAX (1u << 20)
#define CYCLES_MAX 10000000u
#define MAX_FIELDS 128
#define MAX_ERRORS_PER_FILE 20
#define STR_MAX 64
#define HOST_STR_MAX 128 /* @host flush_model= value */

/* ------------------------------------------------------------------ */
/* Small utilities                                                     */

static void oom(void)
{
	fputs("aplog: out of memory\n", stderr);
	exit(1);
}

static void *xrealloc_array(void *p, size_t n, size_t size)
{
	if (n && size > SIZE_MAX / n)
		oom();
	void *q = realloc(p, n && size ? n * size : 1);
	if (!q)
		oom();
	return q;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

/* Grow *p (of *cap elements) so that it holds at least need elements. */
static void grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			oom();
		c *= 2;
	}
	*p = xrealloc_array(*p, c, size);
	*cap = c;
}

/* Render untrusted bytes for a diagnostic: printable ASCII as is, anything
 * else as \xHH, long values cut, so junk input gives readable messages. */
static const char *show(char *buf, size_t bufsz, const char *s, size_t n)
{
	const size_t limit = 48;
	size_t o = 0;

	for (size_t i = 0; i < n && i < limit && o + 5 < bufsz; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, bufsz - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	if (n > limit && o + 24 < bufsz)
		snprintf(buf + o, bufsz - o, "...(%zu bytes)", n);
	return buf;
}

static bool has_newline(const char *s)
{
	return strchr(s, '\n') || strchr(s, '\r');
}

enum numres { NUM_OK, NUM_BAD, NUM_RANGE };

/* Unsigned decimal, digits only (no sign, no spaces), checked against max
 * without ever overflowing. */
static enum numres parse_dec(const char *s, size_t n, uint64_t max,
			     uint64_t *out)
{
	if (n == 0)
		return NUM_BAD;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return NUM_BAD;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > max / 10 || (v == max / 10 && d > max % 10))
			return NUM_RANGE;
		v = v * 10 + d;
	}
	*out = v;
	return NUM_OK;
}

static enum numres parse_hex(const char *s, size_t n, uint64_t *out)
{
	if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return NUM_BAD;
	uint64_t v = 0;
	bool range = false;
	for (size_t i = 2; i < n; i++) {
		char c = s[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return NUM_BAD;
		if (v > (UINT64_MAX >> 4))
			range = true;
		v = (v << 4) | d;
	}
	if (range)
		return NUM_RANGE;
	*out = v;
	return NUM_OK;
}

/* Whole file into memory: records are found by line, and reading it all
 * makes lines of any length and embedded NUL bytes harmless. */
static int read_all(const char *path, char **out, size_t *outlen)
{
	bool is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "aplog: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		grow((void **)&buf, &cap, len + 65536, 1);
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	bool failed = ferror(f);
	int err = errno;
	if (!is_stdin)
		fclose(f);
	if (failed) {
		fprintf(stderr, "aplog: %s: read error: %s\n", path,
			strerror(err ? err : EIO));
		free(buf);
		return -1;
	}
	*out = buf;
	*outlen = len;
	return 0;
}

/* A growing string, for the gnuplot script. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	grow((void **)&b->s, &b->cap, b->len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* gnuplot single-quoted string: nothing is special inside except the
 * quote itself, written twice. Callers reject newlines beforehand. */
static void sb_gpquote(struct sbuf *b, const char *s)
{
	sb_printf(b, "'");
	for (; *s; s++)
		sb_printf(b, *s == '\'' ? "''" : "%c", *s);
	sb_printf(b, "'");
}

/* ------------------------------------------------------------------ */
/* Log model                                                           */

struct sample {
	uint32_t cpu, apic, cycle;
	uint8_t op;
	uint64_t ns, ticks;
	size_t line;
};

struct run {
	const char *file;     /* as given on the command line */
	unsigned index;       /* 1-based within its file */
	size_t boot_line, end_line;
	bool bad_boot;        /* @boot was malformed: skip range checks */
	char kernel[STR_MAX], version[STR_MAX], tsc_source[STR_MAX];
	int firmware;         /* index into firmware_names */
	unsigned wbinvd, x2apic;
	uint32_t cpus, cycles;
	uint64_t tsc_khz, tramp;
	/* @host flush_model=SPEC before this run's @boot (or inside it): the
	 * QEMU flushmodel plugin charged each WBINVD/INVD a modelled cost.
	 * "" = not modelled. */
	char flush_model[HOST_STR_MAX];
	bool ended, passed;
	uint32_t end_online, end_failed;
	struct sample *s;
	size_t ns, cap;
	struct {
		bool present;
		uint64_t total_ns;
		size_t line;
	} sum[OP_COUNT];
};

struct set {
	struct run *runs;
	size_t n, cap;
};

static void set_free(struct set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->runs[i].s);
	free(s->runs);
	memset(s, 0, sizeof(*s));
}

/* Samples of a run that passed feed everything; a truncated run (accepted
 * with --allow-truncated) gives per-CPU samples but no totals; a failed run
 * is left out of all statistics. */
enum use { USE_FULL, USE_SAMPLES, USE_NONE };

static enum use run_use(const struct run *r)
{
	if (!r->ended)
		return USE_SAMPLES;
	return r->passed ? USE_FULL : USE_NONE;
}

/* ------------------------------------------------------------------ */
/* Record parsing                                                      */

struct field {
	const char *k, *v;
	size_t kl, vl;
};

struct record {
	const char *word;
	struct field f[MAX_FIELDS];
	size_t n;
};

struct loader {
	const char *file;
	struct set *set;
	bool allow_trunc;
	int errors;
	long cur;           /* index of the open run, -1 if none */
	size_t last_end;    /* line of the last @end, 0 if none */
	unsigned runs_in_file;
	char host_flush[HOST_STR_MAX]; /* @host flush_model= for the next run */
};

static void lmsg(struct loader *ld, size_t line, bool warning,
		 const char *fmt, va_list ap)
{
	fprintf(stderr, "%s:%zu: %s", ld->file, line, warning ? "warning: " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void lerr(struct loader *ld, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void lwarn(struct loader *ld, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void lerr(struct loader *ld, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lmsg(ld, line, false, fmt, ap);
	va_end(ap);
	ld->errors++;
}

static void lwarn(struct loader *ld, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	lmsg(ld, line, true, fmt, ap);
	va_end(ap);
}

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Split "k=v k=v ..." (spaces or tabs between). Every token must be a
 * key=value pair with a well-formed key; keys may not repeat. */
static bool split_fields(struct loader *ld, size_t line, const char *word,
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
		const char *eq = memchr(t, '=', tl);
		size_t kl = eq ? (size_t)(eq - t) : 0;
		bool good = kl > 0;
		for (size_t j = 0; good && j < kl; j++)
			good = key_char(t[j]);
		if (!good) {
			lerr(ld, line, "%s: malformed field '%s' (expected key=value)",
			     word, show(b1, sizeof(b1), t, tl));
			return false;
		}
		for (size_t j = 0; j < r->n; j++) {
			if (r->f[j].kl == kl && memcmp(r->f[j].k, t, kl) == 0) {
				lerr(ld, line, "%s: duplicate key '%s'", word,
				     show(b1, sizeof(b1), t, kl));
				return false;
			}
		}
		if (r->n == MAX_FIELDS) {
			lerr(ld, line, "%s: more than %d fields", word, MAX_FIELDS);
			return false;
		}
		r->f[r->n++] = (struct field){ t, eq + 1, kl, tl - kl - 1 };
	}
}

static const struct field *rec_get(const struct record *r, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i < r->n; i++)
		if (r->f[i].kl == kl && memcmp(r->f[i].k, key, kl) == 0)
			return &r->f[i];
	return NULL;
}

/* All required keys present? Names every missing one. */
static bool need_keys(struct loader *ld, size_t line, const struct record *r,
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
		lerr(ld, line, "%s: missing key(s): %s", r->word, missing);
	return o == 0;
}

static bool get_num(struct loader *ld, size_t line, const struct record *r,
		    const char *key, uint64_t min, uint64_t max, uint64_t *out)
{
	char b[256];
	const struct field *f = rec_get(r, key);
	enum numres res = parse_dec(f->v, f->vl, max, out);

	if (res == NUM_BAD) {
		lerr(ld, line, "%s: %s=%s is not a decimal number", r->word, key,
		     show(b, sizeof(b), f->v, f->vl));
		return false;
	}
	if (res == NUM_RANGE || *out < min) {
		lerr(ld, line, "%s: %s=%s out of range (%" PRIu64 "..%" PRIu64 ")",
		     r->word, key, show(b, sizeof(b), f->v, f->vl), min, max);
		return false;
	}
	return true;
}

static bool get_choice(struct loader *ld, size_t line, const struct record *r,
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
	lerr(ld, line, "%s: %s=%s must be %s", r->word, key,
	     show(b, sizeof(b), f->v, f->vl), list);
	return false;
}

static bool get_str(struct loader *ld, size_t line, const struct record *r,
		    const char *key, char *dst)
{
	char b[256];
	const struct field *f = rec_get(r, key);
	bool ok = f->vl > 0 && f->vl < STR_MAX;
	for (size_t i = 0; ok && i < f->vl; i++)
		ok = f->v[i] > 0x20 && f->v[i] < 0x7f;
	if (!ok) {
		lerr(ld, line, "%s: %s=%s must be 1..%d printable characters",
		     r->word, key, show(b, sizeof(b), f->v, f->vl), STR_MAX - 1);
		return false;
	}
	memcpy(dst, f->v, f->vl);
	dst[f->vl] = '\0';
	return true;
}

static const char *const boot_keys[] = { "kernel", "version", "wbinvd", "cpus",
	"x2apic", "tsc_khz", "tsc_source", "tramp", "firmware", "cycles", NULL };
static const char *const sample_keys[] = { "cpu", "apic", "cycle", "op", "ns",
	"ticks", NULL };
static const char *const summary_keys[] = { "op", "cpus", "cycles", "total_ns",
	"mean_ns", "median_ns", "min_ns", "max_ns", NULL };
static const char *const end_keys[] = { "status", "online", "failed", NULL };
static const char *const op_choices[] = { "online", "offline", NULL };
static const char *const firmware_names[] = { "bios", "uefi", NULL };
static const char *const status_choices[] = { "pass", "fail", NULL };

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
			lerr(ld, b->line,
			     "duplicate @sample cpu=%" PRIu32 " op=%s cycle=%" PRIu32
			     " (also at line %zu)",
			     b->cpu, op_name[b->op], b->cycle, a->line);
		else if (a->apic != b->apic)
			lerr(ld, b->line,
			     "cpu=%" PRIu32 " has apic=%" PRIu32
			     " here but apic=%" PRIu32 " at line %zu",
			     b->cpu, b->apic, a->apic, a->line);
	}
	qsort(c, r->ns, sizeof(*c), cmp_by_apic);
	for (size_t i = 1; i < r->ns; i++) {
		const struct sample *a = &c[i - 1], *b = &c[i];
		if (a->apic == b->apic && a->cpu != b->cpu)
			lerr(ld, b->line,
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
			lwarn(ld, r->sum[op].line,
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
			lwarn(ld, r->boot_line,
			      "run %u truncated: no @end %s at line %zu; using its "
			      "%zu samples but not its totals",
			      r->index, why, at_line, r->ns);
		else
			lerr(ld, r->boot_line,
			     "run truncated: this @boot has no @end %s at line %zu "
			     "(--allow-truncated uses it anyway)",
			     why, at_line);
	}
	check_run(ld, r);
	if (r->ended)
		check_summaries(ld, r);
}

static struct run *open_run(struct loader *ld, size_t line)
{
	struct set *s = ld->set;
	grow((void **)&s->runs, &s->cap, s->n + 1, sizeof(*s->runs));
	struct run *r = &s->runs[s->n];
	memset(r, 0, sizeof(*r));
	r->file = ld->file;
	r->index = ++ld->runs_in_file;
	r->boot_line = line;
	memcpy(r->flush_model, ld->host_flush, sizeof(r->flush_model));
	ld->host_flush[0] = '\0';
	ld->cur = (long)s->n++;
	return r;
}

static struct run *begin_boot(struct loader *ld, size_t line)
{
	if (ld->cur >= 0)
		close_run(ld, line, "before the next @boot");
	return open_run(ld, line);
}

static void on_boot(struct loader *ld, size_t line, const struct record *rec)
{
	struct run *r = begin_boot(ld, line);
	uint64_t wb = 0, x2 = 0, cpus = 0, cycles = 0;
	char b[256];
	const struct field *tr;

	bool ok = need_keys(ld, line, rec, boot_keys) &&
		  get_str(ld, line, rec, "kernel", r->kernel) &&
		  get_str(ld, line, rec, "version", r->version) &&
		  get_num(ld, line, rec, "wbinvd", 0, 1, &wb) &&
		  get_num(ld, line, rec, "cpus", 1, CPUS_MAX, &cpus) &&
		  get_num(ld, line, rec, "x2apic", 0, 1, &x2) &&
		  get_num(ld, line, rec, "tsc_khz", 0, UINT32_MAX, &r->tsc_khz) &&
		  get_str(ld, line, rec, "tsc_source", r->tsc_source) &&
		  get_choice(ld, line, rec, "firmware", firmware_names,
			     &r->firmware) &&
		  get_num(ld, line, rec, "cycles", 0, CYCLES_MAX, &cycles);
	if (ok) {
		tr = rec_get(rec, "tramp");
		if (parse_hex(tr->v, tr->vl, &r->tramp) != NUM_OK) {
			lerr(ld, line, "@boot: tramp=%s must be a 0x hex address",
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
		lerr(ld, line, "%s after @end (line %zu) and before the next @boot",
		     word, ld->last_end);
	else
		lerr(ld, line, "%s before @boot", word);
	return false;
}

static void on_sample(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@sample"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	uint64_t cpu, apic, cycle, ns, ticks;
	int op;
	bool ok = need_keys(ld, line, rec, sample_keys) &&
		  get_num(ld, line, rec, "cpu", 0, CPUS_MAX - 1, &cpu) &&
		  get_num(ld, line, rec, "apic", 0, UINT32_MAX, &apic) &&
		  get_num(ld, line, rec, "cycle", 0, CYCLES_MAX, &cycle) &&
		  get_choice(ld, line, rec, "op", op_choices, &op) &&
		  get_num(ld, line, rec, "ns", 0, NS_MAX, &ns) &&
		  get_num(ld, line, rec, "ticks", 0, UINT64_MAX, &ticks);
	if (!ok)
		return;
	/* No cpu < cpus check: cpu indexes every CPU in the MADT, skipped
	 * ones too, while cpus counts those started. cycle counts from 1 in
	 * apstart; 0 is accepted too. */
	if (!r->bad_boot && cycle > r->cycles) {
		lerr(ld, line, "@sample: cycle=%" PRIu64 " but @boot at line %zu "
		     "has cycles=%" PRIu32, cycle, r->boot_line, r->cycles);
		return;
	}
	grow((void **)&r->s, &r->cap, r->ns + 1, sizeof(*r->s));
	r->s[r->ns++] = (struct sample){ (uint32_t)cpu, (uint32_t)apic,
		(uint32_t)cycle, (uint8_t)op, ns, ticks, line };
}

static void on_summary(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@summary"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	uint64_t v;
	int op;
	bool ok = need_keys(ld, line, rec, summary_keys) &&
		  get_choice(ld, line, rec, "op", op_choices, &op) &&
		  get_num(ld, line, rec, "cpus", 0, CPUS_MAX, &v) &&
		  get_num(ld, line, rec, "cycles", 0, CYCLES_MAX, &v) &&
		  get_num(ld, line, rec, "mean_ns", 0, UINT64_MAX, &v) &&
		  get_num(ld, line, rec, "median_ns", 0, UINT64_MAX, &v) &&
		  get_num(ld, line, rec, "min_ns", 0, UINT64_MAX, &v) &&
		  get_num(ld, line, rec, "max_ns", 0, UINT64_MAX, &v) &&
		  get_num(ld, line, rec, "total_ns", 0, UINT64_MAX, &v);
	if (!ok)
		return;
	if (r->sum[op].present) {
		lerr(ld, line, "second @summary op=%s in this run (first at line %zu)",
		     op_name[op], r->sum[op].line);
		return;
	}
	r->sum[op].present = true;
	r->sum[op].total_ns = v;
	r->sum[op].line = line;
}

static void on_end(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@end"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	uint64_t online = 0, failed = 0;
	int status = 1;
	bool ok = need_keys(ld, line, rec, end_keys) &&
		  get_choice(ld, line, rec, "status", status_choices, &status) &&
		  get_num(ld, line, rec, "online", 0, CPUS_MAX, &online) &&
		  get_num(ld, line, rec, "failed", 0, CPUS_MAX, &failed);
	/* Even a malformed @end ends the run, so later lines are not blamed. */
	r->ended = true;
	r->end_line = line;
	r->passed = ok && status == 0;
	r->end_online = (uint32_t)online;
	r->end_failed = (uint32_t)failed;
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
		lerr(ld, line, "@host: flush_model=%s must be 1..%d printable "
		     "characters", show(b, sizeof(b), f->v, f->vl), HOST_STR_MAX - 1);
		return;
	}
	char *dst = ld->cur >= 0 ? ld->set->runs[ld->cur].flush_model
				 : ld->host_flush;
	memcpy(dst, f->v, f->vl);
	dst[f->vl] = '\0';
}

static void on_line(struct loader *ld, const char *p, size_t n, size_t line)
{
	static const char *const words[] = { "@boot", "@sample", "@summary",
					     "@end", "@host" };
	size_t w = 1;
	while (w < n && p[w] != ' ' && p[w] != '\t')
		w++;
	int kind = -1;
	for (int i = 0; i < 5; i++)
		if (strlen(words[i]) == w && memcmp(p, words[i], w) == 0)
			kind = i;
	if (kind < 0)
		return; /* unknown @-words are for other tools */

	static struct record rec; /* 4 KiB: keep it off the stack */
	if (!split_fields(ld, line, words[kind], p + w, n - w, &rec)) {
		if (kind == 0) /* still a run boundary: later lines belong to it */
			begin_boot(ld, line)->bad_boot = true;
		return;
	}
	switch (kind) {
	case 0: on_boot(ld, line, &rec); break;
	case 1: on_sample(ld, line, &rec); break;
	case 2: on_summary(ld, line, &rec); break;
	case 3: on_end(ld, line, &rec); break;
	default: on_host(ld, line, &rec); break;
	}
}

static int load_file(struct set *set, const char *path, bool allow_trunc)
{
	char *buf;
	size_t len;
	if (read_all(path, &buf, &len) != 0)
		return 1;

	struct loader ld = { .file = strcmp(path, "-") ? path : "<stdin>",
			     .set = set, .allow_trunc = allow_trunc, .cur = -1 };
	size_t first = set->n, pos = 0, line = 0;
	while (pos < len) {
		if (ld.errors >= MAX_ERRORS_PER_FILE) {
			fprintf(stderr, "%s:%zu: too many errors, giving up on this "
				"file\n", ld.file, line);
			break;
		}
		line++;
		const char *p = buf + pos;
		const char *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;
		pos += n + (nl != NULL);
		while (n && p[n - 1] == '\r')
			n--;
		if (n && p[0] == '@')
			on_line(&ld, p, n, line);
	}
	if (ld.cur >= 0 && ld.errors < MAX_ERRORS_PER_FILE)
		close_run(&ld, line, "before the end of the file");
	if (set->n == first && !ld.errors) {
		fprintf(stderr, "%s: no apstart run in this file (no @boot record)\n",
			ld.file);
		ld.errors++;
	}
	free(buf);
	return ld.errors;
}

/* ------------------------------------------------------------------ */
/* Statistics                                                          */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_sorted(const uint64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	if (n % 2)
		return (double)v[n / 2];
	return ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

struct desc {
	size_t n;
	double mean, median, min, max, p95;
};

static void describe(const uint64_t *v, size_t n, struct desc *d)
{
	memset(d, 0, sizeof(*d));
	d->n = n;
	if (n == 0)
		return;
	long double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	d->mean = (double)(sum / n);
	d->median = median_sorted(v, n);
	d->min = (double)v[0];
	d->max = (double)v[n - 1];
	/* nearest rank: the ceil(0.95 n)-th smallest */
	size_t rank = n / 100 * 95 + ((n % 100) * 95 + 99) / 100;
	d->p95 = (double)v[rank - 1];
}

/* Per APIC ID sample lists (sorted) and the pooled lists per op. */
struct cpu_row {
	uint32_t apic;
	long cpu;                    /* -1: index differs between runs */
	const uint64_t *v[OP_COUNT];
	size_t n[OP_COUNT];
};

struct table {
	struct cpu_row *rows;
	size_t nrows;
	uint64_t *store;
	uint64_t *pool[OP_COUNT];
	size_t npool[OP_COUNT];
};

struct flat {
	uint32_t apic, cpu;
	uint8_t op;
	uint64_t ns;
};

static int cmp_flat(const void *a, const void *b)
{
	const struct flat *x = a, *y = b;
	if (x->apic != y->apic)
		return x->apic < y->apic ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static void table_build(const struct set *s, struct table *t)
{
	size_t total = 0;
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < s->n; i++)
		if (run_use(&s->runs[i]) != USE_NONE)
			total += s->runs[i].ns;

	struct flat *f = xrealloc_array(NULL, total, sizeof(*f));
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct run *r = &s->runs[i];
		if (run_use(r) == USE_NONE)
			continue;
		for (size_t j = 0; j < r->ns; j++)
			f[k++] = (struct flat){ r->s[j].apic, r->s[j].cpu,
						r->s[j].op, r->s[j].ns };
	}
	qsort(f, total, sizeof(*f), cmp_flat);

	t->store = xrealloc_array(NULL, total, sizeof(uint64_t));
	for (int op = 0; op < OP_COUNT; op++)
		t->pool[op] = xrealloc_array(NULL, total, sizeof(uint64_t));
	t->rows = xrealloc_array(NULL, total, sizeof(*t->rows));
	for (size_t i = 0; i < total; i++) {
		t->store[i] = f[i].ns;
		t->pool[f[i].op][t->npool[f[i].op]++] = f[i].ns;
		if (i == 0 || f[i].apic != f[i - 1].apic) {
			struct cpu_row *r = &t->rows[t->nrows++];
			memset(r, 0, sizeof(*r));
			r->apic = f[i].apic;
			r->cpu = f[i].cpu;
		}
		struct cpu_row *r = &t->rows[t->nrows - 1];
		if (r->cpu != (long)f[i].cpu)
			r->cpu = -1;
		if (r->n[f[i].op]++ == 0)
			r->v[f[i].op] = &t->store[i];
	}
	for (int op = 0; op < OP_COUNT; op++)
		qsort(t->pool[op], t->npool[op], sizeof(uint64_t), cmp_u64);
	free(f);
}

static void table_free(struct table *t)
{
	free(t->rows);
	free(t->store);
	for (int op = 0; op < OP_COUNT; op++)
		free(t->pool[op]);
	memset(t, 0, sizeof(*t));
}

static void run_totals(const struct run *r, double tot[OP_COUNT])
{
	tot[OP_ONLINE] = tot[OP_OFFLINE] = 0;
	for (size_t i = 0; i < r->ns; i++)
		tot[r->s[i].op] += (double)r->s[i].ns;
}

/* xoshiro256** seeded by splitmix64: fixed seed, reproducible output. */
struct rng {
	uint64_t s[4];
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform in [0, n) without modulo bias. */
static size_t rng_below(struct rng *r, size_t n)
{
	uint64_t lim = (0 - (uint64_t)n) % n, x;
	do
		x = rng_next(r);
	while (x < lim);
	return (size_t)(x % n);
}

/* Median of a resample with replacement of sorted v: count how often each
 * index is drawn and walk the counts, O(n) and no sorting per resample. */
static double resample_median(const uint64_t *v, size_t n, uint32_t *counts,
			      struct rng *r)
{
	memset(counts, 0, n * sizeof(*counts));
	for (size_t i = 0; i < n; i++)
		counts[rng_below(r, n)]++;
	size_t k1 = (n - 1) / 2, k2 = n / 2, seen = 0;
	double lo = 0;
	bool have_lo = false;
	for (size_t i = 0; i < n; i++) {
		seen += counts[i];
		if (!have_lo && seen > k1) {
			lo = (double)v[i];
			have_lo = true;
		}
		if (seen > k2)
			return (lo + (double)v[i]) / 2.0;
	}
	return lo; /* not reached: the counts add up to n */
}

static double ratio_of(double b, double a)
{
	if (a == 0)
		return b == 0 ? 1.0 : INFINITY;
	return b / a;
}

struct boot {
	bool ok;              /* both sides have samples */
	double med_a, med_b, ratio, lo, hi;
	size_t na, nb;
};

/* Ratio B/A of medians with a percentile bootstrap 95% CI, resampling the
 * samples of each side independently. */
static void bootstrap(const uint64_t *a, size_t na, const uint64_t *b,
		      size_t nb, unsigned resamples, uint64_t seed,
		      struct boot *out)
{
	memset(out, 0, sizeof(*out));
	out->na = na;
	out->nb = nb;
	if (!na || !nb)
		return;
	out->ok = true;
	out->med_a = median_sorted(a, na);
	out->med_b = median_sorted(b, nb);
	out->ratio = ratio_of(out->med_b, out->med_a);

	struct rng rng;
	rng_seed(&rng, seed);
	uint32_t *counts = xrealloc_array(NULL, na > nb ? na : nb,
					  sizeof(*counts));
	double *ratios = xrealloc_array(NULL, resamples, sizeof(*ratios));
	for (unsigned i = 0; i < resamples; i++) {
		double ma = resample_median(a, na, counts, &rng);
		double mb = resample_median(b, nb, counts, &rng);
		ratios[i] = ratio_of(mb, ma);
	}
	qsort(ratios, resamples, sizeof(*ratios), cmp_double);
	size_t tail = (size_t)resamples * 25 / 1000;
	out->lo = ratios[tail];
	out->hi = ratios[resamples - 1 - tail];
	free(counts);
	free(ratios);
}

static const char *verdict(const struct boot *b)
{
	if (b->hi < 1.0)
		return "faster";
	if (b->lo > 1.0)
		return "slower";
	return "noise";
}

/* Microseconds with 3, 2 or 1 decimals as the value grows. */
static void put_us(double ns, int width)
{
	double us = ns / 1000.0;
	int dec = us < 1000.0 ? 3 : us < 100000.0 ? 2 : 1;
	printf("%*.*f", width, dec, us);
}

/* ------------------------------------------------------------------ */
/* Command line                                                        */

enum {
	O_TRUNC = 1u << 0, O_LABELS = 1u << 1, O_BOOT = 1u << 2,
	O_BASELINE = 1u << 3, O_TOL = 1u << 4, O_SLOWER = 1u << 5,
	O_MAXRATIO = 1u << 6, O_OP = 1u << 7, O_FASTER = 1u << 8,
	O_MODE = 1u << 9, O_CONFIG = 1u << 10, O_OUT = 1u << 11,
};

static const struct optdef {
	const char *name;
	unsigned flag;
	bool arg;
} optdefs[] = {
	{ "allow-truncated", O_TRUNC, false },
	{ "label-a", O_LABELS, true },
	{ "label-b", O_LABELS, true },
	{ "resamples", O_BOOT, true },
	{ "seed", O_BOOT, true },
	{ "baseline", O_BASELINE, true },
	{ "tolerance", O_TOL, true },
	{ "slower-than", O_SLOWER, false },
	{ "max-ratio", O_MAXRATIO, true },
	{ "op", O_OP, true },
	{ "allow-faster", O_FASTER, false },
	{ "mode", O_MODE, true },
	{ "config", O_CONFIG, true },
	{ "out", O_OUT, true },
};

static struct cli {
	const char *cmd;
	const char **files[2];
	size_t nfiles[2];
	bool sep;
	unsigned given;
	const char *label[2], *baseline, *out, *mode, *config;
	double tolerance, max_ratio;
	unsigned resamples;
	uint64_t seed;
	int op;
} cli;

static void usage(FILE *f)
{
	fputs(
"usage: aplog COMMAND [options] LOG...   (LOG '-' reads standard input)\n"
"  stats [--allow-truncated] LOG...\n"
"  compare [--label-a X] [--label-b Y] [--resamples N] [--seed S]\n"
"          A.log... -- B.log...\n"
"  check --baseline FILE [--tolerance PCT] [--allow-faster] LOG...\n"
"  check --slower-than A.log... -- B.log... [--max-ratio R]\n"
"        [--op online|offline] [--resamples N] [--seed S]\n"
"  baseline [--tolerance PCT] [--mode M] [--config TEXT] LOG... > FILE\n"
"  diff-baseline OLD NEW\n"
"  csv LOG... > out.csv\n"
"  plot --out FILE.png [--label-a X] [--label-b Y] A.log... [-- B.log...]\n"
"Every command that reads logs takes --allow-truncated.\n"
"Exit status: 0 ok, 1 bad input or failed check, 2 usage error.\n", f);
}

static void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("aplog: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	usage(stderr);
	exit(2);
}

static double opt_double(const char *name, const char *v, double min,
			 double max)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (!*v || *end || errno || !isfinite(d) || d < min || d > max)
		usage_error("--%s %s: expected a number in %g..%g", name, v, min,
			    max);
	return d;
}

static uint64_t opt_u64(const char *name, const char *v, uint64_t min,
			uint64_t max)
{
	uint64_t x;
	if (parse_dec(v, strlen(v), max, &x) != NUM_OK || x < min)
		usage_error("--%s %s: expected an integer in %" PRIu64 "..%" PRIu64,
			    name, v, min, max);
	return x;
}

static void parse_cli(int argc, char **argv, unsigned allowed, bool two_sets)
{
	for (int s = 0; s < 2; s++)
		cli.files[s] = xcalloc((size_t)argc, sizeof(char *));
	cli.resamples = 2000;
	cli.seed = 1;
	cli.op = OP_ONLINE;
	cli.max_ratio = 1.0;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			if (!two_sets)
				usage_error("'%s' takes no '--' (one set of logs)",
					    cli.cmd);
			if (cli.sep)
				usage_error("more than one '--'");
			cli.sep = true;
			continue;
		}
		if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
			cli.files[cli.sep][cli.nfiles[cli.sep]++] = a;
			continue;
		}
		const char *name = a + 2, *val = NULL;
		size_t nl = strcspn(name, "=");
		const struct optdef *d = NULL;
		for (size_t j = 0; j < sizeof(optdefs) / sizeof(optdefs[0]); j++)
			if (strlen(optdefs[j].name) == nl &&
			    strncmp(optdefs[j].name, name, nl) == 0)
				d = &optdefs[j];
		if (!d)
			usage_error("unknown option %s", a);
		if (!(allowed & d->flag))
			usage_error("option --%s does not apply to '%s'", d->name,
				    cli.cmd);
		if (d->arg) {
			if (name[nl] == '=')
				val = name + nl + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				usage_error("option --%s needs a value", d->name);
		} else if (name[nl] == '=') {
			usage_error("option --%s takes no value", d->name);
		}
		cli.given |= d->flag;
		if (!strcmp(d->name, "label-a") || !strcmp(d->name, "label-b")) {
			if (has_newline(val))
				usage_error("--%s: no newlines please", d->name);
			cli.label[d->name[6] == 'b'] = val;
		} else if (!strcmp(d->name, "resamples")) {
			cli.resamples = (unsigned)opt_u64(d->name, val, 100, 1000000);
		} else if (!strcmp(d->name, "seed")) {
			cli.seed = opt_u64(d->name, val, 0, UINT64_MAX);
		} else if (!strcmp(d->name, "baseline")) {
			cli.baseline = val;
		} else if (!strcmp(d->name, "tolerance")) {
			cli.tolerance = opt_double(d->name, val, 0, 1000);
		} else if (!strcmp(d->name, "max-ratio")) {
			cli.max_ratio = opt_double(d->name, val, 1e-6, 1e6);
		} else if (!strcmp(d->name, "op")) {
			if (!strcmp(val, "online"))
				cli.op = OP_ONLINE;
			else if (!strcmp(val, "offline"))
				cli.op = OP_OFFLINE;
			else
				usage_error("--op %s: expected online or offline", val);
		} else if (!strcmp(d->name, "mode") || !strcmp(d->name, "config")) {
			if (has_newline(val))
				usage_error("--%s: no newlines please", d->name);
			*(d->name[0] == 'm' ? &cli.mode : &cli.config) = val;
		} else if (!strcmp(d->name, "out")) {
			cli.out = val;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Sets of logs as the commands see them                               */

struct side {
	struct set set;
	struct table t;
	const char *label;
	char label_buf[32];
	size_t usable, complete;
	double mean_total[OP_COUNT];
	int wbinvd;          /* 0 or 1; -1 mixed */
	long cpus, cycles;   /* -1 mixed */
	size_t modelled;     /* usable runs with @host flush_model= */
	const char *flush_model; /* their common model, NULL if they differ */
};

static int side_load(struct side *sd, const char *const *files, size_t n,
		     const char *name, const char *purpose)
{
	int errors = 0;
	memset(sd, 0, sizeof(*sd));
	for (size_t i = 0; i < n; i++)
		errors += load_file(&sd->set, files[i], cli.given & O_TRUNC);
	if (errors)
		return errors;

	double sum[OP_COUNT] = { 0, 0 };
	sd->wbinvd = sd->cpus = sd->cycles = -2;
	for (size_t i = 0; i < sd->set.n; i++) {
		const struct run *r = &sd->set.runs[i];
		enum use u = run_use(r);
		if (u == USE_NONE) {
			fprintf(stderr, "%s:%zu: warning: run %u ended with status=fail "
				"(online=%" PRIu32 " failed=%" PRIu32 "): excluded from "
				"%s\n", r->file, r->boot_line, r->index, r->end_online,
				r->end_failed, purpose);
			continue;
		}
		sd->usable++;
		sd->wbinvd = sd->wbinvd == -2 || sd->wbinvd == (int)r->wbinvd ?
			     (int)r->wbinvd : -1;
		sd->cpus = sd->cpus == -2 || sd->cpus == (long)r->cpus ?
			   (long)r->cpus : -1;
		sd->cycles = sd->cycles == -2 || sd->cycles == (long)r->cycles ?
			     (long)r->cycles : -1;
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
	return 0;
}

static void side_free(struct side *sd)
{
	table_free(&sd->t);
	set_free(&sd->set);
}

/* Label: the user's, else the wbinvd setting the runs share, else A/B. */
static void side_labels(struct side s[2])
{
	for (int i = 0; i < 2; i++) {
		if (cli.label[i])
			s[i].label = cli.label[i];
		else if (s[i].wbinvd >= 0)
			snprintf(s[i].label_buf, sizeof(s[i].label_buf), "WBINVD=%d",
				 s[i].wbinvd);
		else
			snprintf(s[i].label_buf, sizeof(s[i].label_buf), "%c", 'A' + i);
		if (!cli.label[i])
			s[i].label = s[i].label_buf;
	}
	if (!cli.label[0] && !cli.label[1] && !strcmp(s[0].label, s[1].label)) {
		snprintf(s[0].label_buf, sizeof(s[0].label_buf), "A");
		snprintf(s[1].label_buf, sizeof(s[1].label_buf), "B");
	}
}

/* Every table made from modelled runs says so (prefix: "" or "# "). */
static void print_flush_note(const struct side *s, const char *prefix)
{
	if (!s->modelled)
		return;
	printf("%sMODELLED: %zu of %zu runs had each WBINVD/INVD charged a modelled "
	       "cost by the QEMU flushmodel plugin (flush_model=%s): not hardware\n",
	       prefix, s->modelled, s->usable,
	       s->flush_model ? s->flush_model : "(differs between runs)");
}

static void side_describe(const struct side *s, char letter)
{
	printf("%c: %s: %zu run%s", letter, s->label, s->usable,
	       s->usable == 1 ? "" : "s");
	if (s->complete != s->usable)
		printf(" (%zu complete)", s->complete);
	printf(", %zu APs, %zu online + %zu offline samples\n", s->t.nrows,
	       s->t.npool[OP_ONLINE], s->t.npool[OP_OFFLINE]);
	print_flush_note(s, "   ");
}

static void print_boot(const char *name, const struct boot *b, double max_ratio)
{
	printf("  %-8s ", name);
	if (!b->ok) {
		printf("n/a (A has %zu samples, B has %zu)\n", b->na, b->nb);
		return;
	}
	printf("%.3f [%.3f, %.3f]  %-6s", b->ratio, b->lo, b->hi,
	       max_ratio > 0 ? (b->lo > max_ratio ? "SLOWER" : "ok") : verdict(b));
	printf("  median ");
	put_us(b->med_a, 0);
	printf(" us (n=%zu) -> ", b->na);
	put_us(b->med_b, 0);
	printf(" us (n=%zu)\n", b->nb);
}

/* ------------------------------------------------------------------ */
/* stats                                                               */

static void put_cell_group(const uint64_t *v, size_t n)
{
	struct desc d;
	if (!n) {
		printf(" %4s %11s %11s %11s %11s %11s", "0", "-", "-", "-", "-", "-");
		return;
	}
	describe(v, n, &d);
	printf(" %4zu ", n);
	put_us(d.mean, 11);
	putchar(' ');
	put_us(d.median, 11);
	putchar(' ');
	put_us(d.min, 11);
	putchar(' ');
	put_us(d.max, 11);
	putchar(' ');
	put_us(d.p95, 11);
}

static int cmd_stats(void)
{
	if (!cli.nfiles[0])
		usage_error("stats needs at least one LOG");
	struct side sd;
	if (side_load(&sd, cli.files[0], cli.nfiles[0], "logs", "statistics")) {
		side_free(&sd);
		return 1;
	}
	printf("run wbinvd   cpus cycles samples     online ms    offline ms"
	       "      total ms  status   source\n");
	for (size_t i = 0; i < sd.set.n; i++) {
		const struct run *r = &sd.set.runs[i];
		double tot[OP_COUNT];
		run_totals(r, tot);
		enum use u = run_use(r);
		printf("%3zu %6u %6" PRIu32 " %6" PRIu32 " %7zu", i + 1, r->wbinvd,
		       r->cpus, r->cycles, r->ns);
		if (u == USE_SAMPLES)
			printf(" %13s %13s %13s", "-", "-", "-");
		else
			printf(" %13.3f %13.3f %13.3f", tot[OP_ONLINE] / 1e6,
			       tot[OP_OFFLINE] / 1e6,
			       (tot[OP_ONLINE] + tot[OP_OFFLINE]) / 1e6);
		printf("  %-8s %s:%zu\n",
		       u == USE_FULL ? "pass" : u == USE_NONE ? "FAIL" : "truncated",
		       r->file, r->boot_line);
	}
	if (sd.usable != sd.set.n)
		printf("(FAIL runs are left out of everything below; truncated runs "
		       "give samples but no totals)\n");
	print_flush_note(&sd, "");
	putchar('\n');

	if (sd.t.nrows == 0) {
		printf("No AP samples: %s\n",
		       sd.cpus == 1 ? "only the BSP was present (cpus=1)"
				    : "the runs recorded no @sample lines");
	} else {
		printf("Per CPU, microseconds (n = samples, p95 = nearest-rank 95th "
		       "percentile):\n");
		printf("%11s |%-66s|%s\n", "", " online", " offline");
		printf(" cpu   apic |");
		for (int op = 0; op < OP_COUNT; op++)
			printf(" %4s %11s %11s %11s %11s %11s%s", "n", "mean", "median",
			       "min", "max", "p95", op == OP_ONLINE ? " |" : "\n");
		for (size_t i = 0; i < sd.t.nrows; i++) {
			const struct cpu_row *row = &sd.t.rows[i];
			if (row->cpu < 0)
				printf("%4s", "-");
			else
				printf("%4ld", row->cpu);
			printf(" %6" PRIu32 " |", row->apic);
			put_cell_group(row->v[OP_ONLINE], row->n[OP_ONLINE]);
			printf(" |");
			put_cell_group(row->v[OP_OFFLINE], row->n[OP_OFFLINE]);
			putchar('\n');
		}
		printf("%11s |", "all");
		put_cell_group(sd.t.pool[OP_ONLINE], sd.t.npool[OP_ONLINE]);
		printf(" |");
		put_cell_group(sd.t.pool[OP_OFFLINE], sd.t.npool[OP_OFFLINE]);
		putchar('\n');
	}
	putchar('\n');

	if (!sd.complete) {
		printf("Totals: n/a (no complete run)\n");
	} else {
		if (sd.complete > 1)
			printf("Mean of %zu runs:\n", sd.complete);
		double on = sd.mean_total[OP_ONLINE] / 1e9;
		double off = sd.mean_total[OP_OFFLINE] / 1e9;
		printf("Online: %.2f s\nOffline: %.2f s\nTotal: %.2f s\n", on, off,
		       on + off);
	}
	side_free(&sd);
	return 0;
}

/* ------------------------------------------------------------------ */
/* compare, check --slower-than                                        */

static int load_two(struct side s[2], const char *purpose)
{
	if (!cli.sep || !cli.nfiles[0] || !cli.nfiles[1])
		usage_error("'%s' needs A.log... -- B.log...", cli.cmd);
	int e0 = side_load(&s[0], cli.files[0], cli.nfiles[0], "set A", purpose);
	int e1 = side_load(&s[1], cli.files[1], cli.nfiles[1], "set B", purpose);
	if (e0 || e1)
		return 1;
	side_labels(s);
	if (s[0].cpus >= 0 && s[1].cpus >= 0 && s[0].cpus != s[1].cpus)
		fprintf(stderr, "aplog: warning: A has cpus=%ld but B has cpus=%ld: "
			"the totals cover different numbers of CPUs\n", s[0].cpus,
			s[1].cpus);
	if (s[0].cycles >= 0 && s[1].cycles >= 0 && s[0].cycles != s[1].cycles)
		fprintf(stderr, "aplog: warning: A has cycles=%ld but B has "
			"cycles=%ld: the totals are not comparable\n", s[0].cycles,
			s[1].cycles);
	return 0;
}

static void print_change(const char *name, const struct side s[2], double a,
			 double b)
{
	char lab[16];
	snprintf(lab, sizeof(lab), "%s:", name);
	printf("%-9s", lab);
	if (s[0].complete)
		printf("%6.2f s", a / 1e9);
	else
		printf("%6s  ", "n/a");
	if (s[1].complete)
		printf(" -> %.2f s", b / 1e9);
	else
		printf(" -> n/a");
	if (s[0].complete && s[1].complete && a > 0) {
		double pct = (b - a) / a * 100.0;
		if (fabs(pct) >= 0.05)
			printf(" (%+.1f%%)", pct);
	}
	putchar('\n');
}

static int cmd_compare(void)
{
	struct side s[2];
	int rc = load_two(s, "the comparison");
	if (rc)
		goto out;

	side_describe(&s[0], 'A');
	side_describe(&s[1], 'B');
	printf("Mean per-run totals (sum over all APs and cycles):\n");
	double a[OP_COUNT], b[OP_COUNT];
	for (int op = 0; op < OP_COUNT; op++) {
		a[op] = s[0].mean_total[op];
		b[op] = s[1].mean_total[op];
	}
	print_change("Offline", s, a[OP_OFFLINE], b[OP_OFFLINE]);
	print_change("Online", s, a[OP_ONLINE], b[OP_ONLINE]);
	print_change("Total", s, a[OP_ONLINE] + a[OP_OFFLINE],
		     b[OP_ONLINE] + b[OP_OFFLINE]);

	printf("\nMedian ratio B/A over all samples, 95%% bootstrap CI (%u "
	       "resamples, seed %" PRIu64 "):\n", cli.resamples, cli.seed);
	for (int op = 0; op < OP_COUNT; op++) {
		struct boot bt;
		bootstrap(s[0].t.pool[op], s[0].t.npool[op], s[1].t.pool[op],
			  s[1].t.npool[op], cli.resamples, cli.seed, &bt);
		char name[16];
		snprintf(name, sizeof(name), "%s:", op_name[op]);
		print_boot(name, &bt, 0);
	}

	printf("\nPer-CPU online median (us), by APIC ID:\n");
	printf("%8s %14s %14s %8s\n", "apic", s[0].label, s[1].label, "B/A");
	size_t i = 0, j = 0;
	const struct table *ta = &s[0].t, *tb = &s[1].t;
	while (i < ta->nrows || j < tb->nrows) {
		const struct cpu_row *ra = i < ta->nrows ? &ta->rows[i] : NULL;
		const struct cpu_row *rb = j < tb->nrows ? &tb->rows[j] : NULL;
		if (ra && rb && ra->apic != rb->apic) {
			if (ra->apic < rb->apic)
				rb = NULL;
			else
				ra = NULL;
		}
		uint32_t apic = ra ? ra->apic : rb->apic;
		double ma = 0, mb = 0;
		bool ha = ra && ra->n[OP_ONLINE], hb = rb && rb->n[OP_ONLINE];
		printf("%8" PRIu32 " ", apic);
		if (ha) {
			ma = median_sorted(ra->v[OP_ONLINE], ra->n[OP_ONLINE]);
			put_us(ma, 14);
		} else {
			printf("%14s", "-");
		}
		putchar(' ');
		if (hb) {
			mb = median_sorted(rb->v[OP_ONLINE], rb->n[OP_ONLINE]);
			put_us(mb, 14);
		} else {
			printf("%14s", "-");
		}
		if (ha && hb)
			printf(" %8.3f\n", ratio_of(mb, ma));
		else
			printf(" %8s\n", "-");
		i += ra != NULL;
		j += rb != NULL;
	}
	if (!ta->nrows && !tb->nrows)
		printf("  (no AP samples on either side)\n");
out:
	side_free(&s[0]);
	side_free(&s[1]);
	return rc;
}

static int cmd_check_slower(void)
{
	struct side s[2];
	int rc = load_two(s, "the check");
	if (rc)
		goto out;
	print_flush_note(&s[0], "A: ");
	print_flush_note(&s[1], "B: ");
	struct boot bt;
	bootstrap(s[0].t.pool[cli.op], s[0].t.npool[cli.op], s[1].t.pool[cli.op],
		  s[1].t.npool[cli.op], cli.resamples, cli.seed, &bt);
	if (!bt.ok) {
		printf("FAIL op=%s: cannot check, A has %zu samples and B has %zu\n",
		       op_name[cli.op], bt.na, bt.nb);
		rc = 1;
		goto out;
	}
	rc = bt.lo > cli.max_ratio;
	printf("%s op=%s median B/A=%.3f 95%% CI [%.3f, %.3f] lower bound %s "
	       "max-ratio %.3f (A %s median_ns=%.0f n=%zu, B %s median_ns=%.0f "
	       "n=%zu)\n", rc ? "REGRESSION" : "OK", op_name[cli.op], bt.ratio,
	       bt.lo, bt.hi, rc ? ">" : "<=", cli.max_ratio, s[0].label, bt.med_a,
	       bt.na, s[1].label, bt.med_b, bt.nb);
out:
	side_free(&s[0]);
	side_free(&s[1]);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Baselines                                                           */

struct bl_entry {
	uint32_t apic;
	uint8_t op;
	uint64_t median_ns;
	size_t line;
};

struct bl_header {
	char *key, *val;
};

struct baseline {
	const char *file;
	struct bl_entry *e;
	size_t n, cap;
	struct bl_header *h;
	size_t nh, caph;
	bool has_tol;
	double tol;
	int wbinvd; /* -1 if not given */
};

static void baseline_free(struct baseline *b)
{
	for (size_t i = 0; i < b->nh; i++) {
		free(b->h[i].key);
		free(b->h[i].val);
	}
	free(b->h);
	free(b->e);
	memset(b, 0, sizeof(*b));
}

static int cmp_bl(const void *x, const void *y)
{
	const struct bl_entry *a = x, *b = y;
	if (a->apic != b->apic)
		return a->apic < b->apic ? -1 : 1;
	return a->op < b->op ? -1 : a->op > b->op;
}

static const char *bl_header(const struct baseline *b, const char *key)
{
	for (size_t i = 0; i < b->nh; i++)
		if (!strcmp(b->h[i].key, key))
			return b->h[i].val;
	return NULL;
}

static int baseline_load(struct baseline *b, const char *path)
{
	static const char *const keys[] = { "apic", "op", "median_ns", NULL };
	char *buf, sb[256];
	size_t len;

	memset(b, 0, sizeof(*b));
	b->file = path;
	b->wbinvd = -1;
	if (read_all(path, &buf, &len) != 0)
		return 1;
	struct set dummy = { 0 };
	struct loader ld = { .file = path, .set = &dummy, .cur = -1 };
	size_t pos = 0, line = 0;
	while (pos < len && ld.errors < MAX_ERRORS_PER_FILE) {
		line++;
		const char *p = buf + pos;
		const char *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos;
		pos += n + (nl != NULL);
		while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		while (n && (*p == ' ' || *p == '\t')) {
			p++;
			n--;
		}
		if (n == 0 || *p == '#')
			continue;
		if (memchr(p, '\0', n)) {
			lerr(&ld, line, "NUL byte in baseline");
			continue;
		}
		if (n > 5 && !memcmp(p, "apic=", 5)) {
			static struct record rec;
			uint64_t apic, med;
			int op;
			if (!split_fields(&ld, line, "baseline entry", p, n, &rec) ||
			    !need_keys(&ld, line, &rec, keys) ||
			    !get_num(&ld, line, &rec, "apic", 0, UINT32_MAX, &apic) ||
			    !get_choice(&ld, line, &rec, "op", op_choices, &op) ||
			    !get_num(&ld, line, &rec, "median_ns", 0, NS_MAX, &med))
				continue;
			grow((void **)&b->e, &b->cap, b->n + 1, sizeof(*b->e));
			b->e[b->n++] = (struct bl_entry){ (uint32_t)apic, (uint8_t)op,
							  med, line };
			continue;
		}
		/* header: key=value, the value runs to the end of the line */
		const char *eq = memchr(p, '=', n);
		size_t kl = eq ? (size_t)(eq - p) : 0;
		bool good = kl > 0;
		for (size_t i = 0; good && i < kl; i++)
			good = key_char(p[i]);
		if (!good) {
			lerr(&ld, line, "expected key=value or apic=A op=... "
			     "median_ns=T, got '%s'", show(sb, sizeof(sb), p, n));
			continue;
		}
		char *key = strndup(p, kl), *val = strndup(eq + 1, n - kl - 1);
		if (!key || !val)
			oom();
		if (bl_header(b, key)) {
			lerr(&ld, line, "duplicate header '%s'", key);
			free(key);
			free(val);
			continue;
		}
		grow((void **)&b->h, &b->caph, b->nh + 1, sizeof(*b->h));
		b->h[b->nh++] = (struct bl_header){ key, val };
		if (!strcmp(key, "tolerance_pct")) {
			char *end;
			errno = 0;
			double d = strtod(val, &end);
			if (!*val || *end || errno || !isfinite(d) || d < 0 || d > 1000)
				lerr(&ld, line, "tolerance_pct=%s: expected a number in "
				     "0..1000", show(sb, sizeof(sb), val, strlen(val)));
			b->has_tol = true;
			b->tol = d;
		} else if (!strcmp(key, "wbinvd")) {
			b->wbinvd = !strcmp(val, "1") ? 1 : !strcmp(val, "0") ? 0 : -1;
		}
	}
	free(buf);
	if (b->n) /* b->e is still NULL for a baseline without entries */
		qsort(b->e, b->n, sizeof(*b->e), cmp_bl);
	for (size_t i = 1; i < b->n && ld.errors < MAX_ERRORS_PER_FILE; i++)
		if (!cmp_bl(&b->e[i - 1], &b->e[i]))
			lerr(&ld, b->e[i].line > b->e[i - 1].line ? b->e[i].line
								   : b->e[i - 1].line,
			     "duplicate entry apic=%" PRIu32 " op=%s", b->e[i].apic,
			     op_name[b->e[i].op]);
	return ld.errors ? 1 : 0;
}

static uint64_t round_ns(double v)
{
	return (uint64_t)llround(v);
}

static int cmd_baseline(void)
{
	if (!cli.nfiles[0])
		usage_error("baseline needs at least one LOG");
	struct side sd;
	if (side_load(&sd, cli.files[0], cli.nfiles[0], "logs", "the baseline")) {
		side_free(&sd);
		return 1;
	}
	double tol = (cli.given & O_TOL) ? cli.tolerance : 5.0;
	printf("# aplog baseline: median AP online/offline time per APIC ID, in "
	       "ns,\n# over %zu run%s from:", sd.usable, sd.usable == 1 ? "" : "s");
	for (size_t i = 0; i < cli.nfiles[0]; i++) {
		char b[256];
		const char *f = cli.files[0][i];
		printf(" %s", show(b, sizeof(b), f, strlen(f)));
	}
	printf("\n# check: aplog check --baseline THIS_FILE LOG...\n");
	print_flush_note(&sd, "# ");
	printf("mode=%s\n", cli.mode ? cli.mode : "unspecified");
	printf("tolerance_pct=%g\n", tol);
	if (cli.config)
		printf("config=%s\n", cli.config);
	if (sd.wbinvd >= 0)
		printf("wbinvd=%d\n", sd.wbinvd);
	if (sd.modelled)
		printf("flush_model=%s\n", sd.flush_model ? sd.flush_model : "mixed");
	printf("runs=%zu\n", sd.usable);
	for (size_t i = 0; i < sd.t.nrows; i++) {
		const struct cpu_row *r = &sd.t.rows[i];
		for (int op = 0; op < OP_COUNT; op++)
			if (r->n[op])
				printf("apic=%" PRIu32 " op=%s median_ns=%" PRIu64
				       " n=%zu\n", r->apic, op_name[op],
				       round_ns(median_sorted(r->v[op], r->n[op])),
				       r->n[op]);
	}
	side_free(&sd);
	return 0;
}

static int cmd_check_baseline(void)
{
	if (!cli.nfiles[0])
		usage_error("check --baseline needs at least one LOG");
	struct baseline bl;
	struct side sd;
	int rc = baseline_load(&bl, cli.baseline);
	int lrc = side_load(&sd, cli.files[0], cli.nfiles[0], "logs", "the check");
	if (rc || lrc) {
		rc = 1;
		goto out;
	}
	double tol = bl.tol;
	if (cli.given & O_TOL)
		tol = cli.tolerance;
	else if (!bl.has_tol) {
		fprintf(stderr, "aplog: %s has no tolerance_pct and no --tolerance "
			"was given\n", bl.file);
		rc = 1;
		goto out;
	}
	if (bl.wbinvd >= 0 && sd.wbinvd >= 0 && bl.wbinvd != sd.wbinvd)
		fprintf(stderr, "aplog: warning: baseline has wbinvd=%d but the logs "
			"have wbinvd=%d\n", bl.wbinvd, sd.wbinvd);
	print_flush_note(&sd, "");

	/* Measured medians in the same (apic, op) order as the entries. */
	size_t nm = 0, bad = 0, checked = 0;
	struct bl_entry *m = xrealloc_array(NULL, sd.t.nrows * OP_COUNT,
					    sizeof(*m));
	double *mv = xrealloc_array(NULL, sd.t.nrows * OP_COUNT, sizeof(*mv));
	for (size_t i = 0; i < sd.t.nrows; i++)
		for (int op = 0; op < OP_COUNT; op++)
			if (sd.t.rows[i].n[op]) {
				mv[nm] = median_sorted(sd.t.rows[i].v[op],
						       sd.t.rows[i].n[op]);
				m[nm++] = (struct bl_entry){ sd.t.rows[i].apic,
							     (uint8_t)op, 0, 0 };
			}
	double worst = 0;
	char worst_where[64] = "0.0%";
	size_t faster = 0;
	size_t i = 0, j = 0;
	while (i < bl.n || j < nm) {
		int c = i == bl.n ? 1 : j == nm ? -1 : cmp_bl(&bl.e[i], &m[j]);
		if (c < 0) {
			printf("MISSING apic=%" PRIu32 " op=%s: in the baseline "
			       "(median_ns=%" PRIu64 ") but no samples in the logs\n",
			       bl.e[i].apic, op_name[bl.e[i].op], bl.e[i].median_ns);
			bad++;
			i++;
			continue;
		}
		if (c > 0) {
			printf("EXTRA apic=%" PRIu32 " op=%s: median_ns=%" PRIu64
			       " in the logs but not in the baseline\n", m[j].apic,
			       op_name[m[j].op], round_ns(mv[j]));
			bad++;
			j++;
			continue;
		}
		const struct bl_entry *e = &bl.e[i];
		double base = (double)e->median_ns, got = mv[j];
		double hi = base * (1 + tol / 100), lo = base * (1 - tol / 100);
		double pct = base > 0 ? (got - base) / base * 100 : 0;
		char pcts[32] = "n/a";
		if (base > 0)
			snprintf(pcts, sizeof(pcts), "%+.1f%%", pct);
		checked++;
		if (got > hi || (got < lo && !(cli.given & O_FASTER))) {
			printf("%s apic=%" PRIu32 " op=%s median_ns=%" PRIu64
			       " baseline=%" PRIu64 " bound=%" PRIu64 " (%s)\n",
			       got > hi ? "REGRESSION" : "FASTER", e->apic,
			       op_name[e->op], round_ns(got), e->median_ns,
			       round_ns(got > hi ? hi : lo), pcts);
			bad++;
			faster += got <= hi;
		} else if (fabs(pct) > fabs(worst)) {
			worst = pct;
			snprintf(worst_where, sizeof(worst_where),
				 "apic=%" PRIu32 " op=%s %+.1f%%", e->apic,
				 op_name[e->op], pct);
		}
		i++;
		j++;
	}
	if (bad) {
		printf("FAIL: %zu problem%s against baseline %s (tolerance %g%%, "
		       "%zu AP/op medians compared)\n", bad, bad == 1 ? "" : "s",
		       bl.file, tol, checked);
		if (faster)
			printf("(FASTER: beyond the tolerance the other way; if that "
			       "is expected, regenerate the baseline, or pass "
			       "--allow-faster)\n");
		rc = 1;
	} else {
		printf("OK: %zu AP/op medians within %g%% of baseline %s "
		       "(largest deviation: %s)\n", checked, tol, bl.file,
		       worst_where);
	}
	free(m);
	free(mv);
out:
	baseline_free(&bl);
	side_free(&sd);
	return rc;
}

static int cmd_diff_baseline(void)
{
	if (cli.nfiles[0] != 2)
		usage_error("diff-baseline needs OLD NEW");
	struct baseline b[2];
	int e0 = baseline_load(&b[0], cli.files[0][0]);
	int e1 = baseline_load(&b[1], cli.files[0][1]);
	if (e0 || e1) {
		baseline_free(&b[0]);
		baseline_free(&b[1]);
		return 1;
	}
	/* headers: changed, added, removed (runs= is noise) */
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < b[side].nh; i++) {
			const struct bl_header *h = &b[side].h[i];
			const char *other = bl_header(&b[!side], h->key);
			if (!strcmp(h->key, "runs"))
				continue;
			if (!other)
				printf("%s: %s %s\n", h->key,
				       side ? "added:" : "removed, was:", h->val);
			else if (side == 0 && strcmp(other, h->val))
				printf("%s: %s -> %s\n", h->key, h->val, other);
		}
	size_t changed = 0, added = 0, removed = 0, same = 0, i = 0, j = 0;
	while (i < b[0].n || j < b[1].n) {
		int c = i == b[0].n ? 1 : j == b[1].n ? -1 : cmp_bl(&b[0].e[i],
								  &b[1].e[j]);
		if (c < 0) {
			printf("apic=%" PRIu32 " op=%s removed (was median_ns=%" PRIu64
			       ")\n", b[0].e[i].apic, op_name[b[0].e[i].op],
			       b[0].e[i].median_ns);
			removed++;
			i++;
		} else if (c > 0) {
			printf("apic=%" PRIu32 " op=%s added (median_ns=%" PRIu64 ")\n",
			       b[1].e[j].apic, op_name[b[1].e[j].op],
			       b[1].e[j].median_ns);
			added++;
			j++;
		} else {
			uint64_t o = b[0].e[i].median_ns, n = b[1].e[j].median_ns;
			if (o != n) {
				printf("apic=%" PRIu32 " op=%s median_ns %" PRIu64 " -> %"
				       PRIu64, b[0].e[i].apic, op_name[b[0].e[i].op], o, n);
				if (o)
					printf(" (%+.1f%%)", ((double)n - (double)o) /
							     (double)o * 100);
				putchar('\n');
				changed++;
			} else {
				same++;
			}
			i++;
			j++;
		}
	}
	printf("diff-baseline: %zu changed, %zu added, %zu removed, %zu "
	       "unchanged\n", changed, added, removed, same);
	baseline_free(&b[0]);
	baseline_free(&b[1]);
	return 0;
}

/* ------------------------------------------------------------------ */
/* csv                                                                 */

static void csv_field(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static int cmd_csv(void)
{
	if (!cli.nfiles[0])
		usage_error("csv needs at least one LOG");
	struct set set = { 0 };
	int errors = 0;
	for (size_t i = 0; i < cli.nfiles[0]; i++)
		errors += load_file(&set, cli.files[0][i], cli.given & O_TRUNC);
	if (errors) {
		set_free(&set);
		return 1;
	}
	printf("file,run,wbinvd,cpu,apic,cycle,op,ns,ticks,flush_model\n");
	for (size_t i = 0; i < set.n; i++) {
		const struct run *r = &set.runs[i];
		if (run_use(r) == USE_NONE)
			fprintf(stderr, "%s:%zu: warning: run %u ended with "
				"status=fail; its samples are in the CSV\n", r->file,
				r->boot_line, r->index);
		for (size_t j = 0; j < r->ns; j++) {
			const struct sample *s = &r->s[j];
			csv_field(r->file);
			printf(",%u,%u,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%s,%" PRIu64
			       ",%" PRIu64 ",", r->index, r->wbinvd, s->cpu, s->apic,
			       s->cycle, op_name[s->op], s->ns, s->ticks);
			csv_field(r->flush_model);
			putchar('\n');
		}
	}
	set_free(&set);
	return 0;
}

/* ------------------------------------------------------------------ */
/* plot                                                                */

/* Full path of an executable gnuplot on PATH, or NULL. */
static char *find_on_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	while (*path) {
		size_t n = strcspn(path, ":");
		size_t need = (n ? n : 1) + strlen(prog) + 2;
		char *cand = xcalloc(need, 1);
		snprintf(cand, need, "%.*s/%s", (int)(n ? n : 1), n ? path : ".",
			 prog);
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return cand;
		free(cand);
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}

/* Feed the script to gnuplot's stdin; no shell is involved, so file names
 * reach gnuplot only inside its own quoted strings. */
static int run_gnuplot(const char *gp, const struct sbuf *script)
{
	int fd[2];
	if (pipe(fd) != 0) {
		perror("aplog: pipe");
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		perror("aplog: fork");
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		execl(gp, "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	size_t off = 0;
	while (off < script->len) {
		ssize_t w = write(fd[1], script->s + off, script->len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(fd[1]);
	signal(SIGPIPE, old);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int cmd_plot(void)
{
	if (!cli.out)
		usage_error("plot needs --out FILE.png");
	if (!cli.nfiles[0] || (cli.sep && !cli.nfiles[1]))
		usage_error("plot needs A.log... [-- B.log...]");
	if (has_newline(cli.out))
		usage_error("--out: no newlines please");

	int nsides = cli.sep ? 2 : 1, rc = 0;
	struct side s[2];
	memset(s, 0, sizeof(s));
	for (int i = 0; i < nsides; i++)
		if (side_load(&s[i], cli.files[i], cli.nfiles[i],
			      i ? "set B" : "set A", "the plot"))
			rc = 1;
	char *dat = NULL, *gp = NULL;
	struct sbuf sc = { 0 };
	if (rc)
		goto out;
	if (nsides == 2)
		side_labels(s);
	else if (cli.label[0])
		s[0].label = cli.label[0];
	else if (s[0].wbinvd >= 0) {
		snprintf(s[0].label_buf, sizeof(s[0].label_buf), "WBINVD=%d",
			 s[0].wbinvd);
		s[0].label = s[0].label_buf;
	} else {
		s[0].label = "A";
	}

	/* data file next to the picture: FILE.png -> FILE.dat */
	size_t ol = strlen(cli.out);
	dat = xcalloc(ol + 5, 1);
	memcpy(dat, cli.out, ol);
	if (ol > 4 && !strcmp(cli.out + ol - 4, ".png"))
		dat[ol - 4] = '\0';
	strcat(dat, ".dat");
	for (int i = 0; i < nsides; i++)
		for (size_t k = 0; k < cli.nfiles[i]; k++)
			if (!strcmp(cli.files[i][k], dat) ||
			    !strcmp(cli.files[i][k], cli.out)) {
				fprintf(stderr, "aplog: %s is an input log; pick another "
					"--out\n", cli.files[i][k]);
				rc = 1;
				goto out;
			}
	FILE *f = fopen(dat, "w");
	if (!f) {
		fprintf(stderr, "aplog: %s: %s\n", dat, strerror(errno));
		rc = 1;
		goto out;
	}
	fprintf(f, "# aplog plot data: median time per APIC ID in microseconds\n"
		   "# one block per set, '?' = no samples\n");
	for (int i = 0; i < nsides; i++) {
		char b[128];
		fprintf(f, "%s# set %c: %s\n# apic online_us offline_us\n",
			i ? "\n\n" : "", 'A' + i,
			show(b, sizeof(b), s[i].label, strlen(s[i].label)));
		for (size_t k = 0; k < s[i].t.nrows; k++) {
			const struct cpu_row *r = &s[i].t.rows[k];
			fprintf(f, "%" PRIu32, r->apic);
			for (int op = 0; op < OP_COUNT; op++) {
				if (r->n[op])
					fprintf(f, " %.3f",
						median_sorted(r->v[op], r->n[op]) / 1000);
				else
					fprintf(f, " ?");
			}
			fputc('\n', f);
		}
		if (!s[i].t.nrows) /* keep the block: gnuplot needs a point */
			fprintf(f, "? ? ?\n");
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "aplog: %s: write error\n", dat);
		rc = 1;
		goto out;
	}
	printf("data: %s\n", dat);
	for (int i = 0; i < nsides; i++)
		print_flush_note(&s[i], i ? "B: " : "A: ");

	/* gnuplot rejects a plot without points: draw only what has data */
	bool has[2][OP_COUNT] = { { false } };
	int panels = 0;
	for (int op = 0; op < OP_COUNT; op++) {
		for (int i = 0; i < nsides; i++)
			for (size_t k = 0; k < s[i].t.nrows; k++)
				has[i][op] |= s[i].t.rows[k].n[op] > 0;
		panels += has[0][op] || has[1][op];
	}
	if (!panels) {
		printf("no AP samples: nothing to plot\n");
		goto out;
	}
	gp = find_on_path("gnuplot");
	if (!gp) {
		printf("gnuplot is not on PATH: no plot written (the data file is "
		       "above)\n");
		goto out;
	}
	sb_printf(&sc, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
		       "{ set terminal pngcairo size 1200,800 } "
		       "else { set terminal png size 1200,800 }\n"
		       "set termoption noenhanced\nset output ");
	sb_gpquote(&sc, cli.out);
	sb_printf(&sc, "\nset datafile missing '?'\nset grid\nset key top left\n"
		       "set xlabel 'APIC ID'\nset ylabel 'median time (us)'\n"
		       "set yrange [0:*]\nset format x '%%.0f'\n"
		       "set multiplot layout %d,1\n", panels);
	for (int op = 0; op < OP_COUNT; op++) {
		if (!has[0][op] && !has[1][op])
			continue;
		sb_printf(&sc, "set title 'AP %s, median per CPU%s'\nplot ",
			  op_name[op], s[0].modelled || s[1].modelled ?
			  " (MODELLED flush cost, QEMU plugin: not hardware)" : "");
		for (int i = 0, first = 1; i < nsides; i++) {
			if (!has[i][op])
				continue;
			sb_printf(&sc, "%s", first ? "" : ", ");
			first = 0;
			sb_gpquote(&sc, dat);
			sb_printf(&sc, " index %d using 1:%d with linespoints title ",
				  i, 2 + op);
			sb_gpquote(&sc, s[i].label);
		}
		sb_printf(&sc, "\n");
	}
	sb_printf(&sc, "unset multiplot\nset output\n");
	int st = run_gnuplot(gp, &sc);
	struct stat pst;
	if (st == 127) {
		printf("gnuplot could not be started: no plot written\n");
	} else if (st != 0 || stat(cli.out, &pst) != 0 || pst.st_size == 0) {
		fprintf(stderr, "aplog: gnuplot failed (status %d); no plot in %s\n",
			st, cli.out);
		rc = 1;
	} else {
		printf("plot: %s\n", cli.out);
	}
out:
	free(sc.s);
	free(gp);
	free(dat);
	for (int i = 0; i < 2; i++)
		side_free(&s[i]);
	return rc;
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		unsigned opts;
		bool two_sets;
	} cmds[] = {
		{ "stats", O_TRUNC, false },
		{ "compare", O_TRUNC | O_LABELS | O_BOOT, true },
		{ "check", O_TRUNC | O_LABELS | O_BOOT | O_BASELINE | O_TOL |
			   O_SLOWER | O_MAXRATIO | O_OP | O_FASTER, true },
		{ "baseline", O_TRUNC | O_TOL | O_MODE | O_CONFIG, false },
		{ "diff-baseline", 0, false },
		{ "csv", O_TRUNC, false },
		{ "plot", O_TRUNC | O_LABELS | O_OUT, true },
	};
	if (argc < 2)
		usage_error("no command given");
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	int c = -1;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			c = (int)i;
	if (c < 0)
		usage_error("unknown command '%s'", argv[1]);
	cli.cmd = cmds[c].name;
	parse_cli(argc, argv, cmds[c].opts, cmds[c].two_sets);

	int rc;
	if (!strcmp(cli.cmd, "stats")) {
		rc = cmd_stats();
	} else if (!strcmp(cli.cmd, "compare")) {
		rc = cmd_compare();
	} else if (!strcmp(cli.cmd, "check")) {
		bool bl = cli.given & O_BASELINE, sl = cli.given & O_SLOWER;
		if (bl == sl)
			usage_error("check needs exactly one of --baseline FILE and "
				    "--slower-than");
		if (bl && (cli.sep || (cli.given & (O_MAXRATIO | O_OP | O_BOOT |
						     O_LABELS))))
			usage_error("check --baseline takes LOG... and --tolerance, "
				    "--allow-faster, --allow-truncated");
		if (sl && (cli.given & (O_TOL | O_FASTER)))
			usage_error("--tolerance/--allow-faster go with --baseline");
		rc = bl ? cmd_check_baseline() : cmd_check_slower();
	} else if (!strcmp(cli.cmd, "baseline")) {
		rc = cmd_baseline();
	} else if (!strcmp(cli.cmd, "diff-baseline")) {
		rc = cmd_diff_baseline();
	} else if (!strcmp(cli.cmd, "csv")) {
		rc = cmd_csv();
	} else {
		rc = cmd_plot();
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "aplog: error writing standard output\n");
		rc = 1;
	}
	free(cli.files[0]);
	free(cli.files[1]);
	return rc;
}
