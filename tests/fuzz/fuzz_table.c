/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the A/B session's table as apstart.efi makes it from
 * the run files on the stick (wings/efi/table_text.c, records.c), given
 * any plan, even one plan_parse would refuse: the builder must keep
 * within its arrays whatever the plan and the files say.
 *
 * Input: byte 0 runs per variant (0..255), byte 1 the number of runs
 * (0..255), then that many order letters: bit 0 A or B (0xff: a letter
 * that is neither), bit 2 the run has no file (then bit 1: it was marked
 * interrupted); then the run files, each ended by a NUL byte, taken in
 * turn by the runs that have one; when they run out the last one is
 * taken again (200 passing runs cost one file: the inputs stay small). */
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
	const uint8_t *file = NULL;
	size_t file_len = 0;
	for (size_t r = 0; r <= p->runs + 1; r++) {
		uint8_t f = r && r <= PLAN_RUNS_MAX ? flags[r - 1] : 0;
		if (f & 4) {
			table_add_run(t, r, NULL, 0, (f & 2) != 0);
			continue;
		}
		const uint8_t *end = at < size ? memchr(data + at, 0, size - at) : NULL;
		if (end) {
			file = data + at;
			file_len = (size_t)(end - file);
			at += file_len + 1;
		}
		if (!file) {
			table_add_run(t, r, NULL, 0, false);
			continue;
		}
		uint8_t *copy = malloc(file_len ? file_len : 1); /* exact size for ASan */
		if (!copy)
			break;
		memcpy(copy, file, file_len);
		table_add_run(t, r, copy, file_len, false);
		free(copy);
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
