/* SPDX-License-Identifier: MIT */
/* apstart: boot, find the CPUs, wake every AP through the real-mode
 * trampoline, cycle each one offline/online, report the timings. kmain()
 * is the table of contents; the printing is in app/boot_report.c. */
#include <stdint.h>

#include "app/boot_report.h"
#include "app/options.h"
#include "app/report.h"
#include "app/run.h"
#include "app/wing.h"
#include "smp/ap_entry.h"
#include "smp/events.h"
#include "smp/lapic.h"
#include "smp/measure.h"
#include "smp/park.h"
#include "smp/smp.h"
#include "smp/trampoline.h"
#include "kernel/abort.h"
#include "kernel/acpi.h"
#include "kernel/bootmem.h"
#include "kernel/config.h"
#include "kernel/confound.h"
#include "kernel/console.h"
#include "kernel/firmware.h"
#include "kernel/idt.h"
#include "kernel/memmap.h"
#include "kernel/multiboot.h"
#include "kernel/nmi.h"
#include "kernel/paging.h"
#include "kernel/rsdp.h"
#include "kernel/tsc.h"
#include "kernel/warn.h"
#include "kernel/x86.h"
#include "lib/kstring.h"

#ifndef APSTART_WBINVD
#error "build with -DAPSTART_WBINVD=0 or 1"
#endif

extern uint8_t __kernel_start[], __kernel_end[];

void kmain(uint32_t magic, uint64_t info_phys) __attribute__((noreturn));

/* What the boot learns and decides, in the order kmain() does. */
static struct boot_info boot;
static struct options opt;
static struct option_targets opt_targets; /* opt and the wings' options */
static const char *firmware_why;
static struct acpi_info acpi;
static uint32_t aps, cycles;
static uint64_t tramp;
static struct run_facts facts = {
	.wbinvd = APSTART_WBINVD,
	.slow_tramp_ns = APSTART_SLOW_TRAMP_NS,
	.version = APSTART_VERSION,
	.trampoline = "apstart",
	.trampoline_fields = "",
};

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

/* acpi_parse() from the RSDP found, its problems said, the wings told
 * (their tables_read step); a clean stop without a MADT. */
static void read_acpi(void)
{
	struct rsdp_found r;

	if (!rsdp_find(&boot, &r))
		run_fail("no ACPI RSDP: cannot find the CPUs (MADT)");
	int bad = acpi_parse(r.rsdp, r.len, r.phys, identity_map, 0, &acpi, diag_print, 0);
	boot_report_acpi_warnings(&acpi);
	WINGS_STEP(tables_read, &acpi);
	if (bad)
		run_fail("no usable MADT: cannot find the CPUs");
}

/* What the kernel, its boot information (and under Multiboot1 the strings
 * outside it) and the real-mode IVT and BIOS data area occupy: the wings'
 * claims, the allocator and the trampoline's page keep clear of them. */
#define BOOT_RANGES 5
static void boot_ranges(struct busy_range out[BOOT_RANGES])
{
	uint64_t cmdline = (uintptr_t)boot.cmdline, loader = (uintptr_t)boot.loader_name;

	out[0] = (struct busy_range){ { (uintptr_t)__kernel_start, (uintptr_t)__kernel_end },
				      "the kernel" };
	out[1] = (struct busy_range){ { boot.info_start, boot.info_end }, "the boot information" };
	out[2] = (struct busy_range){ { cmdline, cmdline + strlen(boot.cmdline) + 1 },
				      "the command line" };
	out[3] = (struct busy_range){ { loader, loader + strlen(boot.loader_name) + 1 },
				      "the loader's name" };
	out[4] = (struct busy_range){ { 0, 0x1000 }, "the real-mode IVT and BIOS data area" };
}

/* The wings' claims first (pstore=): they keep clear of the boot's
 * ranges, and everything allocated from here on keeps clear of them. */
static void reserve_boot_memory(void)
{
	struct busy_range busy[BOOT_RANGES];
	struct phys_range reserved[BOOT_RANGES + WINGS_RESERVED_MAX];
	uint32_t n = 0;

	boot_ranges(busy);
	WINGS_STEP(claim_memory, &boot, &opt, busy, BOOT_RANGES);
	while (n < BOOT_RANGES)
		reserved[n] = busy[n].r, n++;
	n += wings_reserved(&reserved[n], WINGS_RESERVED_MAX);
	bootmem_init(boot.mem, boot.mem_count, reserved, n);
}

