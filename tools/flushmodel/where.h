/* SPDX-License-Identifier: MIT */
/* Which flushes the model charges, by where they execute. The same
 * instruction costs the same wherever it runs, but a kernel's flushes
 * are told apart by their address: Linux's AP trampoline (trampoline_64.S,
 * real mode) runs below 1 MiB, its park path (hlt_play_dead) and MTRR
 * code in kernel text far above. Charging one and not the other runs an
 * unpatched kernel as if a patch that removes one flush were applied.
 *
 *   free=RANGES   flushes at these addresses cost nothing (still counted)
 *   only=RANGES   only flushes at these addresses are charged
 *   RANGES        low1m (0x0-0xfffff), or 0xSTART-0xEND (inclusive), or
 *                 several joined by '+': free=low1m+0x100000-0x1fffff
 *
 * The address is QEMU's instruction address: the linear address (CS base
 * + IP in real mode, the virtual address in paged modes).
 * Pure code, no QEMU: unit-tested on the host (test_where.c). */
#ifndef FLUSHMODEL_WHERE_H
#define FLUSHMODEL_WHERE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WHERE_MAX_RANGES 8

struct flush_where {
	bool set;      /* free= or only= given */
	bool only;     /* only=: charge inside, free outside */
	unsigned n;
	struct {
		uint64_t lo, hi; /* inclusive */
	} r[WHERE_MAX_RANGES];
};

/* Takes free= and only= out of argv (shifting the rest down, *argc
 * reduced), parses them into w. Returns 0, or -1 with the reason in err
 * (both given, given twice, a malformed or empty range). */
int where_take(struct flush_where *w, int *argc, char **argv, char *err,
	       size_t errlen);

/* Whether a flush at this address is charged. */
bool where_charged(const struct flush_where *w, uint64_t vaddr);

/* " (flushes at 0x0-0xfffff free)" or "" when not set. */
void where_describe(const struct flush_where *w, char *buf, size_t len);

extern const char where_usage[];

#endif
