/* SPDX-License-Identifier: MIT */
/* The out-of-line helpers gcc calls for 64-bit operations in the i386
 * kernel: uint64_t / and % (TSC and nanosecond arithmetic: libgcc's
 * __udivdi3 and friends) and 8-byte atomic loads and stores (libatomic's
 * __atomic_load_8/__atomic_store_8, the TSC stamps the AP publishes).
 * Debian's gcc has no 32-bit libgcc unless gcc-multilib is installed;
 * these few functions spare the build that package. Only ARCH=i386
 * builds this file (Makefile). */
#include <stdint.h>

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem);
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

/* EDX:EAX / d with EDX < d: one DIV, no overflow (SDM Vol. 2A, DIV). */
static uint32_t div64_32(uint32_t hi, uint32_t lo, uint32_t d, uint32_t *r)
{
	uint32_t q;
	__asm__("divl %4" : "=a"(q), "=d"(*r) : "a"(lo), "d"(hi), "rm"(d));
	return q;
}

uint64_t __udivmoddi4(uint64_t n, uint64_t d, uint64_t *rem)
{
	uint32_t n_hi = (uint32_t)(n >> 32), n_lo = (uint32_t)n;
	uint64_t q, r;

	if (d == 0) {
		/* As the hardware would: a divide error. */
		__asm__ volatile("divl %0" :: "r"(0u), "a"(0u), "d"(0u));
	}
	if ((d >> 32) == 0) {
		/* The usual case (a TSC rate, 1000, 10^6...): long division in
		 * two DIVs, the high half first; its remainder < d. */
		uint32_t d32 = (uint32_t)d, r_hi, r_lo;
		uint32_t q_hi = div64_32(0, n_hi, d32, &r_hi);
		uint32_t q_lo = div64_32(r_hi, n_lo, d32, &r_lo);
		q = (uint64_t)q_hi << 32 | q_lo;
		r = r_lo;
	} else {
		/* d >= 2^32: the quotient fits in 32 bits; shift and subtract. */
		q = 0;
		r = n;
		for (int bit = 31; bit >= 0; bit--) {
			if ((d << bit) >> bit == d && r >= d << bit) {
				r -= d << bit;
				q |= 1ull << bit;
			}
		}
	}
	if (rem)
		*rem = r;
	return q;
}

uint64_t __udivdi3(uint64_t n, uint64_t d)
{
	return __udivmoddi4(n, d, 0);
}

uint64_t __umoddi3(uint64_t n, uint64_t d)
{
	uint64_t r;
	__udivmoddi4(n, d, &r);
	return r;
}

/* C99 §6.5.5: the quotient truncates toward zero, the remainder takes the
 * dividend's sign. */
int64_t __divdi3(int64_t n, int64_t d)
{
	uint64_t un = n < 0 ? -(uint64_t)n : (uint64_t)n;
	uint64_t ud = d < 0 ? -(uint64_t)d : (uint64_t)d;
	uint64_t q = __udivmoddi4(un, ud, 0);
	return (n < 0) != (d < 0) ? -(int64_t)q : (int64_t)q;
}

int64_t __moddi3(int64_t n, int64_t d)
{
	uint64_t un = n < 0 ? -(uint64_t)n : (uint64_t)n;
	uint64_t ud = d < 0 ? -(uint64_t)d : (uint64_t)d;
	uint64_t r;
	__udivmoddi4(un, ud, &r);
	return n < 0 ? -(int64_t)r : (int64_t)r;
}

/* 8-byte atomics: LOCK CMPXCHG8B (Pentium and later) is the one general-
 * register instruction that reads and writes 64 bits atomically (SDM
 * Vol. 2A, CMPXCHG8B; Vol. 3A §9.1.1). The kernel builds with
 * -mgeneral-regs-only, so gcc cannot use an SSE or x87 move instead.
 * Every such access is sequentially consistent: a locked instruction is a
 * full barrier (§9.2.2). */
static uint64_t cmpxchg8b(volatile void *ptr, uint64_t expected, uint64_t desired)
{
	uint32_t lo = (uint32_t)expected, hi = (uint32_t)(expected >> 32);
	__asm__ volatile("lock cmpxchg8b %2"
			 : "+a"(lo), "+d"(hi), "+m"(*(volatile uint64_t *)ptr)
			 : "b"((uint32_t)desired), "c"((uint32_t)(desired >> 32))
			 : "memory", "cc");
	return ((uint64_t)hi << 32) | lo; /* the value found */
}

uint64_t __atomic_load_8(const volatile void *ptr, int order);
void __atomic_store_8(volatile void *ptr, uint64_t val, int order);

uint64_t __atomic_load_8(const volatile void *ptr, int order)
{
	(void)order;
	/* Compare with 0 and store 0 if equal: the value is unchanged either
	 * way, and the old value comes back. */
	return cmpxchg8b((volatile void *)ptr, 0, 0);
}

void __atomic_store_8(volatile void *ptr, uint64_t val, int order)
{
	(void)order;
	uint64_t seen = *(volatile uint64_t *)ptr; /* a guess; may be torn */
	for (;;) {
		uint64_t now = cmpxchg8b(ptr, seen, val);
		if (now == seen)
			return;
		seen = now;
	}
}
