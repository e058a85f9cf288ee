/* SPDX-License-Identifier: MIT */
#include "smp/icount_fence.h"

#include "kernel/x86.h"

void icount_fence_stop(void)
{
	cpu_relax();
	lapic_timer_stop();
}
