/* SPDX-License-Identifier: MIT */
/* Kernel command line: key=value options, each validated and range-checked.
 * Unknown options and bad values are reported through diag and leave the
 * default in place. Options that choose how smp/ works take that layer's
 * own values (enum x2apic_pref, bsp_wait, selftest). */
#ifndef APSTART_OPTIONS_H
#define APSTART_OPTIONS_H

#include <stdint.h>

#include "smp/lapic.h"
#include "smp/park.h"
#include "smp/selftest_points.h"
#include "smp/timing_knobs.h"
#include "smp/wake.h"
#include "kernel/firmware.h"
#include "lib/format.h"
#include "lib/keyword.h"

/* reset: the firmware's cold reset where it has one; reboot: a warm reset
 * that keeps RAM (pstore=), kernel/reset.h. */
enum exit_mode { EXIT_AUTO, EXIT_QEMU, EXIT_HALT, EXIT_RESET, EXIT_REBOOT };
/* save=on: keep the summary in a UEFI variable for the next boot
 * (wings/nvram/nvram_save.c); off: never call the firmware for it. */
enum save_mode { SAVE_ON, SAVE_OFF };
/* icount=on: we run under an instruction-counting emulator (QEMU -icount,
 * round-robin TCG) and ap_start() keeps a LAPIC timer deadline armed until
 * the AP has taken its INIT; see smp/icount_fence.h. Off on real hardware. */
enum icount_mode { ICOUNT_OFF, ICOUNT_ON };
extern const struct keyword icount_words[];

/* trampoline=: the code the APs start in. apstart: the core's own
 * (realmode/); linux: Linux's realmode blob, from a boot module
 * (wings/linux_trampoline, docs/linux-trampoline.md). */
enum trampoline_choice { TRAMPOLINE_APSTART, TRAMPOLINE_LINUX };
extern const struct keyword trampoline_words[];

/* probe=flush: instead of the offline/online cycles, time the cache
 * flushes themselves (wings/experiments/flush_probe.c). */
enum probe_mode { PROBE_NONE, PROBE_FLUSH };
/* flush_at_once=: how far the "N CPUs flush at once" rounds go: not at
 * all, up to the BSP's socket (default), or every CPU (opt-in: all CPUs
 * flushing at once was reported to hang a dual-socket machine). */
enum flush_at_once { AT_ONCE_NONE, AT_ONCE_SOCKET, AT_ONCE_ALL };

/* run_id=: 1..RUN_ID_MAX letters, digits, '-' and '_': nothing a
 * record's key=value words or a file name would read another way. */
#define RUN_ID_MAX 32

struct options {
	uint32_t cycles;        /* offline/online cycles per AP, default 10 */
	uint32_t maxcpus;       /* CPUs to use including the BSP; 0 = all */
	enum x2apic_pref x2apic;
	enum extnmi extnmi;     /* LINT1 NMIs: bsp (default, as Linux), all, none */
	enum exit_mode exit;
	/* init_delay_us, sipi_delay[_us], sipi_count, ap_timeout_ms, sipi_retry,
	 * park, bsp_wait, bringup, cycles_mode: */
	struct wake_config wake;
	enum icount_mode icount; /* default off; sets wake.icount_fence */
	enum selftest selftest;  /* default none */
	enum save_mode save;     /* default on */
	uint32_t console_port;   /* console=ttyS<n>: n, default 0 (COM1) */
	uint32_t console_baud;   /* default 115200 */
	uint32_t progress_ms;    /* status line refresh, default 250; 0: after
				  * every timed window (wings/screen/progress.c) */
	enum probe_mode probe;   /* default none: the cycles */
	uint32_t flush_reps;     /* probe=flush: repeats per point, default 3 */
	uint32_t flush_max_kib;  /* largest dirty footprint; 0: twice the LLC */
	uint32_t flush_cpus;     /* CPUs swept one by one; 0: every one */
	enum flush_at_once flush_at_once; /* default socket */
	uint32_t victims;        /* APs that run a memory-bound loop (wings/experiments/victims.h) */
	enum trampoline_choice trampoline; /* default apstart */
	enum firmware firmware;  /* firmware=uefi|bios: what the loader cannot
				  * say (kexec); default UNKNOWN ("auto") */
	/* Set through their own syntax (64-bit): */
	uint64_t acpi_rsdp;      /* acpi_rsdp=: RSDP physical address, 0 = none */
	uint64_t pstore_addr;    /* pstore=ADDR,SIZE: the ramoops console zone; */
	uint64_t pstore_size;    /* size 0 = none */
	/* run_id=: the run as the one who asked for it names it (apstart run
	 * on Linux), printed in @boot and @end so that a record is tied to
	 * its request; "" = none. */
	char run_id[RUN_ID_MAX + 1];
	uint32_t slow_tramp_ns;  /* make SLOW_TRAMP_NS=N builds only: the test-only
				  * spin in the trampoline, default N */
	uint32_t slow_park_ns;   /* make SLOW_PARK_NS=N builds only: the test-only
				  * spin after the park path's WBINVD, default N */
};

/* pstore=ADDR,SIZE bounds: SIZE a power of two in this range (ramoops
 * rounds its console_size down to one), ADDR a multiple of 4 (the
 * header's 32-bit words). */
#define PSTORE_SIZE_MIN (4ull << 10)
#define PSTORE_SIZE_MAX (1ull << 30)

void options_set_defaults(struct options *o);

/* Parse a NUL-terminated command line. Leading words without '=' that
 * contain '/' are taken as the boot image path (QEMU -kernel passes
 * "<file> <args>") and skipped silently. max_cpus bounds maxcpus=.
 * Linux's spellings of the same settings are accepted too: nosmp and
 * maxcpus=0 (maxcpus=1), nox2apic (x2apic=off), cpu_init_udelay=N
 * (init_delay_us=N), apic_extnmi= (extnmi=),
 * console=ttyS<n>[,<baud>] (console=tty0, the screen,
 * is always on and accepted silently), acpi_rsdp=ADDR (hex, 0x optional,
 * as Linux's kstrtoul(arg, 16)). run_id=ID (RUN_ID_MAX).
 * Each problem goes to diag as a line for people and to warn (NULL for
 * none) as the words of a "@warn what=option problem=..." record:
 * unknown (token=), no_value, invalid, not_a_number, out_of_range (with
 * min= max=; a negative number is out of range, not "not a number"), each
 * with option=, value= and the value kept=.
 * Returns the number of problems reported. */
int options_parse(struct options *o, const char *cmdline, uint32_t max_cpus,
		  diag_fn diag, diag_fn warn, void *ctx);

#endif
