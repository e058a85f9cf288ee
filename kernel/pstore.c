/* SPDX-License-Identifier: MIT */
/* The ramoops console zone as the console's mirror (kernel/pstore.h). */
#include "kernel/pstore.h"

#include "kernel/cache_ops.h"
#include "kernel/console.h"
#include "kernel/x86.h"

/* CPUID 1 EDX[19] CLFSH (SDM Vol. 2A, CPUID). */
#define CPUID1_EDX_CLFSH (1u << 19)

static struct pstore_status st;
static struct pram_zone zone;
static uint64_t written;
static uint32_t line_bytes;

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

static void mirror(const char *bytes, uint32_t n)
{
	pram_write(&zone, bytes, n);
	written += n;
}

void pstore_start(uint64_t addr, uint64_t size)
{
	st.addr = addr;
	st.size = size;
	st.clflush = (cpuid(1, 0).edx & CPUID1_EDX_CLFSH) != 0;
	line_bytes = cache_line_bytes();
	st.found = pram_open(&zone, (void *)(uintptr_t)addr, (uint32_t)size, push_out, 0,
			     &st.held);
	st.on = true;
	console_set_serial_mirror(mirror);
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
