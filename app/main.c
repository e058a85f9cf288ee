/* SPDX-License-Identifier: MIT */
/* apstart: boot, find the CPUs, wake every AP through the real-mode
 * trampoline, cycle each one offline/online, report the timings. */
#include <stdint.h>

#include "app/flush_probe.h"
#include "app/header.h"
#include "app/options.h"
#include "app/progress.h"
#include "app/report.h"
#include "app/run.h"
#include "app/summary_save.h"
#include "smp/events.h"
#include "smp/lapic.h"
#include "smp/park.h"
#include "smp/smp.h"
#include "smp/test_hooks.h"
#include "smp/victims.h"
#include "smp/wakeup.h"
#include "kernel/abort.h"
#include "kernel/acpi.h"
#include "kernel/bootmem.h"
#include "kernel/config.h"
#include "kernel/confound.h"
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/efi_runtime.h"
#include "kernel/format.h"
#include "kernel/kstring.h"
#include "kernel/memmap.h"
#include "kernel/multiboot.h"
#include "kernel/paging.h"
#include "kernel/qemu.h"
#include "kernel/serial.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/warn.h"
#include "kernel/x86.h"

#ifndef APSTART_WBINVD
#error "build with -DAPSTART_WBINVD=0 or 1"
#endif
#ifndef APSTART_SLOW_TRAMP_NS
#define APSTART_SLOW_TRAMP_NS 0
#endif


extern uint8_t __kernel_start[], __kernel_end[];

void kmain(uint32_t magic, uint64_t info_phys) __attribute__((noreturn));

static struct boot_info boot;
static struct acpi_info acpi;
static struct options opt;
static struct run_facts facts = {
	.wbinvd = APSTART_WBINVD,
	.slow_tramp_ns = APSTART_SLOW_TRAMP_NS,
	.version = APSTART_VERSION,
	.bringup = "serial", /* one AP after the other (smp/cycles.c) */
};

/* The header's CPU model: the brand string without its padding, or
 * vendor, family and model when the CPU has none. */
static void cpu_model_text(char out[49])
{
	char brand[49], vendor[13];
	cpu_brand(brand);
	const char *b = brand;
	while (*b == ' ')
		b++;
	if (*b) {
		fmt_snprintf(out, 49, "%s", b);
		return;
	}
	cpu_vendor(vendor);
	fmt_snprintf(out, 49, "%s family 0x%x model 0x%x", vendor, cpu_family(), cpu_model());
}

static const void *identity_map(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	return paging_map_phys(phys, len, MAP_WB);
}

static void diag_print(void *ctx, const char *msg)
{
	(void)ctx;
	kprintf("%s\n", msg);
}

static void panic(const char *what) __attribute__((noreturn));
static void panic(const char *what)
{
	kprintf("PANIC: %s\n", what);
	kprintf("@fail what=panic\n");
	abort_run(what);
}

static uint64_t bios_ebda(void)
{
	uint64_t ebda = (uint64_t)phys_read16(BDA_EBDA_SEGMENT) << 4;
	/* Only trust a value in the range the EBDA can occupy. */
	return ebda >= 0x80000 && ebda < LEGACY_HOLE_START ? ebda : 0;
}

static void find_acpi(uint64_t ebda)
{
	uint64_t rsdp_phys = 0;
	const void *rsdp = boot.rsdp;
	size_t rsdp_len = boot.rsdp_len;

	if (!rsdp || !acpi_rsdp_valid(rsdp, rsdp_len)) {
		if (rsdp)
			kprintf("acpi: boot loader's RSDP copy is invalid; scanning\n");
		rsdp_phys = acpi_scan_rsdp(identity_map, 0, ebda);
		if (!rsdp_phys)
			panic("no ACPI RSDP: cannot find the CPUs (MADT)");
		rsdp = (const void *)(uintptr_t)rsdp_phys;
		/* The scan found it valid within the BIOS area, which ends
		 * at 1 MiB: that bounds every read of it. */
		rsdp_len = (size_t)(LOW_MEMORY_LIMIT - rsdp_phys);
	}
	int r = acpi_parse(rsdp, rsdp_len, rsdp_phys, identity_map, 0, &acpi,
			   diag_print, 0);
	for (int k = 0; k < ACPI_WARN_KINDS; k++) {
		if (!acpi.warn[k])
			continue;
		if (k == ACPI_WARN_MADT_TRUNCATED)
			warn_record("what=%s count=%u stop_offset=%u", acpi_warn_name(k),
				    acpi.warn[k], acpi.madt_stop_offset);
		else if (k == ACPI_WARN_CPUS_DROPPED)
			warn_record("what=%s count=%u max=%u", acpi_warn_name(k),
				    acpi.cpus_dropped, (unsigned)APSTART_MAX_CPUS);
		else
			warn_record("what=%s count=%u", acpi_warn_name(k), acpi.warn[k]);
	}
	if (r != 0)
		panic("no usable MADT: cannot find the CPUs");
}

