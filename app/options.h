/* SPDX-License-Identifier: MIT */
/* Kernel command line: key=value options, each validated and range-checked;
 * a bad one is reported and leaves the default. The core's options are one
 * table (app/options.c); each wing brings its own (app/wing.h). */
#ifndef APSTART_OPTIONS_H
#define APSTART_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "smp/lapic.h"
#include "smp/park.h"
#include "smp/instrument.h"
#include "smp/wake.h"
#include "kernel/firmware.h"
#include "lib/format.h"
#include "lib/keyword.h"

/* reset: the firmware's cold reset where it has one, else the chipset's;
 * reboot: a warm reset that keeps RAM (pstore=): the wings' (uefi, reset). */
enum exit_mode { EXIT_AUTO, EXIT_QEMU, EXIT_HALT, EXIT_RESET, EXIT_REBOOT };
/* icount=on: we run under an instruction-counting emulator (QEMU -icount,
 * round-robin TCG) and ap_start() keeps a LAPIC timer deadline armed until
 * the AP has taken its INIT; see smp/instrument.h. Off on real hardware. */
enum icount_mode { ICOUNT_OFF, ICOUNT_ON };
extern const struct keyword icount_words[];

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
	uint32_t console_port;   /* console=ttyS<n>: n, default 0 (COM1) */
	uint32_t console_baud;   /* default 115200 */
	enum firmware firmware;  /* firmware=uefi|bios: what the loader cannot
				  * say (kexec); default UNKNOWN ("auto") */
	uint64_t acpi_rsdp;      /* acpi_rsdp=: RSDP physical address, 0 = none */
	/* run_id=: the run as the one who asked for it names it (apstart run
	 * on Linux), printed in @boot and @end so that a record is tied to
	 * its request; "" = none. */
	char run_id[RUN_ID_MAX + 1];
	uint32_t slow_tramp_ns;  /* make SLOW_TRAMP_NS=N builds only: the test-only
				  * spin in the trampoline, default N */
	uint32_t slow_park_ns;   /* make SLOW_PARK_NS=N builds only: the test-only
				  * spin after the park path's WBINVD, default N */
};

/* One option: a row of a table, parsed into a field of the table's store
 * (struct options for the core's; a wing's own struct for its rows). */
struct option_row {
	const char *name;
	const char *linux_name;  /* Linux's name for the same setting */
	/* A value the row cannot describe (console=, pstore=): checks and
	 * stores it, returns NULL or why it is invalid; show() prints the
	 * current value in a message. */
	const char *(*parse)(void *store, const char *val, size_t len);
	void (*show)(const void *store, char *buf, size_t size);
	size_t offset;           /* of its field in the store */
	size_t wide;             /* 0: a 32-bit field; else the field's size,
				  * all zero by default (parse/show set it) */
	uint32_t def;
	uint32_t min, max;       /* numeric range (unused with keywords) */
	bool max_is_cpus;        /* max comes from the max_cpus argument */
	const char *def_name;    /* how def is shown if it is out of range */
	const struct keyword *keywords; /* NULL: numeric option */
	bool hidden;             /* not an option of its own here: set through
				  * another option's parse, or absent from
				  * this build */
};

/* Offset of field f of type T that must be 32 bits wide (uint32_t or an
 * enum, which gcc makes unsigned int; C11 6.5p7 allows access through
 * uint32_t). The array size goes negative, a compile error, for any
 * other width. */
#define OPTION_FIELD32(T, f)                       \
	(offsetof(T, f) + 0 * sizeof(char[sizeof(((T *)0)->f) == 4 ? 1 : -1]))
/* A row for field f of T, named as the field: default d, then a range
 * (.min, .max) or .keywords, and the rest of struct option_row. */
#define OPTION_ROW(T, f, d, ...) \
	{ .name = #f, .offset = OPTION_FIELD32(T, f), .def = (d), __VA_ARGS__ }
/* A field of another width (64-bit addresses), with its own parse/show. */
#define OPTION_WIDE(T, f, parse_fn, show_fn) \
	{ .name = #f, .offset = offsetof(T, f), .wide = sizeof(((T *)0)->f), \
	  .parse = (parse_fn), .show = (show_fn) }

/* A table of rows and the struct they fill. */
struct option_table {
	const struct option_row *rows;
	uint32_t count;
	void *store;
};
#define OPTION_TABLE(rows_, store_) \
	{ .rows = (rows_), .count = sizeof(rows_) / sizeof((rows_)[0]), .store = (store_) }

/* What one command line is parsed into: the core's options, the tables of
 * the wings linked in, and the options of those this kernel was built
 * without ("NAME:WING ...", app/wing.h), each refused by name. */
struct option_targets {
	struct options *core;
	const struct option_table *wings;
	uint32_t wing_count;
	const char *absent;
};

/* Every field of every table at its default. */
void options_set_defaults(const struct option_targets *t);

/* Parse a NUL-terminated command line into every table of t (Linux's
 * spellings too: docs/running.md). Leading words without '=' that contain
 * '/' are the boot image's path (QEMU -kernel) and skipped. max_cpus
 * bounds maxcpus=. Each problem goes to diag as a line for people and to
 * warn (NULL for none) as the words of a "@warn what=option problem=..."
 * record (unknown, no_wing, no_value, invalid, not_a_number,
 * out_of_range: a negative number is out of range). Returns how many. */
int options_parse(const struct option_targets *t, const char *cmdline, uint32_t max_cpus,
		  diag_fn diag, diag_fn warn, void *ctx);

/* For a row's parse(): the value of a hex digit, or -1. */
int option_hex_digit(char c);

#endif
