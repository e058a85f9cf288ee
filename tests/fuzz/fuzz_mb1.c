/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the Multiboot1 info parser (kernel/multiboot.c). The
 * input is physical memory from 0: the info structure at 0, and every
 * pointer in it (command line, loader name, memory map) resolved in the
 * same memory through the map function. */
#include <stdint.h>
#include <string.h>

#include "kernel/multiboot.h"
#include "fuzz_map.h"

static struct boot_info bi;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_mem m = { .data = data, .size = size, .base = 0 };

	multiboot_parse(MB1_BOOT_MAGIC, data, size, 0, fuzz_map, &m, &bi,
			fuzz_diag, 0);
	(void)strlen(bi.cmdline);
	(void)strlen(bi.loader_name);
	if (bi.mem_count > APSTART_MAX_MEM_RANGES)
		abort();
	fuzz_mem_free(&m);
	return 0;
}
