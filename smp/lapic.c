/* SPDX-License-Identifier: MIT */
/* xAPIC / x2APIC register access (SDM Vol. 3A §11.4-11.6 xAPIC, §11.12
 * x2APIC: MSR 0x800 + (MMIO offset >> 4); the ICR becomes one 64-bit MSR
 * with a 32-bit destination and no delivery-status bit). */
#include "smp/lapic.h"

#include "kernel/console.h"
#include "kernel/paging.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"

/* xAPIC register offsets (SDM Vol. 3A Table 11-1). */
#define REG_ID     XAPIC_ID_REG
#define REG_TPR    0x080
#define REG_EOI    0x0B0
#define REG_SVR    0x0F0
#define REG_ESR    0x280
#define REG_ICR_LO 0x300
#define REG_ICR_HI 0x310
#define REG_LVT_TIMER  0x320
#define REG_LVT_LINT1  0x360
#define REG_TIMER_INIT 0x380
#define REG_TIMER_CUR  0x390
#define REG_TIMER_DIV  0x3E0
#define SVR_ENABLE (1u << 8)
#define LVT_MASKED (1u << 16)
#define LVT_PERIODIC (1u << 17)
#define LVT_DM_NMI (4u << 8) /* delivery mode NMI (SDM Vol. 3A Figure 11-8) */
#define TIMER_DIV_1 0xB /* divide configuration: by 1 (SDM Vol. 3A Figure 11-10) */
#define X2APIC_MSR(reg) (0x800u + ((reg) >> 4))

#define ICR_IDLE_TIMEOUT_US 100000 /* Linux's safe_apic_wait_icr_idle bound */

static struct lapic_status st;
static enum extnmi extnmi;
static uint32_t timer_khz;
static volatile uint32_t *mmio;

static uint32_t rd(uint32_t reg)
{
	if (st.x2apic)
		return (uint32_t)rdmsr(X2APIC_MSR(reg));
	return mmio[reg / 4];
}

static void wr(uint32_t reg, uint32_t v)
{
	if (st.x2apic)
		wrmsr(X2APIC_MSR(reg), v);
	else
		mmio[reg / 4] = v;
}

const struct lapic_status *lapic_status(void)
{
	return &st;
}

static void software_enable(void)
{
	wr(REG_TPR, 0);
	wr(REG_SVR, SVR_ENABLE | VEC_SPURIOUS);
}

bool lapic_init_bsp(enum x2apic_pref pref, bool need_x2apic)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);

	st.x2apic_supported = (cpuid(1, 0).ecx >> 21) & 1;
	st.firmware_x2apic = (base & APIC_BASE_EN) && (base & APIC_BASE_EXTD);
	st.mmio_phys = base & APIC_BASE_ADDR;

	if (!(cpuid(1, 0).edx & (1u << 9))) {
		kprintf("lapic: CPUID reports no local APIC\n");
		return false;
	}
	if (!(base & APIC_BASE_EN)) {
		/* Globally disabled by firmware: enabling keeps the base. */
		base |= APIC_BASE_EN;
		wrmsr(MSR_IA32_APIC_BASE, base);
	}

	if (st.firmware_x2apic) {
		st.x2apic = true;
		if (pref == X2APIC_OFF)
			kprintf("lapic: x2apic=off ignored: firmware handed over "
				"in x2APIC mode (leaving it needs a full APIC reset)\n");
	} else if (st.x2apic_supported &&
		   (pref == X2APIC_ON || (pref == X2APIC_AUTO && need_x2apic))) {
		/* xAPIC -> x2APIC: set EXTD with EN already set (SDM Vol. 3A
		 * §11.12.5, Figure 11-27). Linux enables x2APIC whenever the
		 * CPU has it and nox2apic is not given (try_to_enable_x2apic(),
		 * arch/x86/kernel/apic/apic.c); it caps the usable IDs at 255
		 * only without interrupt remapping, for device interrupts,
		 * which apstart does not route: an IPI reaches any 32-bit ID. */
		if (pref == X2APIC_AUTO)
			kprintf("lapic: the MADT lists APIC IDs above 254: switching "
				"to x2APIC (32-bit destinations)\n");
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EN | APIC_BASE_EXTD);
		st.x2apic = true;
	} else {
		if (pref == X2APIC_ON)
			kprintf("lapic: x2apic=on but the CPU has no x2APIC; using xAPIC\n");
		if (need_x2apic && st.x2apic_supported)
			kprintf("lapic: the MADT lists APIC IDs above 254; they need "
				"x2APIC, which x2apic=off/nox2apic forbids: those CPUs "
				"are skipped\n");
		else if (need_x2apic)
			kprintf("lapic: the MADT lists APIC IDs above 254; they need "
				"x2APIC, which this CPU lacks: those CPUs are skipped\n");
		st.x2apic = false;
	}

	if (!st.x2apic) {
		mmio = paging_map_phys(st.mmio_phys, 4096, MAP_UC);
		if (!mmio) {
			kprintf("lapic: cannot map xAPIC registers at 0x%llx\n",
				(unsigned long long)st.mmio_phys);
			return false;
		}
	}
	software_enable();
	trap_set_eoi(lapic_eoi);
	return true;
}

void lapic_init_ap(void)
{
	uint64_t base = rdmsr(MSR_IA32_APIC_BASE);

	/* Disabled -> xAPIC -> x2APIC, one step at a time: going straight
	 * from disabled to x2APIC faults (the state transitions cited above). */
	if (!(base & APIC_BASE_EN)) {
		base |= APIC_BASE_EN;
		wrmsr(MSR_IA32_APIC_BASE, base);
	}
	if (st.x2apic && !(base & APIC_BASE_EXTD))
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EXTD);
	software_enable();
}

