/* SPDX-License-Identifier: MIT */
/* A run as a whole, when it closes: duplicate samples, cpu/APIC ID
 * clashes, @summary totals against the samples, truncation. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/read/loader.h"
#include "tools/aplog/util.h"

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

void close_run(struct loader *ld, size_t at_line, const char *why)
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
