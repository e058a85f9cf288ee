/* SPDX-License-Identifier: MIT */
/* dirty=track: which cache lines the guest wrote since its socket's last
 * flush. Each socket (coherence domain) keeps a set of 64-byte lines of
 * guest-physical memory below 4 GiB; a store adds its line, a flush
 * takes the set's size (at most the LLC: a cache holds no more dirty
 * lines than it has, the rest were written back on eviction) and empties
 * it. No cache is simulated beyond that: no eviction order, no reads, no
 * per-core caches. Pure code, no QEMU (unit-tested in test_model.c). */
#ifndef FLUSHMODEL_DIRTY_TRACK_H
#define FLUSHMODEL_DIRTY_TRACK_H

#include <stdbool.h>
#include <stdint.h>

#define DIRTY_LINE_BYTES 64u
#define DIRTY_SPAN_BYTES (1ull << 32) /* tracked: guest-physical 0..4 GiB */

/* ndomains sets, each full at cap_lines lines. False: out of memory. */
bool dirty_track_init(unsigned ndomains, uint64_t cap_lines);
/* A store to guest-physical address pa by a vCPU of domain d (any
 * thread, lock-free). */
void dirty_track_store(unsigned d, uint64_t pa);
/* Domain d's flush: the dirty bytes it finds (lines x 64, capped), and
 * the set emptied. Callers of one domain must not run this at once
 * (flushmodel.c takes the domain's lock). */
uint64_t dirty_track_take(unsigned d);
/* The same without emptying (reports, tests). */
uint64_t dirty_track_peek(unsigned d);
void dirty_track_free(void);

#endif