/* What a reader of bare-metal numbers needs to know about the machine:
 * one human line and one @env record. Spaces in the brand string become
 * '_' in the record so it stays key=value. */
static void print_environment(uint64_t tramp)
{
	char vendor[13], brand[49], brand_rec[49], oem[7];
	cpu_vendor(vendor);
	cpu_brand(brand);
	for (int i = 0; i < 49; i++)
		brand_rec[i] = brand[i] == ' ' ? '_' : brand[i];
	int n = 0;
	for (; n < 6 && acpi.oem_id[n]; n++)
		oem[n] = acpi.oem_id[n] == ' ' ? '_' : acpi.oem_id[n];
	while (n > 0 && oem[n - 1] == '_')
		n--; /* OEM IDs are space-padded to 6 */
	oem[n] = '\0';
	char loader[64]; /* "GRUB 2.06-13+deb12u2" -> GRUB_2.06-13+deb12u2 */
	for (n = 0; n < 63 && boot.loader_name[n]; n++)
		loader[n] = boot.loader_name[n] > ' ' ? boot.loader_name[n] : '_';
	loader[n] = '\0';
	const struct lapic_status *ls = lapic_status();

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
		"acpi_oem=%s screen=%s loader=%s\n",
		vendor, cpu_family(), cpu_model(), cpu_stepping(),
		brand_rec[0] ? brand_rec : "none", cpu_llc_kib(),
		cpu_has_hypervisor(), tsc_info()->invariant, ls->firmware_x2apic,
		ls->x2apic_supported,
		boot.firmware == FIRMWARE_UEFI ? "uefi" : "bios", boot.protocol,
		(unsigned long long)tramp, oem[0] ? oem : "none",
		console_screen_kind(), loader[0] ? loader : "none");
}

/* What the allocator of big buffers (kernel/bootmem.h) must leave alone
 * besides what the map reserves: the loaded image, the boot information,
 * and the strings it points to (outside the block under Multiboot1). */
static void reserve_boot_memory(void)
{
	uint64_t cmdline = (uintptr_t)boot.cmdline, loader = (uintptr_t)boot.loader_name;
	struct phys_range reserved[] = {
		{ (uintptr_t)__kernel_start, (uintptr_t)__kernel_end },
		{ boot.info_start, boot.info_end },
		{ cmdline, cmdline + strlen(boot.cmdline) + 1 },
		{ loader, loader + strlen(boot.loader_name) + 1 },
	};
	bootmem_init(boot.mem, boot.mem_count, reserved,
		     sizeof reserved / sizeof reserved[0]);
}

static uint64_t place_trampoline(void)
{
	uint16_t base_kib = phys_read16(BDA_BASE_MEM_KIB);
	uint16_t ebda_seg = phys_read16(BDA_EBDA_SEGMENT);
	uint64_t bios_start = memmap_bios_area_start(base_kib, ebda_seg);
	struct phys_range excluded[4] = {
		{ (uintptr_t)__kernel_start, (uintptr_t)__kernel_end },
		{ boot.info_start, boot.info_end },
		{ bios_start, LOW_MEMORY_LIMIT },
		{ 0, 0x1000 }, /* real-mode IVT and BIOS data area */
	};
	kprintf("lowmem: firmware area from 0x%llx up (BDA: base memory %u KiB, "
		"EBDA segment 0x%x; Linux's reserve_bios_regions rule)\n",
		(unsigned long long)bios_start, base_kib, ebda_seg);
	return memmap_pick_low_page(boot.mem, boot.mem_count, excluded, 4);
}

