/* SPDX-License-Identifier: MIT */
/* The cache write-back instructions the flush probe times, and whether
 * this CPU has them. Never INVD: it drops dirty lines, i.e. memory. */
#ifndef APSTART_CACHE_OPS_H
#define APSTART_CACHE_OPS_H

#include <stdbool.h>
#include <stdint.h>

/* CPUID 8000_0008h EBX[9] (AMD APM Vol. 3, "WBNOINVD"; Intel SDM Vol. 2D,
 * WBNOINVD: same bit). */
bool cache_has_wbnoinvd(void);
/* CPUID 7.0 EBX[23] CLFLUSHOPT, EBX[24] CLWB (SDM Vol. 2A, CPUID). */
bool cache_has_clflushopt(void);
bool cache_has_clwb(void);

static inline void cache_wbnoinvd(void)
{
	/* F3 0F 09: executes as WBINVD on CPUs without it (SDM Vol. 2D). */
	__asm__ volatile(".byte 0xf3, 0x0f, 0x09" ::: "memory");
}

static inline void cache_clflushopt(const volatile void *p)
{
	__asm__ volatile("clflushopt (%0)" :: "r"(p) : "memory");
}

static inline void cache_clwb(const volatile void *p)
{
	__asm__ volatile("clwb (%0)" :: "r"(p) : "memory");
}

/* CLFLUSHOPT and CLWB are ordered only by fencing instructions (SDM Vol.
 * 2A, CLFLUSHOPT: "... ordered with respect to ... SFENCE"): the write-
 * backs are complete, for the timer, after the SFENCE. */
static inline void cache_sfence(void)
{
	__asm__ volatile("sfence" ::: "memory");
}

#endif
