/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the kernel command line parser (app/options.c). Every
 * value it leaves must be in its documented range. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app/options.h"
#include "fuzz_map.h"
#include "wings/pstore/pstore_option.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	struct options o;
	/* The core's options and a wing's (pstore=, wings/pstore/). */
	struct option_table pstore = OPTION_TABLE(pstore_option_rows, &pstore_options);
	struct option_targets t = { .core = &o, .wings = &pstore, .wing_count = 1,
				    .absent = "save:nvram probe:experiments" };
	const struct pstore_zone_option *z = &pstore_options.pstore;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	options_set_defaults(&t);
	options_parse(&t, s, 64, fuzz_diag, fuzz_diag, 0);
	if (o.cycles < 1 || o.cycles > 100000 || o.maxcpus > 64 ||
	    o.wake.sipi_count < 1 || o.wake.sipi_count > 2 || o.wake.ap_timeout_ms < 1 ||
	    o.console_port > 3 || !o.console_baud || 115200 % o.console_baud)
		abort();
	/* pstore=: none, or a power of two 4K..1G at a multiple of 4 that
	 * does not wrap; firmware= and exit= among their words. */
	if (z->size && (z->size < PSTORE_SIZE_MIN || z->size > PSTORE_SIZE_MAX ||
			(z->size & (z->size - 1)) || z->addr % 4 || z->addr > UINT64_MAX - z->size))
		abort();
	if (!z->size && z->addr)
		abort();
	if (o.firmware > FIRMWARE_UEFI || o.exit > EXIT_REBOOT)
		abort();
	free(s);
	return 0;
}
