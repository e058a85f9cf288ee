/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the A/B session's table as apstart.efi makes it from
 * the run files on the stick (wings/efi/table_text.c, records.c), given
 * any plan, even one plan_parse would refuse: the builder must keep
 * within its arrays whatever the plan and the files say.
 *
 * Input: byte 0 runs per variant (0..255), byte 1 the number of runs
 * (0..255), then that many order letters (bit 0: A or B; 0xff: a letter
 * that is neither), then the run files, each ended by a NUL byte (a
 * missing file, a run past the last: none; bit 1 of its letter byte
 * says whether it was marked interrupted). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wings/efi/table_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	struct plan *p = calloc(1, sizeof *p);
	struct table *t = malloc(sizeof *t); /* exact size: ASan sees past it */
	if (!p || !t)
		goto out;
	p->number = 1;
	p->k = data[0];
	p->runs = data[1];
	size_t at = 2, letters = p->runs < PLAN_RUNS_MAX ? p->runs : PLAN_RUNS_MAX;
	uint8_t flags[PLAN_RUNS_MAX] = { 0 };
	for (size_t i = 0; i < letters && at < size; i++, at++) {
		flags[i] = data[at];
		p->order[i] = data[at] == 0xff ? '?' : (data[at] & 1) ? 'B' : 'A';
	}
	memcpy(p->cmdline, "cycles=1", 9);
	table_start(t, p);
	/* One more run than the plan has, and run 0: both must be ignored. */
	for (size_t r = 0; r <= p->runs + 1; r++) {
		const uint8_t *end = at < size ? memchr(data + at, 0, size - at) : NULL;
		if (!end) {
			table_add_run(t, r, NULL, 0, r < PLAN_RUNS_MAX && r && (flags[r - 1] & 2));
			continue;
		}
		size_t n = (size_t)(end - (data + at));
		uint8_t *file = malloc(n ? n : 1);
		if (!file)
			break;
		memcpy(file, data + at, n);
		table_add_run(t, r, file, n, false);
		free(file);
		at += n + 1;
	}
	table_finish(t);
	size_t room = p->k < PLAN_K_MAX ? p->k : PLAN_K_MAX;
	if (t->side[0].n > room || t->side[1].n > room || t->text_len >= TABLE_TEXT_MAX ||
	    strlen(t->text) != t->text_len || t->rows_start > t->rows_end ||
	    t->rows_end > t->text_len)
		abort();
out:
	free(t);
	free(p);
	return 0;
}
