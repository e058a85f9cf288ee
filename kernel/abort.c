/* SPDX-License-Identifier: MIT */
#include "kernel/abort.h"

#include <stdint.h>

#include "kernel/x86.h"

static volatile uint32_t ended;
static abort_handler on_abort;

void abort_set_handler(abort_handler handler)
{
	on_abort = handler;
}

bool run_claim_end(void)
{
	return !__atomic_exchange_n(&ended, 1, __ATOMIC_ACQ_REL);
}

bool run_ended(void)
{
	return __atomic_load_n(&ended, __ATOMIC_ACQUIRE) != 0;
}

void halt_forever(void)
{
	for (;;) {
		cli();
		hlt();
	}
}

void abort_run(const char *why)
{
	if (run_claim_end() && on_abort)
		on_abort(why);
	halt_forever();
}
