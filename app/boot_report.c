/* SPDX-License-Identifier: MIT */
/* The boot's printing (app/boot_report.h). */
#include "app/boot_report.h"

#include "app/wing.h"

#include "smp/lapic.h"
#include "smp/park.h"
#include "smp/phases.h"
#include "smp/smp.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/firmware.h"
#include "kernel/tsc.h"
#include "kernel/warn.h"
#include "kernel/x86.h"
#include "lib/format.h"

void boot_report_banner(void)
{
	kprintf("\napstart %s: %s, trampoline %s WBINVD%s%s%s\n", APSTART_VERSION, APSTART_ARCH,
		APSTART_WBINVD ? "WITH" : "without",
		APSTART_SLOW_TRAMP_NS ? " + test-only slow spin" : "",
		APSTART_SLOW_PARK_NS ? ", park flush + test-only slow spin" : "",
		APSTART_MARKS ? "" : ", measurement-only: no per-phase marks (MARKS=0)");
}

void boot_report_loader(const struct boot_info *boot, const char *firmware_why)
{
	kprintf("boot: multiboot%d from \"%s\", firmware %s, screen %s\n",
		boot->protocol, boot->loader_name, firmware_name(boot->firmware),
		console_screen_kind());
	kprintf("firmware: %s: %s\n", firmware_name(boot->firmware), firmware_why);
	/* Escaped: a command line may hold control bytes (a terminal's
	 * escape sequences); the console cuts the line at its length. */
	static char shown[CONSOLE_LINE_MAX];
	fmt_escape(shown, sizeof shown, boot->cmdline);
	kprintf("cmdline: \"%s\"\n", shown);
}

void boot_report_acpi_warnings(const struct acpi_info *acpi)
{
	for (int k = 0; k < ACPI_WARN_KINDS; k++) {
		if (!acpi->warn[k])
			continue;
		if (k == ACPI_WARN_MADT_TRUNCATED)
			warn_record("what=%s count=%u stop_offset=%u", acpi_warn_name(k),
				    acpi->warn[k], acpi->madt_stop_offset);
		else if (k == ACPI_WARN_CPUS_DROPPED)
			warn_record("what=%s count=%u max=%u", acpi_warn_name(k),
				    acpi->cpus_dropped, (unsigned)APSTART_MAX_CPUS);
		else
			warn_record("what=%s count=%u", acpi_warn_name(k), acpi->warn[k]);
	}
}

/* What a reader of bare-metal numbers needs to know about the machine:
 * one human line and one @env record. Spaces in the brand string become
 * '_' in the record so it stays key=value. */
static void print_environment(const struct boot_info *boot, const struct acpi_info *acpi,
			      uint64_t tramp, const struct run_facts *facts)
{
	char vendor[13], brand[49], brand_rec[49], oem[7];
	cpu_vendor(vendor);
	cpu_brand(brand);
	for (int i = 0; i < 49; i++)
		brand_rec[i] = brand[i] == ' ' ? '_' : brand[i];
	int n = 0;
	for (; n < 6 && acpi->oem_id[n]; n++)
		oem[n] = acpi->oem_id[n] == ' ' ? '_' : acpi->oem_id[n];
	while (n > 0 && oem[n - 1] == '_')
		n--; /* OEM IDs are space-padded to 6 */
	oem[n] = '\0';
	char loader[64]; /* "GRUB 2.06-13+deb12u2" -> GRUB_2.06-13+deb12u2 */
	for (n = 0; n < 63 && boot->loader_name[n]; n++)
		loader[n] = boot->loader_name[n] > ' ' ? boot->loader_name[n] : '_';
	loader[n] = '\0';
	const struct lapic_status *ls = lapic_status();
	char ucode[16] = "none";
	uint32_t rev;
	if (cpu_microcode(&rev))
		fmt_snprintf(ucode, sizeof ucode, "0x%x", rev);

	kprintf("cpu: %s family 0x%x model 0x%x stepping %u \"%s\", LLC %u KiB, "
		"%s, %s TSC, x2APIC %s at hand-over (%s)\n",
		vendor, cpu_family(), cpu_model(), cpu_stepping(), brand,
		cpu_llc_kib(), cpu_has_hypervisor() ? "hypervisor" : "bare metal",
		tsc_info()->invariant ? "invariant" : "non-invariant",
		ls->firmware_x2apic ? "on" : "off",
		ls->x2apic_supported ? "supported" : "not supported");
	kprintf("@env vendor=%s family=0x%x model=0x%x stepping=%u brand=%s "
		"llc_kib=%u hypervisor=%d invariant_tsc=%d x2apic_handover=%d "
		"x2apic_supported=%d firmware=%s protocol=mb%d tramp=0x%llx "
		"acpi_oem=%s screen=%s loader=%s microcode=%s wings=%s\n",
		vendor, cpu_family(), cpu_model(), cpu_stepping(),
		brand_rec[0] ? brand_rec : "none", cpu_llc_kib(),
		cpu_has_hypervisor(), tsc_info()->invariant, ls->firmware_x2apic,
		ls->x2apic_supported,
		firmware_word(boot->firmware), boot->protocol,
		(unsigned long long)tramp, oem[0] ? oem : "none",
		console_screen_kind(), loader[0] ? loader : "none", ucode, wings_linked());
	/* Which trampoline the APs start in: the core's own, or a wing's
	 * (trampoline=linux: Linux's blob, its version and SHA-256). */
	kprintf("@trampoline kind=%s wbinvd=%d%s\n", facts->trampoline, facts->wbinvd,
		facts->trampoline_fields);
}

