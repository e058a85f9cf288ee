/* SPDX-License-Identifier: MIT */
/* cpuhp: where Linux's online and offline time goes, state by state, from
 * the @cpuhp records of linux-hotplug --trace (read/cpuhp.h).
 *
 *   aplog cpuhp LOG...               the per-state table of each operation
 *   aplog cpuhp A.log... -- B.log... the split of the difference, A -> B
 *
 * Each run is one observation (as everywhere in aplog's comparisons): a
 * state's figure is, per run, its time summed over the run's writes of
 * that operation divided by their number (mean per write), and the table
 * shows the mean of those over the runs. Runs that failed are left out;
 * writes with lost events are counted and said. With two sets, each row's
 * change gets its run-level verdict (tools/aplog/stats/verdict.c, Welch's interval over
 * the per-run values), as aplog compare's rows do.
 *
 * The state that holds the trampoline (cpuhp_is_kick()) runs on the
 * control CPU; the AP's own online states run inside its window on the
 * AP, so its row is split into the part spent in AP-side states and its
 * own part: the INIT/SIPI kick, the trampoline, start_secondary() and the
 * untraced STARTING states (tracepoints do not fire on a CPU that is not
 * yet online), and the waits for the AP. That own part is what apstart
 * measures. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/stats/verdict.h"

#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/read/cpuhp.h"
#include "tools/aplog/stats/sets.h"
#include "tools/aplog/util.h"

/* One value per run (ns), for the verdicts; runs where a state did not
 * run hold 0 (it took no time there). */
struct series {
	uint64_t *v;
	size_t n, cap;
};

static void series_set(struct series *s, size_t run, double ms)
{
	if (run >= s->n) {
		grow((void **)&s->v, &s->cap, run + 1, sizeof(*s->v));
		memset(s->v + s->n, 0, (run + 1 - s->n) * sizeof(*s->v));
		s->n = run + 1;
	}
	s->v[run] = ms > 0 ? (uint64_t)(ms * 1e6 + 0.5) : 0;
}

/* The series padded to runs values (a state absent from the last runs). */
static const uint64_t *series_get(struct series *s, size_t runs)
{
	if (s->n < runs) {
		grow((void **)&s->v, &s->cap, runs, sizeof(*s->v));
		memset(s->v + s->n, 0, (runs - s->n) * sizeof(*s->v));
		s->n = runs;
	}
	return s->v;
}

/* Per operation, per state: sums over the runs of the per-run means. */
struct state_row {
	bool seen, ap, control;
	char name[CPUHP_NAME];
	double ms, own_ms, calls; /* sums of run means */
	size_t runs;              /* runs in which it ran */
	struct series ms_s, own_s;
};

struct op_table {
	struct state_row row[CPUHP_STATES];
	double write_ms, outside_ms; /* sums of run means */
	struct series write_s, outside_s;
	size_t runs, writes, lost_writes;
	uint64_t min_writes, max_writes; /* per run */
};

struct summary {
	struct op_table op[OP_COUNT];
	size_t usable, traced, failed;
	char label[64];
};

static void add_run(struct op_table *t, const struct cpuhp_run *cr, int op)
{
	static double ms[CPUHP_STATES], own[CPUHP_STATES], calls[CPUHP_STATES];
	static bool seen[CPUHP_STATES];
	memset(ms, 0, sizeof(ms));
	memset(own, 0, sizeof(own));
	memset(calls, 0, sizeof(calls));
	memset(seen, 0, sizeof(seen));
	double write = 0, outside = 0;
	uint64_t n = 0;
	for (size_t i = 0; i < cr->nw; i++) {
		const struct cpuhp_write *w = &cr->w[i];
		if (w->op != op)
			continue;
		n++;
		t->lost_writes += w->lost != 0;
		write += (double)w->ns / 1e6;
		uint64_t control = 0;
		for (size_t j = 0; j < w->ncb; j++) {
			const struct cpuhp_cb *c = &w->cb[j];
			struct state_row *r = &t->row[c->state];
			if (!r->seen) {
				r->seen = true;
				snprintf(r->name, sizeof(r->name), "%s", c->name);
			}
			r->ap |= c->ap;
			r->control |= !c->ap;
			seen[c->state] = true;
			ms[c->state] += (double)c->ns / 1e6;
			own[c->state] += (double)(c->ns - cpuhp_inner_ns(w, c)) / 1e6;
			calls[c->state] += 1;
			if (!c->ap)
				control += c->ns;
		}
		outside += (double)(w->ns > control ? w->ns - control : 0) / 1e6;
	}
	if (!n)
		return;
	size_t run = t->runs++;
	series_set(&t->write_s, run, write / (double)n);
	series_set(&t->outside_s, run, outside / (double)n);
	t->writes += n;
	if (t->runs == 1 || n < t->min_writes)
		t->min_writes = n;
	if (n > t->max_writes)
		t->max_writes = n;
	t->write_ms += write / (double)n;
	t->outside_ms += outside / (double)n;
	for (size_t s = 0; s < CPUHP_STATES; s++) {
		if (!seen[s])
			continue;
		t->row[s].ms += ms[s] / (double)n;
		t->row[s].own_ms += own[s] / (double)n;
		series_set(&t->row[s].ms_s, run, ms[s] / (double)n);
		series_set(&t->row[s].own_s, run, own[s] / (double)n);
		t->row[s].calls += calls[s] / (double)n;
		t->row[s].runs++;
	}
}

