/* SPDX-License-Identifier: MIT */
/* probe=flush: the cost of the flush itself. On the BSP and then on each
 * AP in turn: dirty D bytes of a buffer (one store per cache line), D
 * log-spaced from 0 to twice the LLC, and time WBINVD, WBNOINVD (where
 * CPUID has it) and CLFLUSHOPT/CLWB over the dirtied range (where CPUID
 * has them). Then N CPUs of the BSP's socket flush at once (1, 2, 4, ...,
 * the socket; every CPU only with flush_at_once=all), each with the same
 * footprint. Never INVD. One @flush record per timed window. */
#ifndef APSTART_FLUSH_PROBE_H
#define APSTART_FLUSH_PROBE_H

#include <stdbool.h>
#include <stdint.h>

/* flush_at_once=: how far the "N CPUs flush at once" rounds go: not at
 * all, up to the BSP's socket (default), or every CPU (opt-in: all CPUs
 * flushing at once was reported to hang a dual-socket machine). */
enum flush_at_once { AT_ONCE_NONE, AT_ONCE_SOCKET, AT_ONCE_ALL };

struct flush_probe_config {
	uint32_t reps;      /* per point */
	uint32_t max_kib;   /* largest footprint, 0: twice the LLC */
	uint32_t cpus;      /* CPUs swept one by one, 0: all */
	enum flush_at_once at_once;
};

/* After the bring-up, on the BSP. True when every sweep and round
 * finished (an AP that does not return in time is reported and left). */
bool flush_probe_run(const struct flush_probe_config *cfg);

/* The result page's lines ("WBINVD here: 2.10 ms clean, ..."), *n of
 * them; n = 0 when no probe ran. */
const char *const *flush_probe_page(uint32_t *n);

#endif