/* Low memory for a trampoline: size bytes in whole pages below the
 * legacy hole, under the firmware's area (Linux's reserve_bios_regions
 * rule, from the BIOS data area), clear of the kernel, the boot
 * information and the wings' reservations (app/wing.h: low_memory_fn). */
static uint64_t place_low(uint64_t size)
{
	uint16_t base_kib = phys_read16(BDA_BASE_MEM_KIB);
	uint16_t ebda_seg = phys_read16(BDA_EBDA_SEGMENT);
	uint64_t bios_start = memmap_bios_area_start(base_kib, ebda_seg);
	struct busy_range busy[BOOT_RANGES];
	struct phys_range excluded[BOOT_RANGES + 1 + WINGS_RESERVED_MAX];
	uint32_t n = 0;

	boot_ranges(busy);
	while (n < BOOT_RANGES)
		excluded[n] = busy[n].r, n++;
	excluded[n++] = (struct phys_range){ bios_start, LOW_MEMORY_LIMIT };
	n += wings_reserved(&excluded[n], WINGS_RESERVED_MAX);
	kprintf("lowmem: firmware area from 0x%llx up (BDA: base memory %u KiB, "
		"EBDA segment 0x%x; Linux's reserve_bios_regions rule)\n",
		(unsigned long long)bios_start, base_kib, ebda_seg);
	return memmap_pick_low_range(boot.mem, boot.mem_count, excluded, n, size);
}

/* The firmware as far as it is known (kernel/firmware.h). */
static void identify_firmware(void)
{
	struct firmware_facts f = {
		.efi_tags = boot.firmware == FIRMWARE_UEFI,
		.protocol = boot.protocol,
		.loader = boot.loader_name,
		.hint = opt.firmware,
		.rsdp_phys = rsdp_check_option(opt.acpi_rsdp),
		.ebda_phys = rsdp_bios_ebda(),
	};
	boot.firmware = firmware_identify(&f, &firmware_why);
}

static void read_boot_info(uint32_t magic, uint64_t info_phys)
{
	const void *info = (const void *)(uintptr_t)info_phys;
	if (multiboot_parse(magic, info, 1u << 20, info_phys, identity_map, 0,
			    &boot, diag_print, 0) != 0) {
		kprintf("PANIC: not started by a Multiboot1/2 loader (magic 0x%x)\n", magic);
		halt_forever();
	}
	/* What must be known before anything is placed in memory (pstore=,
	 * firmware=, acpi_rsdp=) comes from a silent early pass over the
	 * command line, as Linux's early_param(); read_command_line() parses
	 * it again and says what is wrong with it. */
	wings_option_targets(&opt_targets, &opt);
	options_set_defaults(&opt_targets);
	options_parse(&opt_targets, boot.cmdline, APSTART_MAX_CPUS, NULL, NULL, 0);
	identify_firmware();
	reserve_boot_memory();
	console_set_self_id(cpu_apic_id);
	facts.firmware = firmware_name(boot.firmware);
	facts.loader = boot.loader_name;
	WINGS_STEP(boot_info, &boot, &facts);
}

/* Only the LAPIC interrupts: mask the legacy PICs, and leave PIT
 * channel 0 in one-shot mode (mode 0), so that nothing ticks. */
static void quiet_legacy_interrupts(void)
{
	outb(0x21, 0xFF);
	outb(0xA1, 0xFF);
	outb(0x43, 0x30);
	outb(0x40, 0xFF);
	outb(0x40, 0xFF);
}

/* A bad option is a result: its @warn record counts in @end warnings=
 * and shows on the result page (the capture has begun). */
static void option_warning(void *ctx, const char *record)
{
	(void)ctx;
	warn_record("%s", record);
}

static void read_command_line(void)
{
	boot_report_loader(&boot, firmware_why);
	options_set_defaults(&opt_targets);
	options_parse(&opt_targets, boot.cmdline, APSTART_MAX_CPUS, diag_print, option_warning, 0);
	run_set_id(opt.run_id);
	WINGS_STEP(options_parsed, &opt, &boot);
	console_use_ttyS(opt.console_port, opt.console_baud, boot.firmware == FIRMWARE_BIOS);
	run_choose();
}

/* Under QEMU -icount (icount=on) the TSC and the reference timer run on
 * its instruction count, which nothing disturbs: one window gives the
 * figure of three, and each costs ~0.3 CPU-s of emulation there. */
static void calibrate_tsc(void)
{
	tsc_init(&acpi, opt.icount == ICOUNT_ON ? 1 : 3);
	confound_init();
	kprintf("tsc: %llu kHz from %s%s\n", (unsigned long long)tsc_info()->khz,
		tsc_info()->source, tsc_info()->invariant ? ", invariant" : "");
}

