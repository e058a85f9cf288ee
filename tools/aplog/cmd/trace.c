/* SPDX-License-Identifier: MIT */
/* trace: the runs of some logs as one timeline, in Chrome's trace-event
 * JSON (the "JSON Object Format": traceEvents with ph X duration events,
 * ph i instant events, ph M names), which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open.
 *
 * One process per run, one track (thread) per CPU:
 *   apstart: each AP start as a duration event on the AP's track ("bring-up"
 *     at boot, "online #k" in the cycles), split into its phases (@phase:
 *     waiting for INIT/SIPI, real, protected, long, c_entry, tables, lapic,
 *     online, seen by the BSP), which add up to it; each offline ("offline
 *     #k", to settled_ns where the kernel records it); on the BSP's track
 *     the start and offline requests (serial) or the parallel rounds
 *     (@round), with its INIT, INIT de-assert, SIPI and second SIPI as
 *     instant events; NMIs as instants (a sample marked nmi=1 at the start
 *     of its window, an @warn what=nmi where it was logged).
 *   Linux (linux-hotplug --trace): each sysfs write on a "sysfs writes"
 *     track, each cpuhp state callback on the track of the CPU that ran it.
 *
 * apstart's records carry durations, not times: its operations are laid
 * out back to back in log order (the BSP's bookkeeping between them is
 * not recorded), the APs of a parallel round from the round's start.
 * Linux's writes carry at_ns (their start since the first write), so
 * their gaps are real. Times are ns, written as us with 3 decimals. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/read/cpuhp.h"
#include "tools/aplog/read/records.h"
#include "tools/aplog/util.h"

#define WRITES_TRACK 1000000u /* Linux: the sysfs writes' track */

struct ev {
	uint32_t pid, tid;
	char ph;               /* 'X' or 'i' */
	const char *cat;       /* "apstart" or "linux" */
	uint64_t ts, dur;
	char name[80];
	char args[160];        /* JSON members without braces */
};

static struct ev *evs;
static size_t nev, evcap;

static struct ev *new_ev(uint32_t pid, uint32_t tid, char ph, uint64_t ts, uint64_t dur)
{
	grow((void **)&evs, &evcap, nev + 1, sizeof(*evs));
	struct ev *e = &evs[nev++];
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->tid = tid;
	e->ph = ph;
	e->cat = "apstart";
	e->ts = ts;
	e->dur = dur;
	return e;
}

static void evname(struct ev *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void evname(struct ev *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->name, sizeof(e->name), fmt, ap);
	va_end(ap);
}

static void evargs(struct ev *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void evargs(struct ev *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->args, sizeof(e->args), fmt, ap);
	va_end(ap);
}

/* ---- what one apstart run recorded, in log order -------------------- */

enum item_kind { IT_CPU_UP, IT_BRINGUP, IT_ROUND, IT_SAMPLE, IT_NMI };

struct item {
	enum item_kind kind;
	uint32_t cpu, apic, cycle, aps;
	uint8_t op;
	uint64_t ns, settled;
	bool has_settled, nmi, parallel;
};

struct phases {
	uint32_t cpu, cycle;
	uint64_t ns[PHASE_COUNT];
	bool has[PHASE_COUNT];
};

struct trun {
	struct item *it;
	size_t nit, itcap;
	struct phases *ph;
	size_t nph, phcap;
	uint32_t cpus;
	char kernel[STR_MAX], mode[STR_MAX];
};

static struct item *add_item(struct trun *r, enum item_kind k)
{
	grow((void **)&r->it, &r->itcap, r->nit + 1, sizeof(*r->it));
	struct item *i = &r->it[r->nit++];
	memset(i, 0, sizeof(*i));
	i->kind = k;
	return i;
}

static const struct phases *find_phases(const struct trun *r, uint32_t cpu, uint32_t cycle)
{
	for (size_t i = 0; i < r->nph; i++)
		if (r->ph[i].cpu == cpu && r->ph[i].cycle == cycle)
			return &r->ph[i];
	return NULL;
}

