/* SPDX-License-Identifier: MIT */
/* A bitmap per domain (8 MiB of address space bits for 4 GiB; calloc'd,
 * so only the pages of memory the guest writes are ever touched) and a
 * list of the lines set, so that emptying costs the lines set, not the
 * bitmap. A store racing a flush of its own domain may be lost or kept
 * for the next flush; the probe never stores while it flushes. */
#include "dirty_track.h"

#include <stdlib.h>

struct domain_set {
	uint64_t *bits;
	uint32_t *list;      /* line numbers set, the first `count` valid */
	uint64_t count;      /* lines set since the last take (may pass cap) */
};

static struct domain_set *sets;
static unsigned nsets;
static uint64_t cap;

#define SPAN_LINES (DIRTY_SPAN_BYTES / DIRTY_LINE_BYTES)

bool dirty_track_init(unsigned ndomains, uint64_t cap_lines)
{
	if (!ndomains || !cap_lines)
		return false;
	if (cap_lines > SPAN_LINES)
		cap_lines = SPAN_LINES;
	sets = calloc(ndomains, sizeof *sets);
	if (!sets)
		return false;
	nsets = ndomains;
	cap = cap_lines;
	for (unsigned d = 0; d < ndomains; d++) {
		sets[d].bits = calloc(SPAN_LINES / 64, sizeof(uint64_t));
		sets[d].list = malloc(cap_lines * sizeof(uint32_t));
		if (!sets[d].bits || !sets[d].list) {
			dirty_track_free();
			return false;
		}
	}
	return true;
}

void dirty_track_store(unsigned d, uint64_t pa)
{
	if (d >= nsets || pa >= DIRTY_SPAN_BYTES)
		return;
	struct domain_set *s = &sets[d];
	uint64_t line = pa / DIRTY_LINE_BYTES, bit = 1ull << (line % 64);
	uint64_t *w = &s->bits[line / 64];
	if (__atomic_load_n(w, __ATOMIC_RELAXED) & bit)
		return; /* already dirty: the common case, no write */
	if (__atomic_fetch_or(w, bit, __ATOMIC_RELAXED) & bit)
		return;
	uint64_t i = __atomic_fetch_add(&s->count, 1, __ATOMIC_RELAXED);
	if (i < cap)
		s->list[i] = (uint32_t)line;
	else
		/* Full: a cache this size would have written a line back
		 * to make room. Forget this one, so the set stays exact. */
		__atomic_fetch_and(w, ~bit, __ATOMIC_RELAXED);
}

static uint64_t dirty_bytes(const struct domain_set *s)
{
	uint64_t n = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	return (n < cap ? n : cap) * DIRTY_LINE_BYTES;
}

uint64_t dirty_track_peek(unsigned d)
{
	return d < nsets ? dirty_bytes(&sets[d]) : 0;
}

uint64_t dirty_track_take(unsigned d)
{
	if (d >= nsets)
		return 0;
	struct domain_set *s = &sets[d];
	uint64_t n = __atomic_exchange_n(&s->count, 0, __ATOMIC_ACQ_REL);
	uint64_t kept = n < cap ? n : cap;
	for (uint64_t i = 0; i < kept; i++) {
		uint32_t line = s->list[i];
		__atomic_fetch_and(&s->bits[line / 64], ~(1ull << (line % 64)), __ATOMIC_RELAXED);
	}
	return kept * DIRTY_LINE_BYTES;
}

void dirty_track_free(void)
{
	for (unsigned d = 0; d < nsets; d++) {
		free(sets[d].bits);
		free(sets[d].list);
	}
	free(sets);
	sets = NULL;
	nsets = 0;
}