/* LINT1 is where the platform's NMI arrives (the MADT's Local APIC NMI
 * structures name it; ACPI 6.5 §5.2.12.7). INIT masks every LVT entry
 * (SDM Vol. 3A §11.4.7.3), so an AP gets none until it unmasks LINT1.
 * Linux's setup_local_APIC() (arch/x86/kernel/apic/apic.c) programs
 * LINT1 as NMI on the boot CPU only, masked on the others, unless
 * apic_extnmi=all|none says otherwise; extnmi= does the same here. */
static void route_lint1(bool on)
{
	wr(REG_LVT_LINT1, LVT_DM_NMI | (on ? 0 : LVT_MASKED));
}

void lapic_set_extnmi(enum extnmi mode)
{
	extnmi = mode;
	route_lint1(mode != EXTNMI_NONE);
}

void lapic_extnmi_ap(void)
{
	if (extnmi == EXTNMI_ALL)
		route_lint1(true);
}

uint32_t lapic_id(void)
{
	if (st.x2apic)
		return rd(REG_ID);
	return rd(REG_ID) >> 24;
}

bool lapic_reachable(uint32_t dest)
{
	return st.x2apic || dest <= XAPIC_MAX_ID;
}

void lapic_eoi(void)
{
	wr(REG_EOI, 0);
}

static bool wait_icr_idle(void)
{
	if (st.x2apic)
		return true; /* no delivery status in x2APIC mode */
	uint64_t deadline = tsc_deadline_us(ICR_IDLE_TIMEOUT_US);
	while (rd(REG_ICR_LO) & ICR_BUSY) {
		if (tsc_passed(deadline))
			return false;
		cpu_relax();
	}
	return true;
}

static bool write_icr(uint32_t dest, uint32_t icr_low, void (*after_write)(void))
{
	/* Never truncate: dest << 24 of 0x100 is APIC ID 0 (the BSP), of
	 * 0xFF or 0x1FF the broadcast. Callers skip such CPUs; this is the
	 * last guard. */
	if (!lapic_reachable(dest)) {
		if (after_write)
			after_write();
		return false;
	}
	if (st.x2apic) {
		/* WRMSR to the x2APIC ICR is not ordered with earlier stores
		 * (SDM Vol. 3A §11.12.3): fence so the target sees our
		 * mailbox write before the interrupt. */
		__asm__ volatile("mfence; lfence" ::: "memory");
		wrmsr(X2APIC_MSR(REG_ICR_LO), ((uint64_t)dest << 32) | icr_low);
		if (after_write)
			after_write();
		return true;
	}
	if (!wait_icr_idle()) {
		if (after_write)
			after_write();
		return false;
	}
	wr(REG_ICR_HI, dest << 24);
	wr(REG_ICR_LO, icr_low);
	if (after_write)
		after_write();
	return true;
}

bool lapic_send_ipi_all_but_self(uint32_t icr_low)
{
	icr_low |= ICR_ALL_BUT_SELF;
	if (st.x2apic) {
		__asm__ volatile("mfence; lfence" ::: "memory");
		wrmsr(X2APIC_MSR(REG_ICR_LO), icr_low); /* destination ignored */
		return true;
	}
	if (!wait_icr_idle())
		return false;
	wr(REG_ICR_HI, 0);
	wr(REG_ICR_LO, icr_low);
	return wait_icr_idle();
}

static bool send_ipi(uint32_t dest, uint32_t icr_low, void (*after_write)(void))
{
	return write_icr(dest, icr_low, after_write) && wait_icr_idle();
}

/* Two entry points: without a hook (every IPI but one) the compiler
 * specialises send_ipi() and keeps the hook test out of the fast path. */
bool lapic_send_ipi(uint32_t dest, uint32_t icr_low)
{
	return send_ipi(dest, icr_low, NULL);
}

bool lapic_send_ipi_then(uint32_t dest, uint32_t icr_low, void (*after_write)(void))
{
	return send_ipi(dest, icr_low, after_write);
}

bool lapic_write_icr(uint32_t dest, uint32_t icr_low, void (*after_write)(void))
{
	return write_icr(dest, icr_low, after_write);
}

bool lapic_wait_icr_idle(void)
{
	return wait_icr_idle();
}

void lapic_clear_esr(void)
{
	wr(REG_ESR, 0);
	wr(REG_ESR, 0);
}

uint32_t lapic_read_esr(void)
{
	wr(REG_ESR, 0);
	return rd(REG_ESR);
}

void lapic_timer_calibrate(void)
{
	wr(REG_TIMER_DIV, TIMER_DIV_1);
	wr(REG_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	wr(REG_TIMER_INIT, 0xFFFFFFFFu);
	udelay(1000);
	uint32_t elapsed = 0xFFFFFFFFu - rd(REG_TIMER_CUR);
	wr(REG_TIMER_INIT, 0);
	timer_khz = elapsed ? elapsed : 1;
}

uint32_t lapic_timer_khz(void)
{
	return timer_khz;
}

void lapic_timer_periodic_us(uint32_t us)
{
	uint64_t count = (uint64_t)timer_khz * us / 1000;
	if (count == 0)
		count = 1;
	if (count > 0xFFFFFFFFu)
		count = 0xFFFFFFFFu;
	lapic_timer_periodic_ticks((uint32_t)count);
}

void lapic_timer_periodic_ticks(uint32_t ticks)
{
	wr(REG_TIMER_DIV, TIMER_DIV_1);
	wr(REG_LVT_TIMER, LVT_PERIODIC | VEC_TIMER);
	wr(REG_TIMER_INIT, ticks ? ticks : 1);
}

void lapic_timer_stop(void)
{
	wr(REG_LVT_TIMER, LVT_MASKED | VEC_TIMER);
	wr(REG_TIMER_INIT, 0);
}
