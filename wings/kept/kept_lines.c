/* SPDX-License-Identifier: MIT */
/* The run's records, kept in memory as they are printed (no second
 * formatting): the console hands every printed piece to this tap (the
 * wing's .console_text). Whatever shows the results after the run (the
 * result page and its QR code, the summary kept in NVRAM) takes the same
 * lines from here, so that all of them agree.
 *
 * Kept: @boot, @env, @trampoline, @warn, @fail, @end from the start (a run that ends
 * early still says how); from the results on, every serial line but
 * @sample, @cpu and @phase (the per-CPU table, the per-phase table, the
 * slowest CPUs, @summary, the totals, @end). kept_lines_render() fits them
 * into a cap: when they exceed it, the human-readable table rows are left
 * out first (@cpusum has their figures); when even the @ records do not
 * fit, the end (totals, @summary, @end) and the records in print order
 * while they fit (the first CPUs' @cpusum). A note says how many lines are
 * missing. */
#include "wings/kept/kept_lines.h"

#include <stdint.h>

#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "lib/format.h"
#include "lib/kstring.h"
#include "lib/records_schema.h"

#define LINE_MAX 512
#define KEEP_MAX (192 * 1024) /* lines in print order, until full ... */
#define SMALL_MAX (16 * 1024) /* ... or this, where bootmem had no room */
#define TAIL_MAX (4 * 1024)   /* ... then the most recent ones */
#define GAP_NOTE_MAX 160

enum phase { PHASE_OFF, PHASE_RECORDS, PHASE_REPORT };

static enum phase phase;
static char line[LINE_MAX];
static size_t line_len;
/* keep comes from bootmem (big buffers stay out of the image,
 * kernel/bootmem.h); a machine without the room keeps less. */
static char keep_small[SMALL_MAX];
static char *keep = keep_small;
static size_t keep_cap = SMALL_MAX;
static size_t keep_len;
static char tail[TAIL_MAX];     /* whole lines, oldest first */
static size_t tail_len;
static uint32_t dropped;        /* lines lost between keep and tail */

static bool is(const char *l, const char *word)
{
	return record_line_is(l, strlen(l), word);
}

static bool wanted(const char *l)
{
	if (phase == PHASE_REPORT) /* not the per-start records: @phases is their table */
		return !is(l, RECORD_WORD(sample)) && !is(l, RECORD_WORD(cpu)) &&
		       !is(l, RECORD_WORD(phase));
	return is(l, RECORD_WORD(boot)) || is(l, RECORD_WORD(env)) ||
	       is(l, RECORD_WORD(trampoline)) || is(l, RECORD_WORD(warn)) ||
	       is(l, RECORD_WORD(fail)) || is(l, RECORD_WORD(end));
}

static size_t first_line_len(const char *s, size_t len)
{
	size_t n = 0;
	while (n < len && s[n] != '\n')
		n++;
	return n < len ? n + 1 : len;
}

static void keep_line(const char *l, size_t n)
{
	if (keep_len + n <= keep_cap && !tail_len && !dropped) {
		memcpy(keep + keep_len, l, n);
		keep_len += n;
		return;
	}
	while (tail_len + n > TAIL_MAX && tail_len) {
		size_t first = first_line_len(tail, tail_len);
		memmove(tail, tail + first, tail_len - first);
		tail_len -= first;
		dropped++;
	}
	if (n > TAIL_MAX) {
		dropped++;
		return;
	}
	memcpy(tail + tail_len, l, n);
	tail_len += n;
}

void kept_lines_tap(unsigned targets, const char *text)
{
	if (!(targets & CON_SERIAL) || phase == PHASE_OFF)
		return;
	for (; *text; text++) {
		if (line_len < LINE_MAX - 2) /* room for a '\n' and the NUL */
			line[line_len++] = *text;
		if (*text != '\n')
			continue;
		if (line[line_len - 1] != '\n')
			line[line_len++] = '\n'; /* a line cut at LINE_MAX */
		line[line_len] = '\0';
		if (wanted(line))
			keep_line(line, line_len);
		line_len = 0;
	}
}

void kept_lines_begin(void)
{
	/* Once, while free RAM is plentiful (before the sample stores). */
	if (keep == keep_small) {
		char *k = bootmem_try_alloc(KEEP_MAX, 64, "the kept record lines");
		if (k) {
			keep = k;
			keep_cap = KEEP_MAX;
		}
	}
	line_len = keep_len = tail_len = 0;
	dropped = 0;
	phase = PHASE_RECORDS;
}

void kept_lines_report(void)
{
	if (phase != PHASE_OFF)
		phase = PHASE_REPORT;
}

void kept_lines_end(void)
{
	phase = PHASE_OFF;
}

/* Whole lines of s[0..len) from the end that fit in budget: the offset
 * where they start. */
static size_t last_lines_start(const char *s, size_t len, size_t budget)
{
	size_t start = len;
	while (start > 0) {
		size_t b = start - 1;
		while (b > 0 && s[b - 1] != '\n')
			b--;
		if (len - b > budget)
			break;
		start = b;
	}
	return start;
}