static bool num(const struct record *rec, int key, uint64_t *out)
{
	return rec_num(rec, key, NS_MAX, out);
}

/* The log was checked by load_file(): records here are well formed. */
static void scan_line(struct trun *r, const struct record *rec)
{
	uint64_t v;
	if (rec->id == RW_cpu) {
		uint64_t cpu, apic, boot;
		if (rec_is(rec, RK_cpu_state, "online") && num(rec, RK_cpu_cpu, &cpu) &&
		    num(rec, RK_cpu_apic, &apic) && num(rec, RK_cpu_boot_ns, &boot)) {
			struct item *i = add_item(r, IT_CPU_UP);
			i->cpu = (uint32_t)cpu;
			i->apic = (uint32_t)apic;
			i->ns = boot;
		}
	} else if (rec->id == RW_bringup) {
		struct item *i = add_item(r, IT_BRINGUP);
		rec_copy(rec, RK_bringup_mode, r->mode, sizeof r->mode);
		i->parallel = strcmp(r->mode, "serial") != 0;
		if (num(rec, RK_bringup_total_ns, &v))
			i->ns = v;
	} else if (rec->id == RW_round) {
		struct item *i = add_item(r, IT_ROUND);
		i->op = rec_is(rec, RK_round_op, "online") ? OP_ONLINE : OP_OFFLINE;
		if (num(rec, RK_round_cycle, &v))
			i->cycle = (uint32_t)v;
		if (num(rec, RK_round_aps, &v))
			i->aps = (uint32_t)v;
		if (num(rec, RK_round_ns, &v))
			i->ns = v;
	} else if (rec->id == RW_sample) {
		struct item *i = add_item(r, IT_SAMPLE);
		i->op = rec_is(rec, RK_sample_op, "online") ? OP_ONLINE : OP_OFFLINE;
		if (num(rec, RK_sample_cpu, &v))
			i->cpu = (uint32_t)v;
		if (num(rec, RK_sample_apic, &v))
			i->apic = (uint32_t)v;
		if (num(rec, RK_sample_cycle, &v))
			i->cycle = (uint32_t)v;
		if (num(rec, RK_sample_ns, &v))
			i->ns = v;
		i->has_settled = num(rec, RK_sample_settled_ns, &i->settled);
		i->nmi = rec_is(rec, RK_sample_nmi, "1");
	} else if (rec->id == RW_phase) {
		uint64_t cpu, cycle, ns;
		const struct field *f = rec_get(rec, RK_phase_phase);
		if (!f || !num(rec, RK_phase_cpu, &cpu) || !num(rec, RK_phase_cycle, &cycle))
			return;
		int p = -1;
		for (int k = 0; k < PHASE_COUNT; k++)
			if (strlen(phase_names[k]) == f->vl && !memcmp(phase_names[k], f->v, f->vl))
				p = k;
		if (p < 0)
			return;
		struct phases *ph = (struct phases *)find_phases(r, (uint32_t)cpu, (uint32_t)cycle);
		if (!ph) {
			grow((void **)&r->ph, &r->phcap, r->nph + 1, sizeof(*r->ph));
			ph = &r->ph[r->nph++];
			memset(ph, 0, sizeof(*ph));
			ph->cpu = (uint32_t)cpu;
			ph->cycle = (uint32_t)cycle;
		}
		if (num(rec, RK_phase_ns, &ns)) { /* "na" stays absent */
			ph->ns[p] = ns;
			ph->has[p] = true;
		}
	} else if (rec->id == RW_warn && rec_is(rec, RK_warn_what, "nmi")) {
		struct item *i = add_item(r, IT_NMI);
		if (num(rec, RK_warn_apic, &v))
			i->apic = (uint32_t)v;
	} else if (rec->id == RW_boot) {
		rec_copy(rec, RK_boot_kernel, r->kernel, sizeof r->kernel);
		if (num(rec, RK_boot_cpus, &v))
			r->cpus = (uint32_t)v;
	}
}

