/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the kernel command line parser (app/options.c). Every
 * value it leaves must be in its documented range. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/options.h"
#include "fuzz_map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct options o;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	options_set_defaults(&o);
	options_parse(&o, s, 64, fuzz_diag, fuzz_diag, 0);
	if (o.cycles < 1 || o.cycles > 100000 || o.maxcpus > 64 ||
	    o.sipi_count < 1 || o.sipi_count > 2 || o.ap_timeout_ms < 1 ||
	    o.console_port > 3 || !o.console_baud || 115200 % o.console_baud)
		abort();
	/* pstore=: none, or a power of two 4K..1G at a multiple of 4 that
	 * does not wrap; firmware= and exit= among their words. */
	if (o.pstore_size && (o.pstore_size < PSTORE_SIZE_MIN || o.pstore_size > PSTORE_SIZE_MAX ||
			      (o.pstore_size & (o.pstore_size - 1)) || o.pstore_addr % 4 ||
			      o.pstore_addr > UINT64_MAX - o.pstore_size))
		abort();
	if (!o.pstore_size && o.pstore_addr)
		abort();
	if (o.firmware > FIRMWARE_UEFI || o.exit > EXIT_REBOOT)
		abort();
	free(s);
	return 0;
}