static void summarise(const struct cpuhp_logs *L, struct summary *S)
{
	memset(S, 0, sizeof(*S));
	for (size_t i = 0; i < L->set.n; i++) {
		const struct run *r = &L->set.runs[i];
		if (run_use(r) != USE_FULL) {
			S->failed++;
			continue;
		}
		S->usable++;
		if (!L->run[i].nw)
			continue;
		S->traced++;
		for (int op = 0; op < OP_COUNT; op++)
			add_run(&S->op[op], &L->run[i], op);
	}
}

/* A state's mean over the runs of the table; runs where it did not run
 * count as 0 (it took no time there). */
static double mean(const struct op_table *t, double sum)
{
	return t->runs ? sum / (double)t->runs : 0;
}

/* Online states run upwards, offline ones downwards, as Linux does. */
static size_t state_at(int op, size_t i)
{
	return op == OP_ONLINE ? i : CPUHP_STATES - 1 - i;
}

static const char *side_of(const struct state_row *r)
{
	return r->ap && r->control ? "both" : r->ap ? "AP" : "control";
}

static void print_table(const struct summary *S)
{
	for (int k = 0; k < OP_COUNT; k++) {
		int op = k == 0 ? OP_ONLINE : OP_OFFLINE;
		const struct op_table *t = &S->op[op];
		if (!t->runs)
			continue;
		double w = mean(t, t->write_ms);
		char nw[48];
		if (t->min_writes == t->max_writes)
			snprintf(nw, sizeof(nw), "%" PRIu64, t->min_writes);
		else
			snprintf(nw, sizeof(nw), "%" PRIu64 "..%" PRIu64, t->min_writes, t->max_writes);
		printf("\n%s: %.3f ms per write (mean of %zu run%s, %s writes each)\n", op_name[op],
		       w, t->runs, t->runs == 1 ? "" : "s", nw);
		printf(" state  name                          ran on   calls        ms   share\n");
		const char *kick = NULL;
		double kick_ms = 0, kick_own = 0;
		for (size_t i = 0; i < CPUHP_STATES; i++) {
			size_t s = state_at(op, i);
			const struct state_row *r = &t->row[s];
			if (!r->seen)
				continue;
			double ms = mean(t, r->ms), own = mean(t, r->own_ms);
			/* Online only: offline, that state's teardown (finish_cpu)
			 * runs after the AP is dead. */
			bool is_kick = op == OP_ONLINE && !r->ap &&
				       (!strcmp(r->name, "cpu:bringup") || !strcmp(r->name, "cpu:kick_ap"));
			printf(" %5zu  %-28s  %-7s %6.2f %9.3f  %5.1f%%%s\n", s, r->name, side_of(r),
			       mean(t, r->calls), ms, w > 0 ? 100 * ms / w : 0,
			       r->ap && !r->control ? "  (on the AP, inside the control CPU's call)" :
			       is_kick ? "  <- the AP kick: INIT/SIPI, trampoline" : "");
			if (!r->ap && own < ms - 0.0005)
				printf("        - its own part (not in AP-side states)  %9.3f  %5.1f%%\n",
				       own, w > 0 ? 100 * own / w : 0);
			if (is_kick && op == OP_ONLINE) {
				kick = r->name;
				kick_ms = ms;
				kick_own = own;
			}
		}
		double out = mean(t, t->outside_ms);
		printf("        outside any control-side callback       %9.3f  %5.1f%%  "
		       "(sysfs, locks, the tool)\n", out, w > 0 ? 100 * out / w : 0);
		if (kick)
			printf("The state that holds the trampoline is %s (CPUHP_BRINGUP_CPU): "
			       "%.3f ms, of which %.3f ms its own part (the INIT/SIPI kick, the AP's "
			       "trampoline, start_secondary and the STARTING states, which Linux "
			       "cannot trace, and the waits): that part is what apstart measures "
			       "(its per-phase table: first INIT to the AP seen online).\n", kick,
			       kick_ms, kick_own);
		if (t->lost_writes)
			printf("%zu write(s) had lost or unpaired trace events: their states are "
			       "incomplete.\n", t->lost_writes);
	}
}