/* Runs of one file, counted by @boot as load_file() counts them. */
static int scan_file(const char *path, struct trun *runs, size_t first, size_t n)
{
	char *buf;
	size_t len, pos = 0, line = 0;
	if (read_all(path, &buf, &len) != 0)
		return 1;
	struct msgs m = { .file = path };
	static struct record rec;
	long cur = -1;
	while (pos < len) {
		size_t ln;
		const char *s = next_line(buf, len, &pos, &ln);
		line++;
		if (!ln || s[0] != '@')
			continue;
		size_t w = 1;
		while (w < ln && s[w] != ' ' && s[w] != '\t')
			w++;
		int id = record_find(s, w);
		if (id != RW_boot && id != RW_cpu && id != RW_bringup && id != RW_round &&
		    id != RW_sample && id != RW_phase && id != RW_warn)
			continue;
		if (id == RW_boot)
			cur++;
		if (cur < 0 || (size_t)cur >= n)
			continue;
		if (record_parse(&m, line, s, ln, &rec))
			scan_line(&runs[first + (size_t)cur], &rec);
	}
	free(buf);
	return m.errors;
}

/* ---- layout ---------------------------------------------------------- */

/* The chain of one start, as the AP's children of its start event. */
static const char *const child_name[PHASE_CHAIN] = { "waiting for INIT/SIPI", NULL, NULL,
	"real mode", "protected mode", "long mode", "C entry", "GDT/IDT", "local APIC",
	"online mark", "seen by the BSP" };

static void emit_start(uint32_t pid, const struct trun *r, const struct item *s, uint64_t t0,
		       bool bsp_event)
{
	struct ev *e = new_ev(pid, s->cpu, 'X', t0, s->ns);
	if (s->cycle)
		evname(e, "online #%u", s->cycle);
	else
		evname(e, "bring-up");
	evargs(e, "\"cpu\":%u,\"apic\":%u,\"cycle\":%u,\"ns\":%" PRIu64, s->cpu, s->apic,
	       s->cycle, s->ns);
	if (bsp_event) {
		e = new_ev(pid, 0, 'X', t0, s->ns);
		evname(e, "%s cpu%u", s->cycle ? "start" : "bring up", s->cpu);
		evargs(e, "\"cpu\":%u,\"apic\":%u,\"cycle\":%u,\"ns\":%" PRIu64, s->cpu, s->apic,
		       s->cycle, s->ns);
	}
	if (s->nmi) {
		e = new_ev(pid, s->cpu, 'i', t0, 0);
		evname(e, "NMI in this window");
	}
	const struct phases *ph = find_phases(r, s->cpu, s->cycle);
	if (!ph)
		return;
	/* BSP's steps as instants, the AP's as children (the first three, the
	 * BSP's, are the AP's wait). */
	static const char *const bsp_step[3] = { "INIT", "INIT de-assert", "SIPI" };
	uint64_t t = t0, end = t0 + s->ns;
	for (int p = 0; p < 3 && ph->has[p]; p++) {
		t += ph->ns[p];
		e = new_ev(pid, 0, 'i', t, 0);
		evname(e, "%s -> cpu%u", bsp_step[p], s->cpu);
		if (p == 2 && ph->has[PHASE_CHAIN]) {
			e = new_ev(pid, 0, 'i', t + ph->ns[PHASE_CHAIN], 0);
			evname(e, "SIPI #2 -> cpu%u", s->cpu);
		}
	}
	t = t0;
	for (int p = 0; p < PHASE_CHAIN; p++) {
		uint64_t d = 0;
		if (p == 0) {
			if (!ph->has[0] || !ph->has[1] || !ph->has[2])
				return;
			d = ph->ns[0] + ph->ns[1] + ph->ns[2];
		} else if (p < 3) {
			continue;
		} else if (!ph->has[p]) {
			return; /* na: the rest of the chain has no place */
		} else {
			d = ph->ns[p];
		}
		if (t + d > end) /* rounding: each phase is converted apart */
			d = end > t ? end - t : 0;
		e = new_ev(pid, s->cpu, 'X', t, d);
		evname(e, "%s", child_name[p]);
		evargs(e, "\"phase\":\"%s\",\"ns\":%" PRIu64, p ? phase_names[p] : "init_assert+init_deassert+sipi", d);
		t += d;
	}
}

