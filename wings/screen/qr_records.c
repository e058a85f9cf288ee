/* SPDX-License-Identifier: MIT */
/* What the QR code holds. Chosen whole lines of the kept summary, so the
 * scanned text is the serial log's records, in its order. */
#include "wings/screen/qr_records.h"

#include <stdbool.h>
#include <stdint.h>

#include "app/report.h"
#include "wings/kept/kept_lines.h"
#include "kernel/config.h"
#include "lib/kstring.h"
#include "lib/records_schema.h"

/* Building the payload: pass 1 sizes the records that must fit and the
 * @phases block, pass 2 writes. */
struct build {
	char *out;
	size_t cap, len;
	size_t phases_len;  /* pass 1: the @phases records' bytes */
	bool phases;        /* pass 2: include the @phases records */
	const bool *take;   /* per ap_results index: include its @cpusum */
	bool cpusums_done;
};

static void put(struct build *b, const char *s, size_t n)
{
	if (b->out && b->len + n <= b->cap)
		memcpy(b->out + b->len, s, n);
	b->len += n;
}

static void put_cpusums(struct build *b)
{
	const struct run_result *r = report_result();
	if (b->cpusums_done || !r || !b->take)
		return;
	b->cpusums_done = true;
	for (uint32_t k = 0; k < r->n; k++) {
		char rec[256];
		if (!b->take[k])
			continue;
		report_cpusum_line(rec, sizeof rec, &r->ap[k]);
		put(b, rec, strlen(rec));
	}
}

static void record(void *ctx, const char *l, size_t len)
{
	struct build *b = ctx;
	if (!len || l[0] != '@')
		return;
	/* the chosen @cpusum records where serial prints them: at the first
	 * one, else (cut from the summary) before @summary */
	if (record_line_is(l, len, RECORD_WORD(cpusum))) {
		put_cpusums(b);
		return;
	}
	if (record_line_is(l, len, RECORD_WORD(summary)))
		put_cpusums(b);
	size_t n = len + (l[len - 1] != '\n');
	if (record_line_is(l, len, RECORD_WORD(phases))) {
		b->phases_len += n;
		if (!b->phases)
			return;
	}
	put(b, l, len);
	if (l[len - 1] != '\n')
		put(b, "\n", 1);
}

static bool taken[APSTART_MAX_CPUS];

size_t qr_records(char *out, size_t cap, unsigned *cpusums_in)
{
	const struct run_result *r = report_result();
	struct build b = { 0 };

	kept_lines_for_each(record, &b); /* the records that must fit */
	*cpusums_in = 0;
	if (b.len > cap)
		return 0;
	size_t room = cap - b.len;
	/* The per-phase table, whole or not at all: where the time goes. */
	bool phases = b.phases_len && b.phases_len <= room;
	if (phases)
		room -= b.phases_len;
	for (uint32_t k = 0; r && k < r->n; k++)
		taken[k] = false;
	/* Slowest online median first: those are what a reader asks about. */
	for (;;) {
		int best = -1;
		for (uint32_t k = 0; r && k < r->n; k++)
			if (!taken[k] && (best < 0 || r->ap[k].online_median >
						      r->ap[best].online_median))
				best = (int)k;
		if (best < 0)
			break;
		char rec[256];
		report_cpusum_line(rec, sizeof rec, &r->ap[best]);
		size_t n = strlen(rec);
		if (n > room)
			break;
		taken[best] = true;
		room -= n;
		(*cpusums_in)++;
	}
	b = (struct build){ .out = out, .cap = cap, .phases = phases, .take = taken };
	kept_lines_for_each(record, &b);
	put_cpusums(&b); /* no @cpusum or @summary kept (an early end): at the end */
	return b.len;
}