/* The run-level verdict of one row's change A -> B. */
static struct verdict_row judge(struct series *a, size_t na, struct series *b, size_t nb)
{
	struct verdict_row v;
	verdict_compute(series_get(a, na), na, series_get(b, nb), nb, VERDICT_MIN_RUNS, true, &v);
	return v;
}

static const char *word_of(const struct verdict_row *v)
{
	return v->has_ci ? verdict_word_text(v->word) : "-";
}

static void verdict_print(const char *name, const struct verdict_row *v)
{
	char buf[320];
	verdict_format_row(buf, sizeof(buf), name, v);
	printf("  %s\n", buf);
}

static void print_split(struct summary s[2])
{
	for (int k = 0; k < OP_COUNT; k++) {
		int op = k == 0 ? OP_ONLINE : OP_OFFLINE;
		struct op_table *a = &s[0].op[op], *b = &s[1].op[op];
		if (!a->runs || !b->runs)
			continue;
		double wa = mean(a, a->write_ms), wb = mean(b, b->write_ms);
		printf("\n%s: %.3f ms -> %.3f ms per write (%+.3f ms; mean of %zu and %zu runs)\n",
		       op_name[op], wa, wb, wb - wa, a->runs, b->runs);
		printf(" state  name                          ran on %12s %12s   change ms  verdict\n",
		       s[0].label, s[1].label);
		double big = 0;
		size_t big_state = 0;
		bool big_own = false;
		for (size_t i = 0; i < CPUHP_STATES; i++) {
			size_t st = state_at(op, i);
			struct state_row *ra = &a->row[st], *rb = &b->row[st];
			if (!ra->seen && !rb->seen)
				continue;
			const struct state_row *r = ra->seen ? ra : rb;
			double ma = mean(a, ra->ms), mb = mean(b, rb->ms);
			double oa = mean(a, ra->own_ms), ob = mean(b, rb->own_ms);
			struct verdict_row v = judge(&ra->ms_s, a->runs, &rb->ms_s, b->runs);
			printf(" %5zu  %-28s  %-7s%12.3f %12.3f %+11.3f  %s\n", st, r->name, side_of(r),
			       ma, mb, mb - ma, word_of(&v));
			bool split = (oa < ma - 0.0005 || ob < mb - 0.0005) && !(r->ap && !r->control);
			if (split) {
				v = judge(&ra->own_s, a->runs, &rb->own_s, b->runs);
				printf("        - its own part                      %12.3f %12.3f %+11.3f  %s\n",
				       oa, ob, ob - oa, word_of(&v));
			}
			/* The largest change among the parts that add up to the
			 * write: control-side own parts, AP-side states (inside
			 * the control side's calls) and, below, the time
			 * outside any callback. */
			double d = split ? ob - oa : mb - ma;
			if ((d < 0 ? -d : d) > (big < 0 ? -big : big)) {
				big = d;
				big_state = st;
				big_own = split;
			}
		}
		double oa = mean(a, a->outside_ms), ob = mean(b, b->outside_ms);
		struct verdict_row vo = judge(&a->outside_s, a->runs, &b->outside_s, b->runs);
		printf("        outside any control-side callback   %12.3f %12.3f %+11.3f  %s\n", oa, ob,
		       ob - oa, word_of(&vo));
		double dw = wb - wa;
		bool big_outside = (ob - oa < 0 ? oa - ob : ob - oa) > (big < 0 ? -big : big);
		const struct state_row *r = a->row[big_state].seen ? &a->row[big_state] :
					     &b->row[big_state];
		if (big_outside)
			printf("Largest change: the time outside any callback, %+.3f ms of the "
			       "write's %+.3f ms.\n", ob - oa, dw);
		else if (big != 0)
			printf("Largest change: %s%s (state %zu), %+.3f ms of the write's %+.3f ms.\n",
			       r->name, big_own ? "'s own part" : "", big_state, big, dw);
		/* The rows that add up to the write, each run one observation. */
		struct verdict_row vw = judge(&a->write_s, a->runs, &b->write_s, b->runs);
		char nm[96];
		snprintf(nm, sizeof(nm), "%s write", op_name[op]);
		verdict_print(nm, &vw);
		/* The kick's own part (online), then the largest change if
		 * that is another row. */
		size_t kick = CPUHP_STATES;
		for (size_t st = 0; op == OP_ONLINE && st < CPUHP_STATES && kick == CPUHP_STATES; st++) {
			const struct state_row *q = a->row[st].seen ? &a->row[st] : &b->row[st];
			if (q->seen && !q->ap && (!strcmp(q->name, "cpu:bringup") ||
						  !strcmp(q->name, "cpu:kick_ap")))
				kick = st;
		}
		if (kick < CPUHP_STATES) {
			struct verdict_row vk = judge(&a->row[kick].own_s, a->runs, &b->row[kick].own_s,
						      b->runs);
			const struct state_row *q = a->row[kick].seen ? &a->row[kick] : &b->row[kick];
			snprintf(nm, sizeof(nm), "%s own", q->name);
			verdict_print(nm, &vk);
		}
		/* Offline: cpu:teardown, which holds stop_machine, the DYING
		 * states and the wait for the AP (and the park flush when the
		 * whole guest stops for it, single-threaded TCG). */
		size_t down = CPUHP_STATES;
		for (size_t st = 0; op == OP_OFFLINE && st < CPUHP_STATES && down == CPUHP_STATES; st++) {
			const struct state_row *q = a->row[st].seen ? &a->row[st] : &b->row[st];
			if (q->seen && !q->ap && !strcmp(q->name, "cpu:teardown"))
				down = st;
		}
		if (down < CPUHP_STATES) {
			struct verdict_row vd = judge(&a->row[down].ms_s, a->runs, &b->row[down].ms_s,
						      b->runs);
			verdict_print("cpu:teardown", &vd);
		}
		struct state_row *ka = &a->row[big_state], *kb = &b->row[big_state];
		if (!big_outside && big != 0 && !(big_state == kick && big_own) &&
		    !(big_state == down && !big_own)) {
			struct verdict_row vb = big_own ? judge(&ka->own_s, a->runs, &kb->own_s, b->runs) :
						judge(&ka->ms_s, a->runs, &kb->ms_s, b->runs);
			snprintf(nm, sizeof(nm), "%s%s", r->name, big_own ? " own" : "");
			verdict_print(nm, &vb);
		}
		verdict_print("outside callbacks", &vo);
	}
}

