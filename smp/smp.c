/* SPDX-License-Identifier: MIT */
/* CPU table: built from the MADT, indexed in MADT order, searched by
 * APIC ID. Each CPU gets its own stack and trampoline table slot. */
#include "smp/smp.h"

#include "smp/lapic.h"
#include "kernel/bootmem.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/warn.h"

#define AP_STACK_SIZE 8192

struct cpu cpus[APSTART_MAX_CPUS];
uint32_t cpu_count;
enum bsp_wait smp_bsp_wait;
uint32_t smp_bsp_apic;

/* The trampoline's per-CPU table, one slot per CPU in cpus[], from free
 * RAM (smp_setup()): 80 bytes a slot would take 40 KiB of the image for
 * APSTART_MAX_CPUS where a small machine has a few. */
struct tramp_cpu *tramp_cpus;

struct cpu *cpu_by_apic(uint32_t apic_id)
{
	for (uint32_t i = 0; i < cpu_count; i++)
		if (cpus[i].apic_id == apic_id)
			return &cpus[i];
	return 0;
}

uint32_t smp_count_state(enum cpu_state s)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < cpu_count; i++)
		n += cpus[i].state == (uint32_t)s;
	return n;
}

/* SDM Vol. 3A §9.4.4.1 gives 10 ms between INIT and the first SIPI for
 * the original MP protocol. Processors from P6 (Intel family 6) and AMD
 * K8 (family 0xF) on do not need it; the test is "family at least", so
 * later families (Intel 15, 18, 19...) keep the fast path. Unknown
 * vendors get the legacy delay. */
uint32_t smp_default_init_delay_us(void)
{
	uint32_t family = cpu_family();
	if (cpu_is_intel() && family >= 6)
		return 0;
	if (cpu_is_amd() && family >= 0xF)
		return 0;
	return 10000;
}

/* Why a CPU the MADT lists cannot be sent an IPI in the APIC mode in
 * use: an ID above 254 needs x2APIC (never truncated to 8 bits). Linux
 * likewise leaves out CPUs it cannot address (x2apic_set_max_apicid()). */
static void skip_unreachable(struct cpu *c)
{
	bool supported = lapic_status()->x2apic_supported;

	c->state = CPU_SKIPPED;
	c->skip_reason = supported
		? "APIC ID above 254 needs x2APIC, forbidden by x2apic=off/nox2apic"
		: "APIC ID above 254 needs x2APIC, which this CPU lacks";
	c->skip_code = supported ? "x2apic_forbidden" : "x2apic_unsupported";
	warn_record("what=cpu_unreachable apic=%u reason=%s", c->apic_id, c->skip_code);
}

static struct cpu *add_cpu(uint32_t apic_id, uint32_t madt_flags, bool bsp)
{
	struct cpu *c = &cpus[cpu_count];

	*c = (struct cpu){
		.apic_id = apic_id,
		.index = cpu_count,
		.madt_flags = madt_flags,
		.bsp = bsp,
		.state = bsp ? CPU_ONLINE : CPU_ABSENT,
	};
	tramp_cpus[cpu_count] = (struct tramp_cpu){
		.apic_id = apic_id,
		.index = cpu_count,
	};
	c->slot = &tramp_cpus[cpu_count];
	cpu_count++;
	return c;
}

static const char *broadcast_refusal;

/* bringup=broadcast sends INIT and STARTUP to every APIC but the BSP's at
 * once (SDM Vol. 3A §11.6.1, the all-excluding-self shorthand, valid for
 * INIT and Start-Up by its Table 11-3; x2APIC keeps it, §11.12.9). That
 * wakes every processor there is, so only when the MADT is whole and
 * each CPU it lists is one we start:
 * - no CPU skipped: not enabled (it would be woken without a hot-add),
 *   beyond maxcpus, or unreachable (an xAPIC ID above 254, which the
 *   shorthand reaches and a destination cannot);
 * - no MADT entry dropped or lost: an unlisted CPU would run the
 *   trampoline without a slot;
 * - the BSP listed in the MADT (else the table is known incomplete). */
