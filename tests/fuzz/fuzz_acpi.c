/* SPDX-License-Identifier: MIT */
/* libFuzzer target: kernel/acpi.c. The input is physical memory from
 * address 0; its first bytes are the RSDP copy a boot loader hands over
 * (RSDT/XSDT/MADT/FADT/HPET addresses point into the input; checksums
 * fixed up, see fix_checksums()). Then the same memory is scanned for an
 * RSDP as an EBDA at 0x400. */
#include <stdint.h>

#include "kernel/acpi.h"
#include "fuzz_map.h"

static struct acpi_info info;

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Make the checksum byte at p[at] right for n bytes. */
static void fix_sum(uint8_t *p, size_t n, size_t at)
{
	uint8_t s = 0;
	p[at] = 0;
	for (size_t i = 0; i < n; i++)
		s = (uint8_t)(s + p[i]);
	p[at] = (uint8_t)-s;
}

/* Random bytes almost never carry a right checksum, so the parser would
 * stop at the first table. Unless the input's last byte is odd (which
 * keeps bad checksums in play), fix them along the paths the parser
 * takes: the RSDP at 0, the RSDT/XSDT it names, every table they list
 * (addresses inside the input, lengths as the tables say). */
static void fix_checksums(uint8_t *m, size_t size)
{
	if (size < 36 || (m[size - 1] & 1))
		return;
	fix_sum(m, 20, 8);
	uint32_t rlen = get32(m + 20);
	if (rlen >= 36 && rlen <= size)
		fix_sum(m, rlen, 32);
	uint64_t roots[2] = { get32(m + 16), get32(m + 24) | (uint64_t)get32(m + 28) << 32 };
	for (int r = 0; r < 2; r++) {
		uint64_t at = roots[r];
		if (at >= size || size - at < 36)
			continue;
		uint32_t len = get32(m + at + 4);
		if (len < 36 || len > size - at)
			continue;
		unsigned esize = r ? 8 : 4;
		for (uint32_t off = 36; off + esize <= len; off += esize) {
			uint64_t t = get32(m + at + off);
			if (esize == 8)
				t |= (uint64_t)get32(m + at + off + 4) << 32;
			if (t >= size || size - t < 36 || t == at)
				continue;
			uint32_t tlen = get32(m + t + 4);
			if (tlen >= 36 && tlen <= size - t)
				fix_sum(m + t, tlen, 9);
		}
		fix_sum(m + at, len, 9);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *mem = malloc(size ? size : 1);
	if (!mem)
		return 0;
	memcpy(mem, data, size);
	fix_checksums(mem, size);
	data = mem;
	struct fuzz_mem m = { .data = data, .size = size, .base = 0 };

	acpi_parse(data, size, 0, fuzz_map, &m, &info, fuzz_diag, 0);
	if (info.cpu_count > APSTART_MAX_CPUS)
		abort();
	fuzz_mem_free(&m);

	/* The input as low memory from 0x400 (where the EBDA's KiB would be
	 * scanned), then parsed from the RSDP found there. */
	m.base = 0x400;
	uint64_t rsdp = acpi_scan_rsdp(fuzz_map, &m, 0x400);
	if (rsdp) {
		/* As kmain: readable up to the end of the scanned memory. */
		size_t len = (size_t)(m.base + m.size - rsdp);
		const void *p = fuzz_map(&m, rsdp, len);
		if (!p)
			abort(); /* the scan returned an address outside it */
		acpi_parse(p, len, rsdp, fuzz_map, &m, &info, fuzz_diag, 0);
	}
	fuzz_mem_free(&m);
	free(mem);
	return 0;
}