/* console=ttyS<n>,<baud>: ttyS<n> is at Linux's fixed address for it
 * (0x3F8/0x2F8/0x3E8/0x2E8), not at the BIOS data area's COM<n+1> entry:
 * a server's serial-over-LAN port that works as ttyS1 under Linux works
 * here with the same words, and UEFI machines often leave the BDA empty.
 * Where the BDA names another address, the message says so. */
#define BDA_COM_PORTS 0x400 /* COM1-COM4 I/O bases, one word each */
static void switch_serial_console(void)
{
	uint32_t n = opt.console_port, baud = opt.console_baud;
	uint16_t port = serial_std_port(n);

	if (n == 0 && baud == SERIAL_MAX_BAUD)
		return;
	uint16_t bda = boot.firmware == FIRMWARE_BIOS
			       ? phys_read16(BDA_COM_PORTS + 2 * n) : 0;
	kprintf("console: serial output moves to ttyS%u (COM%u, I/O 0x%x, Linux's "
		"address for ttyS%u) at %u baud 8N1\n", n, n + 1, port, n, baud);
	if (bda && bda != port)
		kprintf("console: note: the BIOS data area lists COM%u at 0x%x\n",
			n + 1, bda);
	if (!console_switch_serial(port, baud))
		kprintf("console: no UART answers at 0x%x: staying on ttyS0 "
			"(0x3F8) at 115200\n", port);
}