static const char *broadcast_check(const struct acpi_info *acpi, bool bsp_listed)
{
	if (!bsp_listed)
		return "the BSP is not in the MADT";
	if (acpi->warn[ACPI_WARN_MADT_TRUNCATED] || acpi->warn[ACPI_WARN_MADT_ENTRY])
		return "the MADT is damaged: it may not list every CPU";
	if (acpi->cpus_dropped)
		return "the MADT lists more CPUs than MAX_CPUS";
	for (uint32_t i = 0; i < cpu_count; i++)
		if (cpus[i].state == CPU_SKIPPED)
			return "not every MADT CPU is to be started (skipped CPUs)";
	return 0;
}

const char *smp_broadcast_refused(void)
{
	return broadcast_refusal;
}

bool smp_setup(const struct acpi_info *acpi, uint32_t maxcpus)
{
	uint32_t self = cpu_apic_id();
	uint32_t limit = maxcpus ? maxcpus : APSTART_MAX_CPUS;
	uint32_t started = 1; /* the BSP counts toward maxcpus */
	bool bsp_listed = false;

	for (uint32_t i = 0; i < acpi->cpu_count; i++)
		bsp_listed |= acpi->cpus[i].apic_id == self;
	uint32_t slots = acpi->cpu_count + !bsp_listed;
	if (slots > APSTART_MAX_CPUS)
		slots = APSTART_MAX_CPUS;
	/* Below 4 GiB, as the trampoline needs (kernel/bootmem.h). */
	tramp_cpus = bootmem_alloc((uint64_t)slots * sizeof *tramp_cpus, 64,
				   "the trampoline's CPU table");
	cpu_count = 0;
	if (!bsp_listed) {
		/* We run on it, so it is CPU 0 whatever the table says: the
		 * CPUs counted in @boot and @end stay the same, and the APs
		 * keep their numbers. */
		kprintf("smp: the boot CPU (APIC ID %u) is not in the MADT: "
			"counted as CPU 0 (the table is incomplete)\n", self);
		warn_record("what=bsp_not_in_madt apic=%u", self);
		add_cpu(self, 0, true);
	}
	for (uint32_t i = 0; i < acpi->cpu_count && cpu_count < APSTART_MAX_CPUS; i++)
		add_cpu(acpi->cpus[i].apic_id, acpi->cpus[i].flags, acpi->cpus[i].apic_id == self);

	/* Then enabled CPUs in MADT order. */
	for (uint32_t i = 0; i < cpu_count; i++) {
		struct cpu *c = &cpus[i];
		if (c->bsp)
			continue;
		if (!(c->madt_flags & MADT_CPU_ENABLED)) {
			c->state = CPU_SKIPPED;
			c->skip_reason = "MADT: not enabled (online-capable, needs hot-add)";
			c->skip_code = "madt_not_enabled";
		} else if (!lapic_reachable(c->apic_id)) {
			skip_unreachable(c);
		} else if (started >= limit) {
			c->state = CPU_SKIPPED;
			c->skip_reason = "beyond maxcpus";
			c->skip_code = "beyond_maxcpus";
		} else {
			started++;
		}
	}
	smp_bsp_apic = self;
	/* Stacks for the CPUs found, from free RAM (kernel/bootmem.h). */
	if (cpu_count) {
		uint8_t *stacks = bootmem_alloc((uint64_t)cpu_count * AP_STACK_SIZE,
						4096, "the AP stacks");
		for (uint32_t i = 0; i < cpu_count; i++)
			tramp_cpus[i].stack_top =
				(uint64_t)(uintptr_t)(stacks + (i + 1) * AP_STACK_SIZE);
	}
	broadcast_refusal = broadcast_check(acpi, bsp_listed);
	return cpu_count > 0;
}
