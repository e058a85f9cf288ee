/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the Multiboot2 info parser (kernel/multiboot.c). The
 * input is the info block; max_len is its size, as kmain bounds it. */
#include <stdint.h>
#include <string.h>

#include "kernel/multiboot.h"
#include "fuzz_map.h"

static struct boot_info bi;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_mem m = { .data = data, .size = size, .base = 0x10000 };

	multiboot_parse(MB2_BOOT_MAGIC, data, size, 0x10000, fuzz_map, &m, &bi,
			fuzz_diag, 0);
	/* Strings handed out must be terminated within the block. */
	(void)strlen(bi.cmdline);
	(void)strlen(bi.loader_name);
	if (bi.mem_count > APSTART_MAX_MEM_RANGES)
		abort();
	if (bi.rsdp && ((const uint8_t *)bi.rsdp < data ||
			(const uint8_t *)bi.rsdp + bi.rsdp_len > data + size))
		abort();
	fuzz_mem_free(&m);
	return 0;
}