/* Passes over the kept lines (keep, then tail) for a capped summary, in
 * order of what matters: the end of the run (from end_start on: the
 * totals, @summary, @end) always; then the @ records, in order while
 * rec_budget lasts (a big machine's @cpusum records of its first CPUs);
 * then the other lines (the human-readable tables), in order while
 * human_budget lasts. A counting pass sums what each class takes and the
 * lines left out; the writing pass puts the note where the first line
 * went missing. */
struct render_pass {
	char *dst;
	size_t len, end, rec, human, rec_budget, human_budget, left_out, cap;
	bool noted, gap, rec_full, human_full;
	bool records_lost;     /* for the note: some @ record is not kept */
};

static void render_note(struct render_pass *p)
{
	char note[GAP_NOTE_MAX];
	int n = fmt_snprintf(note, sizeof note,
			     "(%u lines left out here: the saved summary is capped at "
			     "%u bytes%s; the serial log has them)\n",
			     (unsigned)p->left_out, (unsigned)p->cap,
			     p->records_lost ? "" : " and keeps every @ record");
	size_t len = n < GAP_NOTE_MAX ? (size_t)n : GAP_NOTE_MAX - 1;
	if (p->dst)
		memcpy(p->dst + p->len, note, len);
	p->len += len;
}

/* Whether a line of n bytes is taken, counting it in its class. Lines
 * are taken in order: after one of a class is left out, none of that
 * class is. */
static bool take_line(struct render_pass *p, bool end, bool record, size_t n)
{
	if (end) {
		p->end += n;
		return true;
	}
	size_t *used = record ? &p->rec : &p->human;
	size_t budget = record ? p->rec_budget : p->human_budget;
	bool *full = record ? &p->rec_full : &p->human_full;
	if (!*full && *used + n <= budget) {
		*used += n;
		return true;
	}
	*full = true;
	return false;
}

static void render_lines(struct render_pass *p, const char *s, size_t len, size_t end_start,
			 bool count_only)
{
	for (size_t at = 0; at < len;) {
		size_t n = first_line_len(s + at, len - at);
		if (take_line(p, at >= end_start, s[at] == '@', n)) {
			if (!count_only) {
				if (p->gap && !p->noted) {
					render_note(p);
					p->noted = true;
				}
				memcpy(p->dst + p->len, s + at, n);
			}
			p->len += n;
		} else {
			p->gap = true;
			if (count_only)
				p->left_out++;
		}
		at += n;
	}
}

static void render_all(struct render_pass *p, size_t keep_end, size_t tail_end, bool count_only)
{
	render_lines(p, keep, keep_len, keep_end, count_only);
	/* dropped lines went between keep and tail: noted there at the latest */
	p->gap |= dropped != 0;
	render_lines(p, tail, tail_len, tail_end, count_only);
	if (!count_only && p->gap && !p->noted)
		render_note(p);
}

size_t kept_lines_render(char *dst, size_t cap)
{
	if (keep_len + tail_len <= cap && !dropped) {
		memcpy(dst, keep, keep_len);
		memcpy(dst + keep_len, tail, tail_len);
		return keep_len + tail_len;
	}
	/* The end of the run: up to a quarter of the room, whole lines, from
	 * the tail (and from keep when the tail is empty). */
	size_t end_budget = cap / 4;
	size_t keep_end = tail_len ? keep_len : last_lines_start(keep, keep_len, end_budget);
	size_t tail_end = tail_len ? last_lines_start(tail, tail_len, end_budget) : 0;

	/* What the end takes, then what the records may take, then the rest. */
	struct render_pass p = { .cap = cap };
	render_all(&p, keep_end, tail_end, true);
	size_t room = cap - GAP_NOTE_MAX - p.end;
	struct render_pass r = { .cap = cap, .rec_budget = room };
	render_all(&r, keep_end, tail_end, true);
	struct render_pass c = { .cap = cap, .rec_budget = room, .human_budget = room - r.rec };
	render_all(&c, keep_end, tail_end, true);
	struct render_pass out_pass = { .dst = dst, .cap = cap, .rec_budget = room,
					.human_budget = room - r.rec,
					.left_out = c.left_out + dropped,
					.records_lost = r.rec_full || dropped };
	render_all(&out_pass, keep_end, tail_end, false);
	return out_pass.len;
}

static void each_line(const char *s, size_t len,
		      void (*fn)(void *ctx, const char *line, size_t len), void *ctx)
{
	for (size_t at = 0; at < len;) {
		size_t n = first_line_len(s + at, len - at);
		fn(ctx, s + at, n);
		at += n;
	}
}

void kept_lines_for_each(void (*fn)(void *ctx, const char *line, size_t len), void *ctx)
{
	each_line(keep, keep_len, fn, ctx);
	each_line(tail, tail_len, fn, ctx);
}