static void emit_offline(uint32_t pid, const struct item *s, uint64_t t0, bool bsp_event)
{
	uint64_t d = s->has_settled ? s->settled : s->ns;
	struct ev *e = new_ev(pid, s->cpu, 'X', t0, d);
	evname(e, "offline #%u", s->cycle);
	evargs(e, "\"cpu\":%u,\"apic\":%u,\"cycle\":%u,\"ns\":%" PRIu64 ",\"figure\":\"%s\"",
	       s->cpu, s->apic, s->cycle, d, s->has_settled ? "settled_ns" : "ns");
	if (bsp_event) {
		e = new_ev(pid, 0, 'X', t0, s->ns);
		evname(e, "offline cpu%u", s->cpu);
		evargs(e, "\"cpu\":%u,\"cycle\":%u,\"ns\":%" PRIu64, s->cpu, s->cycle, s->ns);
	}
	if (s->nmi) {
		e = new_ev(pid, s->cpu, 'i', t0, 0);
		evname(e, "NMI in this window");
	}
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void layout_apstart(uint32_t pid, const struct trun *r)
{
	uint64_t cursor = 0;
	bool parallel_boot = false;
	uint64_t boot_total = 0;
	for (size_t i = 0; i < r->nit; i++)
		if (r->it[i].kind == IT_BRINGUP) {
			parallel_boot = r->it[i].parallel;
			boot_total = r->it[i].ns;
		}
	if (parallel_boot) {
		struct ev *e = new_ev(pid, 0, 'X', 0, boot_total);
		evname(e, "bring-up (%s)", r->mode);
		evargs(e, "\"ns\":%" PRIu64, boot_total);
	}
	bool in_round = false;
	uint64_t rstart = 0, rext = 0;
	uint32_t rcycle = 0;
	uint8_t rop = 0;
	for (size_t i = 0; i < r->nit; i++) {
		const struct item *it = &r->it[i];
		switch (it->kind) {
		case IT_CPU_UP:
			emit_start(pid, r, it, parallel_boot ? 0 : cursor, !parallel_boot);
			cursor = parallel_boot ? max64(cursor, it->ns) : cursor + it->ns;
			break;
		case IT_BRINGUP:
			cursor = max64(cursor, boot_total);
			break;
		case IT_ROUND: {
			if (in_round)
				cursor = rstart + rext;
			in_round = true;
			rstart = cursor;
			rext = it->ns;
			rcycle = it->cycle;
			rop = it->op;
			struct ev *e = new_ev(pid, 0, 'X', rstart, it->ns);
			evname(e, "round %u %s (%u APs)", it->cycle, op_name[it->op], it->aps);
			evargs(e, "\"cycle\":%u,\"aps\":%u,\"ns\":%" PRIu64, it->cycle, it->aps, it->ns);
			break;
		}
		case IT_SAMPLE: {
			bool round = in_round && it->cycle == rcycle && it->op == rop;
			if (in_round && !round) {
				cursor = rstart + rext;
				in_round = false;
			}
			uint64_t t0 = round ? rstart : cursor;
			uint64_t ext = it->op == OP_OFFLINE && it->has_settled ?
				       max64(it->ns, it->settled) : it->ns;
			if (it->op == OP_ONLINE)
				emit_start(pid, r, it, t0, !round);
			else
				emit_offline(pid, it, t0, !round);
			if (round)
				rext = max64(rext, ext);
			else
				cursor += ext;
			break;
		}
		case IT_NMI: {
			struct ev *e = new_ev(pid, 0, 'i', in_round ? rstart : cursor, 0);
			evname(e, "NMI (@warn, apic %u)", it->apic);
			break;
		}
		}
	}
}

static void layout_linux(uint32_t pid, const struct cpuhp_run *cr)
{
	uint64_t cursor = 0;
	for (size_t i = 0; i < cr->nw; i++) {
		const struct cpuhp_write *w = &cr->w[i];
		uint64_t t0 = w->has_at ? w->at_ns : cursor;
		struct ev *e = new_ev(pid, WRITES_TRACK, 'X', t0, w->ns);
		e->cat = "linux";
		evname(e, "cpu%u %s #%u", w->cpu, op_name[w->op], w->cycle);
		evargs(e, "\"cpu\":%u,\"cycle\":%u,\"ns\":%" PRIu64 ",\"callbacks\":%zu,\"lost\":%" PRIu64,
		       w->cpu, w->cycle, w->ns, w->ncb, w->lost);
		for (size_t j = 0; j < w->ncb; j++) {
			const struct cpuhp_cb *c = &w->cb[j];
			e = new_ev(pid, c->on, 'X', t0 + c->start_ns, c->ns);
			e->cat = "linux";
			evname(e, "%u %s", c->state, c->name);
			evargs(e, "\"state\":%u,\"fn\":\"%s\",\"cpu\":%u,\"op\":\"%s\",\"cycle\":%u,"
			       "\"multi\":%d,\"ns\":%" PRIu64, c->state, c->fn, w->cpu, op_name[w->op],
			       w->cycle, c->multi, c->ns);
		}
		cursor = max64(cursor, t0 + w->ns);
	}
}

/* ---- output ------------------------------------------------------------ */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur) /* the parent first */
		return x->dur > y->dur ? -1 : 1;
	return (x->ph == 'X') > (y->ph == 'X') ? -1 : (x->ph == 'X') < (y->ph == 'X');
}

