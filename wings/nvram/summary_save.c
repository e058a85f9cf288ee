/* SPDX-License-Identifier: MIT */
/* Results that survive a reset: a server's screen scrolls away and often
 * nobody has a serial cable. The console hands every printed piece to
 * this sink (kernel/console.h); the lines that make up the summary are
 * kept as printed (no second formatting), and at the end they go into
 * non-volatile UEFI variables through the runtime services
 * (kernel/efi_runtime.h): ApstartResults, and ApstartResults1.. when it
 * needs more than one (lib/efi_vendor.h), capped at
 * APSTART_RESULTS_TOTAL_MAX, at half the free NVRAM and at what the
 * firmware says a variable may hold. apstart.efi writes it to the stick
 * on the next boot (wings/efi/saved.c).
 *
 * Kept: @boot, @env, @warn, @fail, @end from the start (a run that ends
 * early still says how); from the results on, every serial line but
 * @sample, @cpu and @phase (the per-CPU table, the per-phase table, the
 * slowest CPUs, @summary, the totals, @end). When that exceeds the cap, the
 * human-readable table rows are left out first (@cpusum has their
 * figures); when even the @ records do not fit, the end (totals,
 * @summary, @end) and the records in print order while they fit (the
 * first CPUs' @cpusum). A note says how many lines are missing. */
#include "wings/nvram/summary_save.h"

#include <stdint.h>

#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "kernel/efi_runtime.h"
#include "lib/efi_vendor.h"
#include "lib/format.h"
#include "lib/kstring.h"

#define LINE_MAX 512
#define KEEP_MAX (192 * 1024) /* lines in print order, until full ... */
#define SMALL_MAX (16 * 1024) /* ... or this, where bootmem had no room */
#define TAIL_MAX (4 * 1024)   /* ... then the most recent ones */
#define GAP_NOTE_MAX 160
/* Room SetVariable needs besides the data, for the firmware's limit:
 * the name and a header (EDK II's authenticated header is 60 bytes). */
#define VAR_OVERHEAD (sizeof(APSTART_RESULTS_VAR_NAME) + 128)

enum phase { PHASE_OFF, PHASE_RECORDS, PHASE_REPORT };

static enum phase phase;
static bool save_on, uefi_boot, saved;
static char line[LINE_MAX];
static size_t line_len;
/* keep and out come from bootmem (big buffers stay out of the image,
 * kernel/bootmem.h); a machine without the room keeps less. */
static char keep_small[SMALL_MAX], out_small[SMALL_MAX];
static char *keep = keep_small, *out = out_small;
static size_t keep_cap = SMALL_MAX, out_cap = SMALL_MAX;
static size_t keep_len;
static char tail[TAIL_MAX];     /* whole lines, oldest first */
static size_t tail_len;
static uint32_t dropped;        /* lines lost between keep and tail */

static bool starts(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);
	return memcmp(s, prefix, n) == 0;
}

