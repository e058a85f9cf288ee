/* SPDX-License-Identifier: MIT */
/* The ramoops console zone, fed by the console (wings/pstore/pstore.h). */
#include "wings/pstore/pstore.h"

#include "kernel/cpu.h"
#include "kernel/console.h"
#include "kernel/x86.h"

/* CPUID 1 EDX[19] CLFSH (SDM Vol. 2A, CPUID). */
#define CPUID1_EDX_CLFSH (1u << 19)

static struct pstore_status st;
static struct pram_zone zone;
static uint64_t written;
static uint32_t line_bytes;
/* What went to serial before the zone was opened (or known to be
 * refused): the zone starts with the run's first line. */
#define EARLY_MAX 8192
static char early[EARLY_MAX];
static uint32_t early_len;
static bool early_over;

/* Called by the zone writer for each span it stored, under the console
 * lock: CLFLUSH is ordered with the stores before it (SDM Vol. 2A,
 * CLFLUSH), so the text is in RAM before the header that counts it. */
static void push_out(void *ctx, const void *p, size_t len)
{
	(void)ctx;
	if (!st.clflush)
		return;
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(line_bytes - 1);
	for (; a < (uintptr_t)p + len; a += line_bytes)
		clflush((const void *)a);
}

static void keep(const char *bytes, uint32_t n)
{
	if (st.on) {
		pram_write(&zone, bytes, n);
		written += n;
	} else if (!early_over) {
		for (uint32_t i = 0; i < n && early_len < EARLY_MAX; i++)
			early[early_len++] = bytes[i];
	}
}

/* Under the console lock, in print order: what went to serial, byte for
 * byte as sent (kernel/console.c sends LF as CR LF), in pieces (small:
 * this may run on an AP's stack, inside an exception). */
void pstore_console_text(unsigned targets, const char *text)
{
	char sent[128];
	uint32_t n = 0;

	if (!(targets & CON_SERIAL) || (!st.on && early_over))
		return;
	for (const char *p = text; *p; p++) {
		if (n + 2 > sizeof sent) {
			keep(sent, n);
			n = 0;
		}
		if (*p == '\n')
			sent[n++] = '\r';
		sent[n++] = *p;
	}
	keep(sent, n);
}

void pstore_early_end(void)
{
	early_over = true;
}

void pstore_start(uint64_t addr, uint64_t size)
{
	st.addr = addr;
	st.size = size;
	st.clflush = (cpuid(1, 0).edx & CPUID1_EDX_CLFSH) != 0;
	line_bytes = cpu_clflush_bytes();
	st.found = pram_open(&zone, (void *)(uintptr_t)addr, (uint32_t)size, push_out, 0,
			     &st.held);
	bool taken = console_lock();
	pram_write(&zone, early, early_len);
	written = early_len;
	early_over = st.on = true;
	console_unlock(taken);
}

const struct pstore_status *pstore_status(void)
{
	return &st;
}

uint64_t pstore_written(void)
{
	return written;
}

void pstore_flush(void)
{
	if (!st.on)
		return;
	if (st.clflush)
		mfence();
	else
		wbinvd();
}