static void write_json(FILE *f, const struct cpuhp_logs *L, const struct trun *tr,
		       const uint32_t *pid_of)
{
	qsort(evs, nev, sizeof(*evs), cmp_ev);
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"aplog trace\","
		"\"layout\":\"apstart: operations back to back in log order (the time between "
		"them is not recorded), a parallel round's APs from its start; Linux: writes "
		"at their at_ns\"},\n\"traceEvents\":[\n");
	bool first = true;
	for (size_t i = 0; i < L->set.n; i++) {
		const struct run *r = &L->set.runs[i];
		char name[256];
		bool linux_run = L->run[i].nw > 0;
		snprintf(name, sizeof(name), "%s run %u of %s%s%s", linux_run ? "Linux" :
			 tr[i].kernel[0] ? tr[i].kernel : "run", r->index, r->file,
			 tr[i].mode[0] ? ", bring-up " : "", tr[i].mode);
		fprintf(f, "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":0,"
			"\"args\":{\"name\":", first ? "" : ",\n", pid_of[i]);
		json_str(f, name);
		fprintf(f, "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,"
			"\"tid\":0,\"args\":{\"sort_index\":%u}}", pid_of[i], pid_of[i]);
		first = false;
	}
	/* Track names: every (pid, tid) used. */
	uint32_t lp = 0, lt = 0;
	bool any = false;
	for (size_t i = 0; i < nev; i++) {
		const struct ev *e = &evs[i];
		if (any && e->pid == lp && e->tid == lt)
			continue;
		any = true;
		lp = e->pid;
		lt = e->tid;
		char name[64];
		if (e->tid == WRITES_TRACK)
			snprintf(name, sizeof(name), "sysfs writes (linux-hotplug)");
		else if (e->tid == 0)
			snprintf(name, sizeof(name), "cpu0 (BSP)");
		else
			snprintf(name, sizeof(name), "cpu%u", e->tid);
		fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
			"\"args\":{\"name\":\"%s\"}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\","
			"\"pid\":%u,\"tid\":%u,\"args\":{\"sort_index\":%u}}", e->pid, e->tid, name,
			e->pid, e->tid, e->tid);
	}
	for (size_t i = 0; i < nev; i++) {
		const struct ev *e = &evs[i];
		fprintf(f, ",\n{\"ph\":\"%c\",\"pid\":%u,\"tid\":%u,\"ts\":", e->ph, e->pid, e->tid);
		us(f, e->ts);
		if (e->ph == 'X') {
			fprintf(f, ",\"dur\":");
			us(f, e->dur);
		} else {
			fprintf(f, ",\"s\":\"t\"");
		}
		fprintf(f, ",\"name\":");
		json_str(f, e->name);
		fprintf(f, ",\"cat\":\"%s\"", e->cat);
		fprintf(f, ",\"args\":{%s}}", e->args);
	}
	fprintf(f, "\n]}\n");
}