static bool wanted(const char *l)
{
	if (phase == PHASE_REPORT) /* not the per-start records: @phases is their table */
		return !starts(l, "@sample ") && !starts(l, "@cpu ") && !starts(l, "@phase ");
	return starts(l, "@boot ") || starts(l, "@env ") || starts(l, "@warn ") ||
	       starts(l, "@fail ") || starts(l, "@end ");
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

static void sink(unsigned targets, const char *text)
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

/* Once: the big buffers, while free RAM is plentiful (before the sample
 * stores). The saved summary needs out only when there is a save. */
static void get_buffers(bool want_out)
{
	if (keep == keep_small) {
		char *k = bootmem_try_alloc(KEEP_MAX, 64, "the kept summary lines");
		if (k) {
			keep = k;
			keep_cap = KEEP_MAX;
		}
	}
	if (want_out && out == out_small) {
		char *o = bootmem_try_alloc(APSTART_RESULTS_TOTAL_MAX, 64, "the saved summary");
		if (o) {
			out = o;
			out_cap = APSTART_RESULTS_TOTAL_MAX;
		}
	}
}

void summary_capture_begin(bool save, bool uefi)
{
	get_buffers(save && uefi);
	save_on = save;
	uefi_boot = uefi;
	saved = false;
	line_len = keep_len = tail_len = 0;
	dropped = 0;
	phase = PHASE_RECORDS;
	console_set_sink(sink);
}

void summary_capture_set_save(bool save)
{
	get_buffers(save && uefi_boot);
	save_on = save;
}

void summary_capture_report(void)
{
	phase = PHASE_REPORT;
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

size_t summary_render(char *dst, size_t cap)
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

void summary_for_each_line(void (*fn)(void *ctx, const char *line, size_t len), void *ctx)
{
	each_line(keep, keep_len, fn, ctx);
	each_line(tail, tail_len, fn, ctx);
}

static void guid_text(char *buf, size_t size, const struct efi_guid *g)
{
	fmt_snprintf(buf, size, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		     g->data1, g->data2, g->data3, g->data4[0], g->data4[1], g->data4[2],
		     g->data4[3], g->data4[4], g->data4[5], g->data4[6], g->data4[7]);
}

/* ApstartResults, ApstartResults1, ... (lib/efi_vendor.h). */
static void part_name(uint16_t name[24], unsigned part)
{
	static const uint16_t base[] = APSTART_RESULTS_VAR_NAME;
	size_t n = sizeof base / sizeof base[0] - 1;
	memcpy(name, base, n * sizeof base[0]);
	if (part)
		name[n++] = (uint16_t)('0' + part);
	name[n] = 0;
}

static efi_status set_part(unsigned part, const void *data, size_t len)
{
	static const struct efi_guid vendor = APSTART_VENDOR_GUID_INIT;
	uint16_t name[24];
	part_name(name, part);
	return efi_set_variable(name, &vendor, APSTART_RESULTS_VAR_ATTRS, len, data);
}

/* Deleting a variable that is not there is not an error. */
static void delete_part(unsigned part)
{
	(void)set_part(part, NULL, 0);
}

void summary_save(void)
{
	static const struct efi_guid vendor = APSTART_VENDOR_GUID_INIT;
	char guid[40];

	if (saved || phase == PHASE_OFF)
		return;
	saved = true;
	phase = PHASE_OFF; /* what follows is about the save, not the run */
	if (!uefi_boot)
		return;
	if (!save_on) {
		kprintf("save: off (save=off): nothing written to NVRAM\n");
		return;
	}
	if (!efi_runtime_usable()) {
		kprintf("save: no usable UEFI runtime services: the summary is not kept "
			"(read it from the screen or serial)\n");
		return;
	}
	size_t part_cap = APSTART_RESULTS_MAX, cap = APSTART_RESULTS_TOTAL_MAX;
	uint64_t max_storage, remaining, max_var;
	efi_status st = efi_query_variable_info(APSTART_RESULTS_VAR_ATTRS, &max_storage,
						&remaining, &max_var);
	if (st == EFI_SUCCESS) {
		kprintf("save: firmware NVRAM: %llu bytes, %llu free, at most %llu per variable\n",
			(unsigned long long)max_storage, (unsigned long long)remaining,
			(unsigned long long)max_var);
		if (max_var < part_cap + VAR_OVERHEAD)
			part_cap = max_var > VAR_OVERHEAD + 1024 ? (size_t)(max_var - VAR_OVERHEAD)
								 : 1024;
		cap = part_cap * APSTART_RESULTS_PARTS;
		uint64_t share = remaining / APSTART_RESULTS_FREE_SHARE;
		if (share < cap)
			cap = share > 1024 ? (size_t)share : 1024;
	}
	if (cap > out_cap)
		cap = out_cap;
	size_t len = summary_render(out, cap);
	size_t parts = len ? (len + part_cap - 1) / part_cap : 1;
	guid_text(guid, sizeof guid, &vendor);
	/* Part 0 last: a save cut short leaves no summary, never a torn one
	 * (the loader deletes parts without a part 0). */
	delete_part(0);
	st = EFI_SUCCESS;
	unsigned part = 1;
	for (; part < parts && st == EFI_SUCCESS; part++) {
		size_t at = part * part_cap, n = len - at < part_cap ? len - at : part_cap;
		st = set_part(part, out + at, n);
	}
	if (st == EFI_SUCCESS) {
		for (unsigned i = (unsigned)parts; i < APSTART_RESULTS_PARTS; i++)
			delete_part(i); /* a bigger summary's leftovers */
		part = 0;
		st = set_part(0, out, len < part_cap ? len : part_cap);
	} else {
		part--; /* the one that failed */
	}
	if (st == EFI_SUCCESS) {
		char more[96] = "";
		if (parts > 1)
			fmt_snprintf(more, sizeof more, " and %s1..%u (%u parts of at most %u bytes)",
				     APSTART_RESULTS_VAR_NAME_ASCII, (unsigned)parts - 1,
				     (unsigned)parts, (unsigned)part_cap);
		kprintf("save: summary kept in NVRAM, %u bytes, as %s-%s%s: apstart.efi writes "
			"it to the stick on the next boot\n", (unsigned)len,
			APSTART_RESULTS_VAR_NAME_ASCII, guid, more);
		return;
	}
	for (unsigned i = 1; i < parts; i++)
		delete_part(i); /* no part 0: the rest is of no use */
	char which[4] = { 0 };
	if (part)
		which[0] = (char)('0' + part);
	kprintf("save: SetVariable(%s%s-%s, part %u of %u, %u bytes in all) failed: %s "
		"(0x%llx): the summary is not kept\n", APSTART_RESULTS_VAR_NAME_ASCII, which,
		guid, part, (unsigned)parts, (unsigned)len, efi_status_name(st),
		(unsigned long long)st);
}