void boot_report_run(const struct boot_choices *c)
{
	const struct boot_info *boot = c->boot;
	const struct acpi_info *acpi = c->acpi;
	const struct options *opt = c->opt;
	const struct wake_config *wake = &c->opt->wake;
	const struct park_plan *park = park_plan();
	uint32_t aps = c->aps, cycles = c->cycles;
	uint64_t tramp = c->tramp;

	kprintf("cpus: %u in MADT (%u enabled), %u APs to start, BSP APIC ID %u, %s\n",
		acpi->cpu_count, acpi->enabled_count, aps, lapic_id(),
		lapic_status()->x2apic ? "x2APIC" : "xAPIC");
	if (acpi->cpus_unusable)
		kprintf("cpus: %u more MADT entries are neither enabled nor "
			"online-capable: ignored (ACPI 6.5 Table 5.37)\n",
			acpi->cpus_unusable);
	/* Hundreds of skipped CPUs (maxcpus=1 on a big box) would fill the
	 * screen: list them on serial, count them on the screen. */
	uint32_t skipped = smp_count_state(CPU_SKIPPED);
	for (uint32_t i = 0; i < cpu_count; i++) {
		if (cpus[i].state != CPU_SKIPPED)
			continue;
		cprintf(skipped <= 8 ? CON_ALL : CON_SERIAL,
			"cpu: APIC ID %u skipped: %s\n", cpus[i].apic_id,
			cpus[i].skip_reason);
		cprintf(CON_SERIAL, "@cpu cpu=%u apic=%u state=skipped reason=%s\n",
			cpus[i].index, cpus[i].apic_id, cpus[i].skip_code);
	}
	if (skipped > 8)
		cprintf(CON_SCREEN, "cpu: %u CPUs skipped (list on serial)\n", skipped);
	char sipi_delay[32];
	fmt_snprintf(sipi_delay, sizeof sipi_delay,
		     wake->sipi_delay == SIPI_DELAY_FIXED ? "%s sipi_delay_us=%u" : "%s",
		     keyword_word(sipi_delay_words, wake->sipi_delay), wake->sipi_delay_us);
	const char *sipi_count = keyword_word(sipi_count_words, wake->sipi_count);
	kprintf("wake: init_delay_us=%u sipi_delay=%s sipi_count=%s ap_timeout_ms=%u "
		"sipi_retry=%u cycles=%u bsp_wait=%s icount=%s lapic_timer_khz=%u\n",
		wake->init_delay_us, sipi_delay, sipi_count, wake->ap_timeout_ms,
		wake->sipi_retry, cycles, keyword_word(bsp_wait_words, wake->bsp_wait),
		keyword_word(icount_words, opt->icount), lapic_timer_khz());
	kprintf("nmi: platform NMIs (LINT1) reach %s (extnmi=%s); NMIs and stray "
		"interrupts are counted and reported, never fatal\n",
		opt->extnmi == EXTNMI_ALL ? "every CPU" :
		opt->extnmi == EXTNMI_NONE ? "no CPU" : "the BSP only, as Linux",
		keyword_word(extnmi_words, opt->extnmi));
	if (wake->sipi_delay == SIPI_DELAY_LINUX && wake->sipi_delay_us != 10)
		kprintf("wake: sipi_delay_us=%u ignored: it applies with sipi_delay=fixed\n",
			wake->sipi_delay_us);
	kprintf("park: %s: %s, parks in %s", keyword_word(park_words, park->mode),
		park->flush ? "WBINVD after reporting dead" : "no flush",
		park->mwait ? "MONITOR/MWAIT" : "HLT");
	if (park->mwait)
		kprintf(" (hint 0x%x)", park_mwait_hint());
	kprintf(": %s\n", park->why);
	/* Keys in the order of README "Output"; new keys go at the end. */
	kprintf("@boot kernel=apstart version=%s wbinvd=%d cpus=%u x2apic=%d "
		"tsc_khz=%llu tsc_source=%s tramp=0x%llx firmware=%s "
		"protocol=mb%d cycles=%u slow_tramp_ns=%u park=%s park_via=%s "
		"park_flush=%d slow_park_ns=%u sipi_delay=%s sipi_delay_us=%u sipi_count=%s "
		"park_why=%s sipi_retry=%u extnmi=%s bringup=%s cycles_mode=%s arch=%s "
		"bringup_used=%s marks=%d run_id=%s\n",
		APSTART_VERSION, c->facts->wbinvd, aps + 1,
		lapic_status()->x2apic ? 1 : 0,
		(unsigned long long)tsc_info()->khz, tsc_info()->source,
		(unsigned long long)tramp,
		firmware_word(boot->firmware), boot->protocol,
		cycles, opt->slow_tramp_ns, keyword_word(park_words, park->mode),
		park->mwait ? "mwait" : "hlt", park->flush, opt->slow_park_ns,
		keyword_word(sipi_delay_words, wake->sipi_delay),
		wake->sipi_delay_us, sipi_count, park->code, wake->sipi_retry,
		keyword_word(extnmi_words, opt->extnmi),
		keyword_word(bringup_words, wake->bringup),
		keyword_word(cycles_mode_words, wake->cycles_mode), APSTART_ARCH,
		keyword_word(bringup_words, wake->bringup_used), APSTART_MARKS,
		opt->run_id[0] ? opt->run_id : "none");

	print_environment(boot, acpi, tramp, c->facts);
}