void kmain(uint32_t magic, uint64_t info_phys)
{
	run_init();
	console_init_serial();
	/* Exceptions get reported from here on, even in the parsers. */
	idt_init();
	idt_load();
	kprintf("\napstart %s: %s, trampoline %s WBINVD%s%s\n", APSTART_VERSION, APSTART_ARCH,
		APSTART_WBINVD ? "WITH" : "without",
		APSTART_SLOW_TRAMP_NS ? " + test-only slow spin" : "",
		APSTART_SLOW_PARK_NS ? ", park flush + test-only slow spin" : "");

	const void *info = (const void *)(uintptr_t)info_phys;
	if (multiboot_parse(magic, info, 1u << 20, info_phys, identity_map, 0,
			    &boot, diag_print, 0) != 0) {
		kprintf("PANIC: not started by a Multiboot1/2 loader (magic 0x%x)\n", magic);
		halt_forever();
	}
	reserve_boot_memory();
	console_init_screen(&boot);
	console_set_self_id(cpu_apic_id);
	facts.firmware = boot.firmware == FIRMWARE_UEFI ? "UEFI" : "BIOS";
	facts.loader = boot.loader_name;
	header_init(&facts);
	outb(0x21, 0xFF); /* mask the legacy PICs: we use only the LAPIC */
	outb(0xA1, 0xFF);
	outb(0x43, 0x30); /* PIT channel 0: one-shot (mode 0), no periodic tick */
	outb(0x40, 0xFF);
	outb(0x40, 0xFF);

	kprintf("boot: multiboot%d from \"%s\", firmware %s, screen %s\n",
		boot.protocol, boot.loader_name,
		boot.firmware == FIRMWARE_UEFI ? "UEFI" : "BIOS",
		console_screen_kind());
	kprintf("cmdline: \"%s\"\n", boot.cmdline);
	options_set_defaults(&opt);
	options_parse(&opt, boot.cmdline, APSTART_MAX_CPUS, diag_print, 0);
	summary_capture_begin(opt.save == SAVE_ON, boot.firmware == FIRMWARE_UEFI);
	switch_serial_console();

	/* Decided before anything can panic, so that a failure under QEMU
	 * ends QEMU instead of halting it until a timeout. */
	enum exit_mode exit_mode = opt.exit;
	bool qemu = qemu_detect();
	if (exit_mode == EXIT_AUTO)
		exit_mode = qemu ? EXIT_QEMU : EXIT_HALT;
	run_set_exit_mode(exit_mode);

	uint64_t ebda = boot.firmware == FIRMWARE_BIOS ? bios_ebda() : 0;
	find_acpi(ebda);
	if (opt.exit == EXIT_AUTO && !qemu && memcmp(acpi.oem_id, "BOCHS ", 6) == 0) {
		exit_mode = EXIT_QEMU; /* QEMU's ACPI tables, no hypervisor bit */
		run_set_exit_mode(exit_mode);
	}
	kprintf("exit: %s%s\n", exit_mode == EXIT_QEMU ? "qemu (isa-debug-exit)" :
		exit_mode == EXIT_RESET ? "reset" : "halt", opt.exit == EXIT_AUTO ? " (auto)" : "");
	/* Runtime services (saving the summary, exit=reset): their regions
	 * are mapped now, while no AP runs (kernel/paging.h). */
	if (boot.firmware == FIRMWARE_UEFI && (opt.save == SAVE_ON || exit_mode == EXIT_RESET))
		efi_runtime_init(&boot, diag_print, 0);

	tsc_init(&acpi);
	confound_init();
	kprintf("tsc: %llu kHz from %s%s\n", (unsigned long long)tsc_info()->khz,
		tsc_info()->source, tsc_info()->invariant ? ", invariant" : "");

	bool need_x2apic = false;
	for (uint32_t i = 0; i < acpi.cpu_count; i++)
		need_x2apic |= acpi.cpus[i].apic_id > XAPIC_MAX_ID;
	if (!lapic_init_bsp(opt.x2apic, need_x2apic))
		panic("local APIC unusable");
	if (!smp_setup(&acpi, opt.maxcpus))
		panic("no CPUs in the MADT");
	test_hooks_setup(opt.selftest);
	events_init();
	lapic_set_extnmi(opt.extnmi);

	uint32_t aps = 0;
	for (uint32_t i = 0; i < cpu_count; i++)
		aps += cpus[i].state == CPU_ABSENT;
	uint32_t cycles = opt.probe == PROBE_FLUSH ? 0 : opt.cycles;
	if (cycles > smp_max_cycles(aps)) {
		kprintf("cycles=%u with %u APs exceeds the sample store; using %u\n",
			cycles, aps, smp_max_cycles(aps));
		cycles = smp_max_cycles(aps);
	}

	uint64_t tramp = place_trampoline();
	if (!tramp)
		panic("no free 4 KiB page below 1 MiB for the AP trampoline");
	if (!smp_install_trampoline(tramp))
		panic("trampoline blob rejected");

	lapic_timer_calibrate();
	struct wake_config wake = {
		.init_delay_us = opt.init_delay_us == INIT_DELAY_AUTO
					 ? smp_default_init_delay_us()
					 : opt.init_delay_us,
		.sipi_delay = opt.sipi_delay,
		.sipi_delay_us = opt.sipi_delay_us,
		.sipi_count = opt.sipi_count,
		.ap_timeout_ms = opt.ap_timeout_ms,
		.bsp_wait = opt.bsp_wait,
		.park = opt.park,
		.sipi_retry = opt.sipi_retry,
		.icount_fence = opt.icount == ICOUNT_ON,
		.bringup = opt.bringup,
		.cycles_mode = opt.cycles_mode,
	};
	park_setup(wake.park);
	const struct park_plan *park = park_plan();
	facts.park = park_mode_name(park->mode);
	kprintf("cpus: %u in MADT (%u enabled), %u APs to start, BSP APIC ID %u, %s\n",
		acpi.cpu_count, acpi.enabled_count, aps, lapic_id(),
		lapic_status()->x2apic ? "x2APIC" : "xAPIC");
	if (acpi.cpus_unusable)
		kprintf("cpus: %u more MADT entries are neither enabled nor "
			"online-capable: ignored (ACPI 6.5 Table 5.37)\n",
			acpi.cpus_unusable);
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
	char sipi_delay[32], sipi_count[8];
	if (wake.sipi_delay == SIPI_DELAY_LINUX)
		fmt_snprintf(sipi_delay, sizeof sipi_delay, "linux");
	else
		fmt_snprintf(sipi_delay, sizeof sipi_delay, "fixed sipi_delay_us=%u",
			     wake.sipi_delay_us);
	if (wake.sipi_count == SIPI_COUNT_AUTO)
		fmt_snprintf(sipi_count, sizeof sipi_count, "auto");
	else
		fmt_snprintf(sipi_count, sizeof sipi_count, "%u", wake.sipi_count);
	kprintf("wake: init_delay_us=%u sipi_delay=%s sipi_count=%s ap_timeout_ms=%u "
		"sipi_retry=%u cycles=%u bsp_wait=%s icount=%s lapic_timer_khz=%u\n",
		wake.init_delay_us, sipi_delay, sipi_count, wake.ap_timeout_ms,
		wake.sipi_retry, cycles, wake.bsp_wait == BSP_WAIT_HLT ? "hlt" : "spin",
		wake.icount_fence ? "on" : "off", lapic_timer_khz());
	kprintf("nmi: platform NMIs (LINT1) reach %s (extnmi=%s); NMIs and stray "
		"interrupts are counted and reported, never fatal\n",
		opt.extnmi == EXTNMI_ALL ? "every CPU" :
		opt.extnmi == EXTNMI_NONE ? "no CPU" : "the BSP only, as Linux",
		lapic_extnmi_name(opt.extnmi));
	if (wake.sipi_delay == SIPI_DELAY_LINUX && opt.sipi_delay_us != 10)
		kprintf("wake: sipi_delay_us=%u ignored: it applies with sipi_delay=fixed\n",
			opt.sipi_delay_us);
	kprintf("park: %s: %s, parks in %s", park_mode_name(park->mode),
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
		"park_why=%s sipi_retry=%u extnmi=%s bringup=%s cycles_mode=%s arch=%s\n",
		APSTART_VERSION, APSTART_WBINVD, aps + 1,
		lapic_status()->x2apic ? 1 : 0,
		(unsigned long long)tsc_info()->khz, tsc_info()->source,
		(unsigned long long)tramp,
		boot.firmware == FIRMWARE_UEFI ? "uefi" : "bios", boot.protocol,
		cycles, (unsigned)APSTART_SLOW_TRAMP_NS, park_mode_name(park->mode),
		park->mwait ? "mwait" : "hlt", park->flush,
		(unsigned)APSTART_SLOW_PARK_NS,
		wake.sipi_delay == SIPI_DELAY_LINUX ? "linux" : "fixed",
		wake.sipi_delay_us, sipi_count, park->code, wake.sipi_retry,
		lapic_extnmi_name(opt.extnmi),
		wake.bringup == BRINGUP_SERIAL ? "serial"
		: wake.bringup == BRINGUP_PARALLEL ? "parallel" : "broadcast",
		wake.cycles_mode == CYCLES_PARALLEL ? "parallel" : "serial", APSTART_ARCH);

	print_environment(tramp);
	facts.cpus = aps + 1;
	facts.cycles = cycles;
	cpu_model_text(facts.cpu_model);
	header_draw();
	progress_init(opt.progress_ms, cycles);
	test_hook_before_bring_up();
	smp_bring_up(&wake);
	test_hook_after_bring_up();
	victims_start(opt.victims);
	bool complete;
	if (opt.probe == PROBE_FLUSH) {
		struct flush_probe_config probe = { opt.flush_reps, opt.flush_max_kib,
						    opt.flush_cpus, opt.flush_at_once,
						    opt.selftest == SELFTEST_SMI };
		complete = flush_probe_run(&probe);
		if (run_ended())
			halt_forever();
	} else {
		smp_run_cycles(&wake, cycles);
		if (run_ended())
			halt_forever();
		summary_capture_report();
		complete = report_results(cycles);
	}
	/* The victims ran outside the report (CPU_SKIPPED); back to online
	 * for the end-of-run halt. */
	victims_stop();
	smp_park_all(&wake);

	for (uint32_t i = 0; i < cpu_count; i++) {
		if (!cpus[i].late_arrivals)
			continue;
		kprintf("smp: APIC ID %u reached C %u time(s) after it was "
			"given up on\n", cpus[i].apic_id, cpus[i].late_arrivals);
		warn_record("what=late_ap apic=%u arrivals=%u", cpus[i].apic_id,
			    cpus[i].late_arrivals);
	}
	events_report();
	confound_report();
	uint32_t failed = smp_count_state(CPU_FAILED);
	uint32_t online = 0, retries = 0;
	for (uint32_t i = 0; i < cpu_count; i++) {
		online += cpus[i].bsp || cpus[i].cycles_done == cycles;
		retries += cpus[i].retries;
	}
	bool pass = failed == 0 && complete;
	kprintf("@end status=%s online=%u failed=%u warnings=%u nmis=%u strays=%u "
		"retries=%u smi_windows=%u\n", pass ? "pass" : "fail", online, failed, warn_count(),
		events_nmi_total(), events_stray_total(), retries, confound_smi_windows());
	run_finish(pass);
}