/* The BSP's LAPIC (x2APIC if an APIC ID needs it), then cpus[] from the
 * MADT; counts the APs to start and bounds the cycles by the store. */
static void find_cpus(void)
{
	bool need_x2apic = false;
	for (uint32_t i = 0; i < acpi.cpu_count; i++)
		need_x2apic |= acpi.cpus[i].apic_id > XAPIC_MAX_ID;
	if (!lapic_init_bsp(opt.x2apic, need_x2apic))
		run_fail("local APIC unusable");
	if (!smp_setup(&acpi, opt.maxcpus))
		run_fail("no CPUs in the MADT");
	WINGS_STEP(cpus_found, &opt);
	INSTRUMENT_SPINS_SIZED(opt.slow_tramp_ns, opt.slow_park_ns);
	facts.slow_tramp_ns = opt.slow_tramp_ns;
	events_init();
	lapic_set_extnmi(opt.extnmi);

	aps = smp_count_state(CPU_ABSENT);
	cycles = run_chosen() ? 0 : opt.cycles;
	if (cycles > smp_max_cycles(aps)) {
		kprintf("cycles=%u with %u APs exceeds the sample store; using %u\n",
			cycles, aps, smp_max_cycles(aps));
		cycles = smp_max_cycles(aps);
	}
}

/* The trampoline: a wing's, when one installs it (the trampoline
 * provider, app/wing.h: trampoline=linux), else the core's own page. */
static void install_trampoline(void)
{
	struct wing_trampoline other = { 0 };

	for_each_wing(w)
		if (w->install_trampoline && w->install_trampoline(&opt, place_low, &other)) {
			if (!trampoline_use_other(other.sipi_page, other.header, ap_entry))
				run_fail("trampoline rejected");
			tramp = other.sipi_page;
			facts.wbinvd = other.wbinvd;
			facts.trampoline = other.name;
			facts.trampoline_fields = other.fields;
			return;
		}
	tramp = place_low(0x1000);
	if (!tramp)
		run_fail("no free 4 KiB page below 1 MiB for the AP trampoline");
	if (!trampoline_install(tramp, ap_entry))
		run_fail("trampoline blob rejected");
}

/* The wake configuration for the whole run, and the park plan it names. */
static void configure_wake(void)
{
	lapic_timer_calibrate();
	opt.wake.icount_fence = opt.icount == ICOUNT_ON;
	smp_resolve_wake(&opt.wake);
	park_setup(opt.wake.park);
	facts.park = keyword_word(park_words, park_plan()->mode);
	facts.bringup = keyword_word(bringup_words, opt.wake.bringup_used);
}

static void announce_run(void)
{
	facts.cpus = aps + 1;
	facts.cycles = cycles;
	WINGS_STEP(run_starts, &opt, &facts);
}

/* The measurement: first bring-up, then the cycles (smp/measure.c), or
 * the wing's measurement chosen instead (run_choose()). */
static bool measure(void)
{
	const struct wing_run *run = run_chosen();
	bool complete;

	WINGS_STEP(before_bring_up);
	smp_bring_up(&opt.wake);
	WINGS_STEP(after_bring_up, &opt);
	if (run) {
		complete = run->measure(&opt);
	} else {
		smp_run_cycles(&opt.wake, cycles);
		if (run_ended())
			halt_forever();
		WINGS_STEP(results);
		complete = report_results(cycles);
	}
	if (run_ended())
		halt_forever();
	WINGS_STEP(measured);
	smp_park_all(&opt.wake);
	return complete;
}

void kmain(uint32_t magic, uint64_t info_phys)
{
	wings_connect();
	run_init();
	console_init_serial();
	idt_init(); /* exceptions are reported from here on, even in the parsers */
	idt_load();
	nmi_init();
	boot_report_banner();

	read_boot_info(magic, info_phys);
	quiet_legacy_interrupts();
	read_command_line();
	run_choose_exit(opt.exit);
	read_acpi();
	run_confirm_exit(opt.exit, acpi.oem_id);
	calibrate_tsc();
	find_cpus();
	configure_wake();
	install_trampoline();
	boot_report_run(&(struct boot_choices){
		.boot = &boot,
		.acpi = &acpi,
		.opt = &opt,
		.tramp = tramp,
		.facts = &facts,
		.aps = aps,
		.cycles = cycles,
	});
	announce_run();

	bool complete = measure();
	run_finish(run_verdict(cycles, complete));
}
