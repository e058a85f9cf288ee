/* SPDX-License-Identifier: MIT */
#include "wings/experiments/cache_ops.h"

#include "kernel/x86.h"

static bool leaf7_ebx_bit(unsigned bit)
{
	return cpuid(0, 0).eax >= 7 && (cpuid(7, 0).ebx & (1u << bit));
}

bool cache_has_wbnoinvd(void)
{
	return cpuid(0x80000000, 0).eax >= 0x80000008 &&
	       (cpuid(0x80000008, 0).ebx & (1u << 9));
}

bool cache_has_clflushopt(void)
{
	return leaf7_ebx_bit(23);
}

bool cache_has_clwb(void)
{
	return leaf7_ebx_bit(24);
}