static int load(struct cpuhp_logs *L, const char **files, size_t n, struct summary *S,
		const char *label)
{
	int e = cpuhp_load(L, (const char *const *)files, n, cli.given & O_TRUNC);
	if (e)
		return e;
	summarise(L, S);
	snprintf(S->label, sizeof(S->label), "%s", label);
	if (S->failed)
		fprintf(stderr, "aplog: %s: %zu run(s) that did not pass left out\n", label,
			S->failed);
	if (!S->traced) {
		fprintf(stderr, "aplog: %s: no @cpuhp_write records in %zu usable run(s): "
			"run linux-hotplug with --trace\n", label, S->usable);
		return 1;
	}
	return 0;
}

int cmd_cpuhp(void)
{
	if (!cli.nfiles[0])
		usage_error("cpuhp needs at least one LOG");
	if (cli.sep && !cli.nfiles[1])
		usage_error("cpuhp: no logs after '--'");
	static struct cpuhp_logs L[2];
	static struct summary S[2];
	int sides = cli.sep ? 2 : 1, rc = 0;
	const char *def[2] = { "A", "B" };
	for (int i = 0; i < sides && !rc; i++)
		rc = load(&L[i], cli.files[i], cli.nfiles[i], &S[i],
			  cli.label[i] ? cli.label[i] : sides == 1 ? "logs" : def[i]);
	if (!rc) {
		if (sides == 1) {
			printf("Linux CPU hotplug by cpuhp state (linux-hotplug --trace): %zu traced "
			       "run%s; per state its mean time per write, mean over the runs\n",
			       S[0].traced, S[0].traced == 1 ? "" : "s");
			print_table(&S[0]);
		} else {
			printf("Linux CPU hotplug by cpuhp state, %s (%zu runs) -> %s (%zu runs): "
			       "per state its mean time per write, mean over the runs\n",
			       S[0].label, S[0].traced, S[1].label, S[1].traced);
			print_split(S);
		}
	}
	for (int i = 0; i < sides; i++) {
		cpuhp_free(&L[i]);
		for (int op = 0; op < OP_COUNT; op++) {
			struct op_table *t = &S[i].op[op];
			free(t->write_s.v);
			free(t->outside_s.v);
			for (size_t k = 0; k < CPUHP_STATES; k++) {
				free(t->row[k].ms_s.v);
				free(t->row[k].own_s.v);
			}
		}
	}
	return rc ? 1 : 0;
}