int cmd_trace(void)
{
	if (!cli.nfiles[0])
		usage_error("trace needs at least one LOG");
	static struct cpuhp_logs L;
	int rc = cpuhp_load(&L, (const char *const *)cli.files[0], cli.nfiles[0],
			    cli.given & O_TRUNC) ? 1 : 0;
	struct trun *tr = NULL;
	uint32_t *pid_of = NULL;
	if (!rc) {
		tr = xcalloc(L.set.n ? L.set.n : 1, sizeof(*tr));
		pid_of = xcalloc(L.set.n ? L.set.n : 1, sizeof(*pid_of));
		/* The runs of each file are contiguous in the set, in order. */
		size_t first = 0;
		for (size_t f = 0; f < cli.nfiles[0] && !rc; f++) {
			size_t n = 0;
			while (first + n < L.set.n && L.set.runs[first + n].file == cli.files[0][f])
				n++;
			rc = scan_file(cli.files[0][f], tr, first, n) ? 1 : 0;
			first += n;
		}
	}
	size_t used = 0;
	for (size_t i = 0; !rc && i < L.set.n; i++) {
		const struct run *r = &L.set.runs[i];
		if (run_use(r) == USE_NONE)
			fprintf(stderr, "aplog: %s:%zu: warning: run %u ended with status=fail; it is in "
				"the trace\n", r->file, r->boot_line, r->index);
		pid_of[i] = (uint32_t)(i + 1);
		if (L.run[i].nw)
			layout_linux(pid_of[i], &L.run[i]);
		else
			layout_apstart(pid_of[i], &tr[i]);
		used++;
	}
	if (!rc && !nev) {
		fprintf(stderr, "aplog: trace: the logs hold no start, offline or cpuhp record\n");
		rc = 1;
	}
	if (!rc) {
		FILE *f = stdout;
		if (cli.out && !(f = fopen(cli.out, "w"))) {
			fprintf(stderr, "aplog: cannot write %s\n", cli.out);
			rc = 1;
		} else {
			write_json(f, &L, tr, pid_of);
			if (f != stdout && fclose(f) != 0) {
				fprintf(stderr, "aplog: error writing %s\n", cli.out);
				rc = 1;
			}
			if (!rc && cli.out)
				fprintf(stderr, "aplog: %zu events of %zu run(s) in %s\n", nev, used,
					cli.out);
		}
	}
	for (size_t i = 0; tr && i < L.set.n; i++) {
		free(tr[i].it);
		free(tr[i].ph);
	}
	free(tr);
	free(pid_of);
	free(evs);
	evs = NULL;
	nev = evcap = 0;
	cpuhp_free(&L);
	return rc;
}
