/* SPDX-License-Identifier: MIT */
/* apstart: boot, find the CPUs, wake every AP through the real-mode
 * trampoline, cycle each one offline/online, report the timings. kmain()
 * is the table of contents; the printing is in app/boot_report.c. */
#include <stdint.h>

#include "app/boot_report.h"
#include "app/kept_lines.h"
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
#include "kernel/efi_runtime.h"
#include "kernel/firmware.h"
#include "kernel/idt.h"
#include "kernel/memmap.h"
#include "kernel/msr_safe.h"
#include "kernel/multiboot.h"
#include "kernel/nmi.h"
#include "kernel/paging.h"
#include "kernel/qemu.h"
#include "kernel/reset.h"
#include "kernel/serial.h"
#include "kernel/trap.h"
#include "kernel/tsc.h"
#include "kernel/warn.h"
#include "kernel/x86.h"
#include "lib/bytes.h"
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
/* acpi_rsdp=, read at boot: its length if an RSDP is there, else why not. */
static size_t option_rsdp_len;
static const char *option_rsdp_problem;
static enum exit_mode exit_mode;
static struct acpi_info acpi;
static uint32_t aps, cycles;
static uint64_t tramp;
static struct run_facts facts = {
	.wbinvd = APSTART_WBINVD,
	.slow_tramp_ns = APSTART_SLOW_TRAMP_NS,
	.version = APSTART_VERSION,
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

/* acpi_rsdp=ADDR: is there an RSDP? Read at boot, said in find_acpi():
 * 20 bytes, 36 for revision 2, or the length it gives (at most 4 KiB). */
static void check_option_rsdp(void)
{
	const uint8_t *p = opt.acpi_rsdp ? identity_map(0, opt.acpi_rsdp, 36) : NULL;

	option_rsdp_len = 0;
	if (!opt.acpi_rsdp)
		return;
	if (!p) {
		option_rsdp_problem = "beyond what this kernel maps";
		return;
	}
	size_t len = 36;
	if (p[15] >= 2 && rd32(p + 20) > 36 && rd32(p + 20) <= 4096 &&
	    identity_map(0, opt.acpi_rsdp, rd32(p + 20)))
		len = rd32(p + 20);
	option_rsdp_problem = acpi_rsdp_problem(p, len);
	if (!option_rsdp_problem)
		option_rsdp_len = len;
}

/* The RSDP: the loader's copy; else acpi_rsdp= (kexec from Linux hands
 * over none); else the BIOS areas' scan (ACPI 6.5 §5.2.5.1). */
static void find_acpi(uint64_t ebda)
{
	uint64_t rsdp_phys = 0;
	const void *rsdp = boot.rsdp;
	size_t rsdp_len = boot.rsdp_len;

	if (rsdp && acpi_rsdp_valid(rsdp, rsdp_len)) {
		if (opt.acpi_rsdp)
			kprintf("acpi: acpi_rsdp=0x%llx not used: the loader handed over the "
				"RSDP (tag %d)\n", (unsigned long long)opt.acpi_rsdp, boot.rsdp_tag);
	} else {
		if (rsdp)
			kprintf("acpi: boot loader's RSDP copy is invalid; %s\n",
				opt.acpi_rsdp ? "trying acpi_rsdp=" : "scanning");
		rsdp = NULL;
		if (option_rsdp_len) {
			rsdp_phys = opt.acpi_rsdp;
			rsdp = (const void *)(uintptr_t)rsdp_phys;
			rsdp_len = option_rsdp_len;
			kprintf("acpi: RSDP at 0x%llx from acpi_rsdp=\n",
				(unsigned long long)rsdp_phys);
		} else if (opt.acpi_rsdp) {
			kprintf("acpi: acpi_rsdp=0x%llx: no RSDP there (%s); scanning the "
				"BIOS areas\n", (unsigned long long)opt.acpi_rsdp,
				option_rsdp_problem);
			/* A record's value is one word: "bad signature" as
			 * bad_signature (lib/records.def). */
			char word[40];
			size_t n;
			for (n = 0; n + 1 < sizeof word && option_rsdp_problem[n]; n++)
				word[n] = option_rsdp_problem[n] == ' ' ? '_' : option_rsdp_problem[n];
			word[n] = '\0';
			warn_record("what=acpi_rsdp addr=0x%llx problem=%s",
				    (unsigned long long)opt.acpi_rsdp, word);
		}
	}
	if (!rsdp) {
		rsdp_phys = acpi_scan_rsdp(identity_map, 0, ebda);
		if (!rsdp_phys) {
			if (boot.firmware != FIRMWARE_BIOS)
				kprintf("acpi: no RSDP in the BIOS areas; under UEFI give its "
					"address: acpi_rsdp= (Linux: ACPI20= in "
					"/sys/firmware/efi/systab)\n");
			panic("no ACPI RSDP: cannot find the CPUs (MADT)");
		}
		rsdp = (const void *)(uintptr_t)rsdp_phys;
		/* The scan found it valid within the BIOS area, which ends
		 * at 1 MiB: that bounds every read of it. */
		rsdp_len = (size_t)(LOW_MEMORY_LIMIT - rsdp_phys);
	}
	int r = acpi_parse(rsdp, rsdp_len, rsdp_phys, identity_map, 0, &acpi,
			   diag_print, 0);
	boot_report_acpi_warnings(&acpi);
	reset_use_acpi(&acpi);
	if (r != 0)
		panic("no usable MADT: cannot find the CPUs");
}

/* What the allocator of big buffers (kernel/bootmem.h) must leave alone
 * besides what the map reserves: the loaded image, the boot information,
 * and the strings it points to (outside the block under Multiboot1). */
static void reserve_boot_memory(void)
{
	uint64_t cmdline = (uintptr_t)boot.cmdline, loader = (uintptr_t)boot.loader_name;
	struct busy_range busy[] = {
		{ { (uintptr_t)__kernel_start, (uintptr_t)__kernel_end }, "the kernel" },
		{ { boot.info_start, boot.info_end }, "the boot information" },
		{ { cmdline, cmdline + strlen(boot.cmdline) + 1 }, "the command line" },
		{ { loader, loader + strlen(boot.loader_name) + 1 }, "the loader's name" },
		{ { 0, 0x1000 }, "the real-mode IVT and BIOS data area" },
	};
	struct phys_range reserved[4 + WINGS_RESERVED_MAX];
	uint32_t n = 0;

	/* The wings' claims first (pstore=): they keep clear of all of these,
	 * and everything allocated from here on keeps clear of them. */
	for_each_wing(w)
		if (w->claim_memory)
			w->claim_memory(&boot, &opt, busy, sizeof busy / sizeof busy[0]);
	for (uint32_t i = 0; i < 4; i++)
		reserved[n++] = busy[i].r;
	n += wings_reserved(&reserved[n], WINGS_RESERVED_MAX);
	bootmem_init(boot.mem, boot.mem_count, reserved, n);
}

static uint64_t place_trampoline(void)
{
	uint16_t base_kib = phys_read16(BDA_BASE_MEM_KIB);
	uint16_t ebda_seg = phys_read16(BDA_EBDA_SEGMENT);
	uint64_t bios_start = memmap_bios_area_start(base_kib, ebda_seg);
	struct phys_range excluded[4 + WINGS_RESERVED_MAX] = {
		{ (uintptr_t)__kernel_start, (uintptr_t)__kernel_end },
		{ boot.info_start, boot.info_end },
		{ bios_start, LOW_MEMORY_LIMIT },
		{ 0, 0x1000 }, /* real-mode IVT and BIOS data area */
	};
	uint32_t n = 4 + wings_reserved(&excluded[4], WINGS_RESERVED_MAX);
	kprintf("lowmem: firmware area from 0x%llx up (BDA: base memory %u KiB, "
		"EBDA segment 0x%x; Linux's reserve_bios_regions rule)\n",
		(unsigned long long)bios_start, base_kib, ebda_seg);
	return memmap_pick_low_page(boot.mem, boot.mem_count, excluded, n);
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

/* The firmware as far as it is known (kernel/firmware.h). */
static void identify_firmware(void)
{
	struct firmware_facts f = {
		.efi_tags = boot.firmware == FIRMWARE_UEFI,
		.protocol = boot.protocol,
		.loader = boot.loader_name,
		.hint = opt.firmware,
		.rsdp_phys = option_rsdp_len ? opt.acpi_rsdp : 0,
		.ebda_phys = bios_ebda(),
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
	check_option_rsdp();
	identify_firmware();
	reserve_boot_memory();
	console_set_self_id(cpu_apic_id);
	facts.firmware = firmware_name(boot.firmware);
	facts.loader = boot.loader_name;
	for_each_wing(w)
		if (w->boot_info)
			w->boot_info(&boot, &facts);
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
	kept_lines_begin();
	options_set_defaults(&opt_targets);
	options_parse(&opt_targets, boot.cmdline, APSTART_MAX_CPUS, diag_print, option_warning, 0);
	for_each_wing(w)
		if (w->options_parsed)
			w->options_parsed(&opt, &boot);
	switch_serial_console();
	run_choose();
}

/* exit=auto: qemu under QEMU (fw_cfg, a hypervisor), else halt. Decided
 * before anything can panic, so that a failure under QEMU ends QEMU
 * instead of halting it until a timeout. */
static bool choose_exit(void)
{
	bool qemu = qemu_detect();
	exit_mode = opt.exit;
	if (exit_mode == EXIT_AUTO)
		exit_mode = qemu ? EXIT_QEMU : EXIT_HALT;
	run_set_exit_mode(exit_mode);
	return qemu;
}

/* ... and QEMU's ACPI tables without a hypervisor bit (TCG) say QEMU too. */
static void confirm_exit(bool qemu)
{
	if (opt.exit == EXIT_AUTO && !qemu && memcmp(acpi.oem_id, "BOCHS ", 6) == 0) {
		exit_mode = EXIT_QEMU;
		run_set_exit_mode(exit_mode);
	}
	kprintf("exit: %s%s\n", exit_mode == EXIT_QEMU ? "qemu (isa-debug-exit)" :
		exit_mode == EXIT_RESET ? "reset" :
		exit_mode == EXIT_REBOOT ? "reboot (warm reset, RAM kept)" : "halt",
		opt.exit == EXIT_AUTO ? " (auto)" : "");
}

/* Runtime services for exit=reset and exit=reboot: their regions are
 * mapped now, while no AP runs (kernel/paging.h). */
static void map_runtime_services(void)
{
	if (boot.efi_system_table && (exit_mode == EXIT_RESET || exit_mode == EXIT_REBOOT))
		efi_runtime_init(&boot, diag_print, 0);
}

static void calibrate_tsc(void)
{
	tsc_init(&acpi);
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
		panic("local APIC unusable");
	if (!smp_setup(&acpi, opt.maxcpus))
		panic("no CPUs in the MADT");
	for_each_wing(w)
		if (w->cpus_found)
			w->cpus_found(&opt);
	slow_spins_set(opt.slow_tramp_ns, opt.slow_park_ns);
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

static void install_trampoline(void)
{
	tramp = place_trampoline();
	if (!tramp)
		panic("no free 4 KiB page below 1 MiB for the AP trampoline");
	if (!trampoline_install(tramp, ap_entry))
		panic("trampoline blob rejected");
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
	boot_report_cpu_model(facts.cpu_model);
	for_each_wing(w)
		if (w->run_starts)
			w->run_starts(&opt, &facts);
}

/* The measurement: first bring-up, then the cycles (smp/measure.c), or
 * the wing's measurement chosen instead (run_choose()). */
static bool measure(void)
{
	const struct wing_run *run = run_chosen();
	bool complete;

	for_each_wing(w)
		if (w->before_bring_up)
			w->before_bring_up();
	smp_bring_up(&opt.wake);
	for_each_wing(w)
		if (w->after_bring_up)
			w->after_bring_up(&opt);
	if (run) {
		complete = run->measure(&opt);
	} else {
		smp_run_cycles(&opt.wake, cycles);
		if (run_ended())
			halt_forever();
		kept_lines_report();
		complete = report_results(cycles);
	}
	if (run_ended())
		halt_forever();
	for_each_wing(w)
		if (w->measured)
			w->measured();
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
	msr_safe_init();
	nmi_init();
	boot_report_banner();

	read_boot_info(magic, info_phys);
	quiet_legacy_interrupts();
	read_command_line();
	bool qemu = choose_exit();
	find_acpi(boot.firmware != FIRMWARE_UEFI ? bios_ebda() : 0);
	confirm_exit(qemu);
	map_runtime_services();
	calibrate_tsc();
	find_cpus();
	install_trampoline();
	configure_wake();
	boot_report_run(&(struct boot_choices){
		.boot = &boot,
		.acpi = &acpi,
		.opt = &opt,
		.tramp = tramp,
		.aps = aps,
		.cycles = cycles,
	});
	announce_run();

	bool complete = measure();
	run_finish(run_verdict(cycles, complete));
}
