/* SPDX-License-Identifier: MIT */
/* NMI handling (kernel/nmi.h). The legacy sources are told apart the way
 * Linux 6.6 does in arch/x86/kernel/nmi.c, default_do_nmi(): under
 * nmi_reason_lock (one CPU at a time, since port B is one register for
 * the whole machine) read port 0x61; SERR# set: pci_serr_error() (clear
 * and disable the SERR# line: write bit 2 with the low nibble kept);
 * else IOCHK# set: io_check_error() (write bit 3 to clear, wait, write it
 * back to 0 to re-enable the line); neither: unknown_nmi_error(), "NMI
 * received for unknown reason", and carry on. Linux panics only when
 * told to (panic_on_unrecovered_nmi, panic_on_io_nmi, unknown_nmi_panic);
 * apstart never does: the NMI is counted, the sample around it marked. */
#include "kernel/nmi.h"

#include <stdbool.h>

#include "kernel/apic_id.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

/* io_check_error() waits 20000 x 100 us with IOCHK# held cleared before
 * it re-enables the line (a source that keeps asserting it then cannot
 * storm the machine). */
#define IOCHK_REENABLE_US (20000u * 100u)

static volatile uint32_t total;
/* Port B's lock: 0, or the holder's APIC ID + 1 (see nmi_cpu_reset()). */
static volatile uint32_t reason_lock;
static void (*volatile hook)(uint8_t reason);

void nmi_set_hook(void (*fn)(uint8_t reason))
{
	hook = fn;
}

uint32_t nmi_total(void)
{
	return __atomic_load_n(&total, __ATOMIC_RELAXED);
}

const char *nmi_reason_name(uint8_t reason)
{
	if (reason & NMI_REASON_SERR)
		return "serr";
	if (reason & NMI_REASON_IOCHK)
		return "iochk";
	return "unknown";
}

/* Never waited for (Linux spins on nmi_reason_lock): a CPU restarted by
 * INIT in its NMI handler never gives the lock back (seen: every vCPU of
 * nmi-storm-cycles spinning here, 1 run in 8). An NMI that finds it taken
 * is the event another CPU is reading right now (extnmi=all delivers one
 * to every CPU): counted, its reason unknown here. */
static bool trylock_reason(void)
{
	uint32_t free = 0;
	return __atomic_compare_exchange_n(&reason_lock, &free, cpu_apic_id() + 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static void unlock_reason(void)
{
	__atomic_store_n(&reason_lock, 0, __ATOMIC_RELEASE);
}

void nmi_cpu_reset(uint32_t apic_id)
{
	uint32_t held = apic_id + 1;
	__atomic_compare_exchange_n(&reason_lock, &held, 0, false, __ATOMIC_RELEASE,
				    __ATOMIC_RELAXED);
}

static uint8_t read_and_clear_reason(void)
{
	if (!trylock_reason())
		return 0;
	uint8_t reason = inb(NMI_REASON_PORT);
	uint8_t keep = reason & NMI_REASON_CLEAR_MASK;

	if (reason & NMI_REASON_SERR) {
		outb(keep | NMI_REASON_CLEAR_SERR, NMI_REASON_PORT);
	} else if (reason & NMI_REASON_IOCHK) {
		outb(keep | NMI_REASON_CLEAR_IOCHK, NMI_REASON_PORT);
		if (tsc_info()->khz) {
			uint64_t deadline = tsc_deadline_us(IOCHK_REENABLE_US);
			while (!tsc_passed(deadline))
				cpu_relax();
		}
		outb(keep, NMI_REASON_PORT);
	}
	unlock_reason();
	return reason;
}

static void nmi_handle(void)
{
	uint8_t reason = read_and_clear_reason();
	void (*fn)(uint8_t) = hook;

	__atomic_add_fetch(&total, 1, __ATOMIC_RELAXED);
	if (fn)
		fn(reason);
}

void nmi_init(void)
{
	trap_set_nmi_handler(nmi_handle);
}
