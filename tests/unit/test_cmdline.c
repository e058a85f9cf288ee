/* SPDX-License-Identifier: MIT */
/* app/options.c: options, ranges, junk input, messages. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "app/options.h"
#include "helpers.h"
#include "wings/pstore/pstore_option.h"
#include "wings/selftest/selftest_option.h"

static struct diag_log dlog, wlog; /* messages; @warn records' words */

/* A wing's options, as a wing brings them (app/wing.h): its own rows and
 * struct, parsed from the same command line as the core's. */
enum knob_mode { KNOB_SOCKET, KNOB_ALL };
static struct knob_options {
	uint32_t knob_reps;
	uint32_t knob_cpus;
	enum knob_mode knob_mode;
} knob;
static const struct keyword knob_mode_words[] = {
	{ "socket", KNOB_SOCKET }, { "all", KNOB_ALL }, { NULL, 0 },
};
static const struct option_row knob_rows[] = {
	OPTION_ROW(struct knob_options, knob_reps, 3, .min = 1, .max = 50),
	OPTION_ROW(struct knob_options, knob_cpus, 0, .min = 1, .max_is_cpus = true,
		   .def_name = "all"),
	OPTION_ROW(struct knob_options, knob_mode, KNOB_SOCKET, .keywords = knob_mode_words),
};
/* The linked wings' tables: the test's, the pstore wing's pstore= and
 * the selftest wing's selftest=; the nvram and experiments wings left out. */
static const struct option_table wing_tables[] = {
	OPTION_TABLE(knob_rows, &knob),
	OPTION_TABLE(pstore_option_rows, &pstore_options),
	OPTION_TABLE(selftest_option_rows, &selftest_options),
};
#define ABSENT "save:nvram probe:experiments flush_reps:experiments"

static struct option_targets targets(struct options *o)
{
	return (struct option_targets){ .core = o, .wings = wing_tables, .wing_count = 3,
					.absent = ABSENT };
}

static void warn_words(void *ctx, const char *rec)
{
	(void)ctx;
	diag_record(&wlog, rec);
}

/* Every problem is one message and one record. */
static int parse(struct options *o, const char *s, uint32_t max_cpus)
{
	struct option_targets t = targets(o);

	options_set_defaults(&t);
	diag_reset(&dlog);
	diag_reset(&wlog);
	int n = options_parse(&t, s, max_cpus, diag_record, warn_words, &dlog);
	CHECK_EQ(wlog.count, dlog.count);
	CHECK_EQ(wlog.count, (unsigned)n);
	return n;
}

static bool is_default(const struct options *o)
{
	return o->cycles == 10 && o->maxcpus == 0 &&
	       o->x2apic == X2APIC_AUTO && o->wake.init_delay_us == INIT_DELAY_AUTO &&
	       o->wake.sipi_delay == SIPI_DELAY_LINUX && o->wake.sipi_delay_us == 10 &&
	       o->wake.sipi_count == 2 && o->wake.ap_timeout_ms == 1000 &&
	       o->exit == EXIT_AUTO && o->wake.bsp_wait == BSP_WAIT_SPIN &&
	       o->icount == ICOUNT_OFF && selftest_options.selftest == SELFTEST_NONE &&
	       o->wake.park == PARK_LINUX && knob.knob_reps == 3 && knob.knob_cpus == 0 &&
	       knob.knob_mode == KNOB_SOCKET && !pstore_options.pstore.size;
}

static void test_defaults_and_empty(void)
{
	struct options o;

	struct option_targets t = targets(&o);
	memset(&o, 0xA5, sizeof(o));
	memset(&knob, 0xA5, sizeof(knob));
	memset(&pstore_options, 0xA5, sizeof(pstore_options));
	memset(&selftest_options, 0xA5, sizeof(selftest_options));
	options_set_defaults(&t);
	CHECK(is_default(&o));

	CHECK_EQ(parse(&o, "", 8), 0);
	CHECK(is_default(&o));
	CHECK_EQ(dlog.count, 0);
	CHECK_EQ(parse(&o, NULL, 8), 0);
	CHECK(is_default(&o));
	CHECK_EQ(parse(&o, "   \t  \t", 8), 0);
	CHECK(is_default(&o));
	CHECK_EQ(dlog.count, 0);
}

static void test_all_valid(void)
{
	struct options o;

	CHECK_EQ(parse(&o,
		       "cycles=250 maxcpus=4 x2apic=off init_delay_us=0 "
		       "sipi_delay_us=200\tap_timeout_ms=600000 exit=qemu",
		       8),
		 0);
	CHECK_EQ(dlog.count, 0);
	CHECK_EQ(o.cycles, 250);
	CHECK_EQ(o.maxcpus, 4);
	CHECK_EQ(o.x2apic, X2APIC_OFF);
	CHECK_EQ(o.wake.init_delay_us, 0);
	CHECK_EQ(o.wake.sipi_delay_us, 200);
	CHECK_EQ(o.wake.ap_timeout_ms, 600000);
	CHECK_EQ(o.exit, EXIT_QEMU);

	CHECK_EQ(parse(&o, "x2apic=on exit=halt", 8), 0);
	CHECK_EQ(o.x2apic, X2APIC_ON);
	CHECK_EQ(o.exit, EXIT_HALT);
	CHECK_EQ(parse(&o, "x2apic=on x2apic=auto exit=halt exit=auto", 8), 0);
	CHECK_EQ(o.x2apic, X2APIC_AUTO);
	CHECK_EQ(o.exit, EXIT_AUTO);

	CHECK_EQ(parse(&o, "bsp_wait=hlt selftest=ap-hang", 8), 0);
	CHECK_EQ(o.wake.bsp_wait, BSP_WAIT_HLT);
	CHECK_EQ(selftest_options.selftest, SELFTEST_AP_HANG);
	CHECK_EQ(parse(&o, "icount=on", 8), 0);
	CHECK_EQ(o.icount, ICOUNT_ON);
	CHECK_EQ(parse(&o, "exit=reset", 8), 0);
	CHECK_EQ(o.exit, EXIT_RESET);
	CHECK_EQ(parse(&o, "icount=on icount=off", 8), 0);
	CHECK_EQ(o.icount, ICOUNT_OFF);
	CHECK_EQ(parse(&o, "selftest=bsp-fault selftest=ap-fault", 8), 0);
	CHECK_EQ(selftest_options.selftest, SELFTEST_AP_FAULT);
	CHECK_EQ(parse(&o, "sipi_count=1", 8), 0);
	CHECK_EQ(o.wake.sipi_count, 1);
	CHECK_EQ(parse(&o, "sipi_count=auto", 8), 0);
	CHECK_EQ(o.wake.sipi_count, SIPI_COUNT_AUTO);
	CHECK_EQ(parse(&o, "sipi_count=3 sipi_count=0", 8), 2);
	CHECK_EQ(o.wake.sipi_count, 2);
	CHECK_STREQ(dlog.msg[1], "cmdline: sipi_count=0 invalid, expected auto|1|2, keeping 2");
	CHECK_EQ(parse(&o, "sipi_delay=fixed sipi_delay_us=0", 8), 0);
	CHECK_EQ(o.wake.sipi_delay, SIPI_DELAY_FIXED);
	CHECK_EQ(o.wake.sipi_delay_us, 0);
	CHECK_EQ(parse(&o, "sipi_delay=fixed sipi_delay=linux", 8), 0);
	CHECK_EQ(o.wake.sipi_delay, SIPI_DELAY_LINUX);
	CHECK_EQ(parse(&o, "sipi_delay=10", 8), 1);
	CHECK_EQ(o.wake.sipi_delay, SIPI_DELAY_LINUX);
	CHECK_STREQ(dlog.msg[0], "cmdline: sipi_delay=10 invalid, expected linux|fixed, keeping linux");
	CHECK_EQ(parse(&o, "park=hlt", 8), 0);
	CHECK_EQ(o.wake.park, PARK_HLT);
	CHECK_EQ(parse(&o, "park=mwait", 8), 0);
	CHECK_EQ(o.wake.park, PARK_MWAIT);
	CHECK_EQ(parse(&o, "park=init park=linux", 8), 0);
	CHECK_EQ(o.wake.park, PARK_LINUX);
	CHECK_EQ(parse(&o, "park=init", 8), 0);
	CHECK_EQ(o.wake.park, PARK_INIT);
	CHECK_EQ(parse(&o, "park=wbinvd", 8), 1);
	CHECK_EQ(o.wake.park, PARK_LINUX);
	CHECK_STREQ(dlog.msg[0], "cmdline: park=wbinvd invalid, expected linux|hlt|mwait|init, keeping linux");
	CHECK_EQ(parse(&o, "selftest=tsc-skew", 8), 0);
	CHECK_EQ(selftest_options.selftest, SELFTEST_TSC_SKEW);
	CHECK_EQ(parse(&o, "selftest=double-start", 8), 0);
	CHECK_EQ(selftest_options.selftest, SELFTEST_DOUBLE_START);
	CHECK_EQ(parse(&o, "selftest=ap_hang bsp_wait=halt", 8), 2);
	CHECK_EQ(selftest_options.selftest, SELFTEST_NONE);
	CHECK_EQ(o.wake.bsp_wait, BSP_WAIT_SPIN);
	CHECK_STREQ(dlog.msg[0], "cmdline: selftest=ap_hang invalid, expected "
				 "none|bsp-fault|ap-fault|ap-hang|double-start|apic-renumber|"
				 "ap-late|tsc-skew|lost-sipi|stray-ipi|parked-nmi|smi, keeping none");
	/* A wing's options (app/wing.h): into its own struct, by the same
	 * rules and in the same messages as the core's. */
	CHECK_EQ(parse(&o, "knob_reps=7 cycles=3 knob_cpus=2 knob_mode=all selftest=smi", 8), 0);
	CHECK_EQ(knob.knob_reps, 7);
	CHECK_EQ(knob.knob_cpus, 2);
	CHECK_EQ(knob.knob_mode, KNOB_ALL);
	CHECK_EQ(o.cycles, 3);
	CHECK_EQ(selftest_options.selftest, SELFTEST_SMI);
	CHECK_EQ(parse(&o, "knob_reps=0 knob_cpus=9 knob_mode=every", 8), 3);
	CHECK_EQ(knob.knob_reps, 3);
	CHECK_EQ(knob.knob_cpus, 0);
	CHECK_EQ(knob.knob_mode, KNOB_SOCKET);
	CHECK_STREQ(dlog.msg[0], "cmdline: knob_reps=0 is out of range 1..50, keeping 3");
	CHECK_STREQ(dlog.msg[1], "cmdline: knob_cpus=9 is out of range 1..8, keeping all");
	CHECK_STREQ(dlog.msg[2], "cmdline: knob_mode=every invalid, expected socket|all, "
				 "keeping socket");
	/* A wing this kernel was built without: its options are named as its
	 * own, ignored, each one problem (a @warn), never "unknown". */
	CHECK_EQ(parse(&o, "save=off cycles=4 probe=flush flush_reps=x", 8), 3);
	CHECK_EQ(o.cycles, 4);
	CHECK_STREQ(dlog.msg[0], "cmdline: save= belongs to the nvram wing, not linked in this "
				 "kernel; ignored");
	CHECK_STREQ(wlog.msg[0], "what=option problem=no_wing option=save wing=nvram");
	CHECK_STREQ(dlog.msg[1], "cmdline: probe= belongs to the experiments wing, not linked in "
				 "this kernel; ignored");
	CHECK_STREQ(wlog.msg[2], "what=option problem=no_wing option=flush_reps wing=experiments");
	/* A name only one absent option begins with, or ends with, is not it. */
	CHECK_EQ(parse(&o, "sav=off ave=off flush=1", 8), 3);
	CHECK_EQ(diag_count_with(&wlog, "problem=unknown"), 3);
	CHECK_EQ(parse(&o, "sipi_retry=0 extnmi=all selftest=lost-sipi", 8), 0);
	CHECK_EQ(o.wake.sipi_retry, 0);
	CHECK_EQ(o.extnmi, EXTNMI_ALL);
	CHECK_EQ(selftest_options.selftest, SELFTEST_LOST_SIPI);
	CHECK_EQ(parse(&o, "apic_extnmi=none sipi_retry=10 selftest=stray-ipi", 8), 0);
	CHECK_EQ(o.extnmi, EXTNMI_NONE);
	CHECK_EQ(o.wake.sipi_retry, 10);
	CHECK_EQ(selftest_options.selftest, SELFTEST_STRAY_IPI);
	CHECK_EQ(parse(&o, "sipi_retry=11 extnmi=some", 8), 2);
	CHECK_EQ(o.wake.sipi_retry, 1);
	CHECK_EQ(o.extnmi, EXTNMI_BSP);
	CHECK_STREQ(dlog.msg[1], "cmdline: extnmi=some invalid, expected bsp|all|none, keeping bsp");

	/* Range edges are inclusive. */
	CHECK_EQ(parse(&o, "cycles=1 ap_timeout_ms=1 init_delay_us=10000000 "
			   "sipi_delay_us=0 maxcpus=8",
		       8),
		 0);
	CHECK_EQ(o.cycles, 1);
	CHECK_EQ(o.wake.ap_timeout_ms, 1);
	CHECK_EQ(o.wake.init_delay_us, 10000000);
	CHECK_EQ(o.wake.sipi_delay_us, 0);
	CHECK_EQ(o.maxcpus, 8);
	CHECK_EQ(parse(&o, "cycles=100000", 8), 0);
	CHECK_EQ(o.cycles, 100000);

	/* Hex and leading zeros. */
	CHECK_EQ(parse(&o, "cycles=0x10 sipi_delay_us=0XfF ap_timeout_ms=007",
		       8),
		 0);
	CHECK_EQ(o.cycles, 16);
	CHECK_EQ(o.wake.sipi_delay_us, 255);
	CHECK_EQ(o.wake.ap_timeout_ms, 7);

	/* Last one wins. */
	CHECK_EQ(parse(&o, "cycles=3 cycles=4 cycles=5", 8), 0);
	CHECK_EQ(o.cycles, 5);
}

static void test_bad_values(void)
{
	struct options o;

	CHECK_EQ(parse(&o, "cycles=0", 8), 1);
	CHECK_EQ(o.cycles, 10);
	CHECK_EQ(dlog.count, 1);
	CHECK_STREQ(dlog.msg[0],
		    "cmdline: cycles=0 is out of range 1..100000, keeping 10");

	CHECK_EQ(parse(&o, "cycles=", 8), 1);
	CHECK_EQ(o.cycles, 10);
	CHECK_STREQ(dlog.msg[0], "cmdline: cycles= has no value, keeping 10");

	CHECK_EQ(parse(&o, "cycles=abc", 8), 1);
	CHECK_EQ(o.cycles, 10);
	CHECK_STREQ(dlog.msg[0],
		    "cmdline: cycles=abc is not a number (1..100000), keeping 10");

	CHECK_EQ(parse(&o, "cycles=99999999999999999999", 8), 1);
	CHECK_EQ(o.cycles, 10);
	CHECK_EQ(diag_count_with(&dlog, "out of range"), 1);
	/* Just past 32 bits, and a hex overflow. */
	CHECK_EQ(parse(&o, "cycles=4294967296 sipi_delay_us=0x100000000", 8),
		 2);
	CHECK_EQ(o.cycles, 10);
	CHECK_EQ(o.wake.sipi_delay_us, 10);

	CHECK_EQ(parse(&o, "cycles=5x", 8), 1);
	CHECK_EQ(o.cycles, 10);
	CHECK_EQ(diag_count_with(&dlog, "not a number"), 1);
	/* Overflowing digits followed by junk is still junk. */
	CHECK_EQ(parse(&o, "cycles=99999999999999999999x", 8), 1);
	CHECK_EQ(diag_count_with(&dlog, "not a number"), 1);

	const char *junk[] = {
		"cycles==5", "cycles=5=6", "cycles=-5", "cycles=+5",
		"cycles=0x", "cycles=0xg", "cycles= 5", "cycles=1.5",
		"cycles=5 ", /* the value is "5"; trailing space is fine */
	};
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		int r = parse(&o, junk[i], 8);
		if (i == sizeof(junk) / sizeof(junk[0]) - 1) {
			CHECK_EQ(r, 0);
			CHECK_EQ(o.cycles, 5);
		} else if (i == 6) {
			/* "cycles=" then an unknown bare word "5" */
			CHECK_EQ(r, 2);
			CHECK_EQ(o.cycles, 10);
		} else {
			CHECK_EQ(r, 1);
			CHECK_EQ(o.cycles, 10);
		}
	}

	/* A negative number is out of range, for every numeric option (not
	 * "not a number"): the message and the record say the range. */
	static const struct { const char *opt, *msg, *rec; } neg[] = {
		{ "cycles=-1", "cmdline: cycles=-1 is out of range 1..100000, keeping 10",
		  "problem=out_of_range option=cycles value=-1 min=1 max=100000 kept=10" },
		{ "maxcpus=-2", "cmdline: maxcpus=-2 is out of range 1..8, keeping all",
		  "problem=out_of_range option=maxcpus value=-2 min=1 max=8 kept=all" },
		{ "init_delay_us=-1", "cmdline: init_delay_us=-1 is out of range 0..10000000, keeping auto",
		  "problem=out_of_range option=init_delay_us value=-1 min=0 max=10000000 kept=auto" },
		{ "sipi_delay_us=-1", "cmdline: sipi_delay_us=-1 is out of range 0..10000000, keeping 10",
		  "problem=out_of_range option=sipi_delay_us value=-1 min=0 max=10000000 kept=10" },
		{ "ap_timeout_ms=-1", "cmdline: ap_timeout_ms=-1 is out of range 1..600000, keeping 1000",
		  "problem=out_of_range option=ap_timeout_ms value=-1 min=1 max=600000 kept=1000" },
		{ "sipi_retry=-1", "cmdline: sipi_retry=-1 is out of range 0..10, keeping 1",
		  "problem=out_of_range option=sipi_retry value=-1 min=0 max=10 kept=1" },
		{ "knob_reps=-1", "cmdline: knob_reps=-1 is out of range 1..50, keeping 3",
		  "problem=out_of_range option=knob_reps value=-1 min=1 max=50 kept=3" },
		{ "knob_cpus=-1", "cmdline: knob_cpus=-1 is out of range 1..8, keeping all",
		  "problem=out_of_range option=knob_cpus value=-1 min=1 max=8 kept=all" },
		{ "cycles=-99999999999", "cmdline: cycles=-99999999999 is out of range 1..100000, keeping 10",
		  "problem=out_of_range option=cycles value=-99999999999 min=1 max=100000 kept=10" },
	};
	for (size_t i = 0; i < sizeof neg / sizeof neg[0]; i++) {
		CHECK_EQ(parse(&o, neg[i].opt, 8), 1);
		CHECK_STREQ(dlog.msg[0], neg[i].msg);
		CHECK_EQ(diag_count_with(&wlog, neg[i].rec), 1);
	}
	/* A minus sign before junk is junk. */
	CHECK_EQ(parse(&o, "cycles=-x", 8), 1);
	CHECK_STREQ(dlog.msg[0], "cmdline: cycles=-x is not a number (1..100000), keeping 10");

	/* Out of range keeps the previous valid value, and says so. */
	CHECK_EQ(parse(&o, "cycles=7 cycles=200000", 8), 1);
	CHECK_EQ(o.cycles, 7);
	CHECK_STREQ(dlog.msg[0],
		    "cmdline: cycles=200000 is out of range 1..100000, keeping 7");

	CHECK_EQ(parse(&o, "ap_timeout_ms=0 init_delay_us=10000001", 8), 2);
	CHECK_EQ(o.wake.ap_timeout_ms, 1000);
	CHECK_EQ(o.wake.init_delay_us, INIT_DELAY_AUTO);
	CHECK_STREQ(dlog.msg[1],
		    "cmdline: init_delay_us=10000001 is out of range 0..10000000, "
		    "keeping auto");

	/* maxcpus is bounded by the max_cpus argument. */
	CHECK_EQ(parse(&o, "maxcpus=9", 8), 1);
	CHECK_EQ(o.maxcpus, 0);
	CHECK_STREQ(dlog.msg[0],
		    "cmdline: maxcpus=9 is out of range 1..8, keeping all");
	/* maxcpus=0 is Linux's "no APs": the BSP only. */
	CHECK_EQ(parse(&o, "maxcpus=0", 8), 0);
	CHECK_EQ(o.maxcpus, 1);
	CHECK_EQ(parse(&o, "maxcpus=00", 8), 1);
	CHECK_EQ(parse(&o, "maxcpus=9", 16), 0);
	CHECK_EQ(o.maxcpus, 9);

	CHECK_EQ(parse(&o, "x2apic=maybe exit=restart x2apic=ON", 8), 3);
	CHECK_EQ(o.x2apic, X2APIC_AUTO);
	CHECK_EQ(o.exit, EXIT_AUTO);
	CHECK_STREQ(dlog.msg[0], "cmdline: x2apic=maybe invalid, expected "
				 "auto|on|off, keeping auto");
	CHECK_STREQ(dlog.msg[1], "cmdline: exit=restart invalid, expected "
				 "auto|qemu|halt|reset|reboot, keeping auto");
	CHECK_EQ(parse(&o, "x2apic=", 8), 1);
	CHECK_EQ(parse(&o, "x2apic=onn x2apic=o", 8), 2);
	CHECK_EQ(o.x2apic, X2APIC_AUTO);

	/* Bad values mixed with good ones: only the bad ones are dropped. */
	CHECK_EQ(parse(&o, "cycles=x maxcpus=2 exit=?? ap_timeout_ms=50", 8), 2);
	CHECK_EQ(o.cycles, 10);
	CHECK_EQ(o.maxcpus, 2);
	CHECK_EQ(o.exit, EXIT_AUTO);
	CHECK_EQ(o.wake.ap_timeout_ms, 50);
}

static void test_unknown_and_paths(void)
{
	struct options o;

	CHECK_EQ(parse(&o, "foo=1", 8), 1);
	CHECK_STREQ(dlog.msg[0], "cmdline: unknown option 'foo=1' ignored");
	CHECK(is_default(&o));

	CHECK_EQ(parse(&o, "=", 8), 1);
	CHECK_STREQ(dlog.msg[0], "cmdline: unknown option '=' ignored");
	CHECK_EQ(parse(&o, "=5 ==", 8), 2);
	CHECK(is_default(&o));

	/* Prefixes and case variants of a name are not the option. */
	CHECK_EQ(parse(&o, "cycle=5 cyclesx=5 CYCLES=5 c=5", 8), 4);
	CHECK_EQ(o.cycles, 10);

	/* The test-only spins' sizes are options only of the builds that
	 * have the spin (make SLOW_TRAMP_NS=N / SLOW_PARK_NS=N); these tests
	 * are built as a plain kernel, without either. */
	CHECK_EQ(parse(&o, "slow_tramp_ns=5000 slow_park_ns=5000", 8), 2);
	CHECK_STREQ(dlog.msg[0], "cmdline: unknown option 'slow_tramp_ns=5000' ignored");
	CHECK_STREQ(dlog.msg[1], "cmdline: unknown option 'slow_park_ns=5000' ignored");
	CHECK_EQ(o.slow_tramp_ns, 0);
	CHECK_EQ(o.slow_park_ns, 0);

	/* A bare word is an unknown option. */
	CHECK_EQ(parse(&o, "quiet", 8), 1);
	CHECK_STREQ(dlog.msg[0], "cmdline: unknown option 'quiet' ignored");

	/* Leading path(s) from the loader are skipped silently. */
	CHECK_EQ(parse(&o, "/boot/apstart.elf cycles=3", 8), 0);
	CHECK_EQ(o.cycles, 3);
	CHECK_EQ(dlog.count, 0);
	CHECK_EQ(parse(&o, "  build/apstart.elf\tcycles=4  ", 8), 0);
	CHECK_EQ(o.cycles, 4);
	CHECK_EQ(parse(&o, "/boot/apstart.elf", 8), 0);
	CHECK_EQ(dlog.count, 0);
	CHECK_EQ(parse(&o, "(hd0,1)/boot/a b/c cycles=2", 8), 0);
	CHECK_EQ(o.cycles, 2);
	/* ...but only before the first option. */
	CHECK_EQ(parse(&o, "cycles=3 /boot/apstart.elf", 8), 1);
	CHECK_EQ(o.cycles, 3);
	CHECK_EQ(diag_count_with(&dlog, "'/boot/apstart.elf'"), 1);
	/* A word without '/' ends the leading part too. */
	CHECK_EQ(parse(&o, "quiet /boot/x", 8), 2);
	/* A path-looking token with '=' is an option token. */
	CHECK_EQ(parse(&o, "a/b=1", 8), 1);

	/* Non-printable bytes are not echoed raw. */
	CHECK_EQ(parse(&o, "b\x01\x7f=1", 8), 1);
	CHECK_STREQ(dlog.msg[0], "cmdline: unknown option 'b?" "?=1' ignored");
	/* A newline is not a separator: the token is unknown. */
	CHECK_EQ(parse(&o, "cycles=5\nexit=qemu", 8), 1);
	CHECK_EQ(o.cycles, 10);
	CHECK_EQ(o.exit, EXIT_AUTO);
}

static void test_huge_tokens(void)
{
	struct options o;
	size_t n = 100000;
	char *s = malloc(n + 32);

	CHECK(s != NULL);
	if (!s)
		return;
	/* One enormous unknown token: reported once, cut short. */
	memset(s, 'a', n);
	s[n] = '\0';
	CHECK_EQ(parse(&o, s, 8), 1);
	CHECK(strlen(dlog.msg[0]) < 100);
	CHECK(strstr(dlog.msg[0], "...' ignored") != NULL);

	/* A huge numeric value: out of range, not a crash or a wrap. */
	memcpy(s, "cycles=", 7);
	memset(s + 7, '9', n - 7);
	s[n] = '\0';
	CHECK_EQ(parse(&o, s, 8), 1);
	CHECK_EQ(o.cycles, 10);
	CHECK_EQ(diag_count_with(&dlog, "out of range"), 1);

	/* Huge value made of zeros then a valid number is still that number. */
	memset(s + 7, '0', n - 7);
	s[n - 1] = '7';
	CHECK_EQ(parse(&o, s, 8), 0);
	CHECK_EQ(o.cycles, 7);

	/* Huge keyword value and huge path. */
	memcpy(s, "exit=", 5);
	memset(s + 5, 'q', n - 5);
	s[n] = '\0';
	CHECK_EQ(parse(&o, s, 8), 1);
	CHECK_EQ(o.exit, EXIT_AUTO);
	s[0] = '/';
	memset(s + 1, 'p', n - 1);
	strcpy(s + n, " cycles=9");
	CHECK_EQ(parse(&o, s, 8), 0);
	CHECK_EQ(o.cycles, 9);

	/* Many tokens: each problem is counted. */
	size_t pos = 0;
	for (int i = 0; i < 1000; i++) {
		memcpy(s + pos, "x=1 ", 4);
		pos += 4;
	}
	s[pos] = '\0';
	CHECK_EQ(parse(&o, s, 8), 1000);
	CHECK_EQ(dlog.count, 1000);
	free(s);
}

static void test_null_diag(void)
{
	struct options o;
	struct option_targets t = targets(&o);

	options_set_defaults(&t);
	CHECK_EQ(options_parse(&t, "bogus cycles=0 save=on cycles=12", 8, NULL, NULL, NULL),
		 3);
	CHECK_EQ(o.cycles, 12);
}

/* Bad options are results: the words of one @warn record each, the
 * value kept, the token printable. */
static void test_warn_records(void)
{
	struct options o;

	CHECK_EQ(parse(&o, "frobnicate=1 cycles=0 park=sleep x2apic= maxcpus=abc "
		       "console=ttyS9 sipi_retry=11", 8), 7);
	CHECK_EQ(diag_count_with(&wlog, "what=option problem=unknown token=frobnicate=1"), 1);
	CHECK_EQ(diag_count_with(&wlog, "what=option problem=out_of_range option=cycles "
				 "value=0 min=1 max=100000 kept=10"), 1);
	CHECK_EQ(diag_count_with(&wlog, "what=option problem=invalid option=park value=sleep "
				 "kept=linux"), 1);
	CHECK_EQ(diag_count_with(&wlog, "what=option problem=no_value option=x2apic kept=auto"), 1);
	CHECK_EQ(diag_count_with(&wlog, "what=option problem=not_a_number option=maxcpus "
				 "value=abc kept=all"), 1);
	CHECK_EQ(diag_count_with(&wlog, "what=option problem=invalid option=console "
				 "value=ttyS9 kept=ttyS0"), 1);
	CHECK_EQ(diag_count_with(&wlog, "problem=out_of_range option=sipi_retry value=11 "
				 "min=0 max=10 kept=1"), 1);
	/* A control byte in a token is shown as '?': one line, no space. */
	CHECK_EQ(parse(&o, "cyc\x01les=2 cycles=\x1b[2J", 8), 2);
	CHECK_EQ(diag_count_with(&wlog, "problem=unknown token=cyc?les=2"), 1);
	CHECK_EQ(diag_count_with(&wlog, "problem=not_a_number option=cycles value=?[2J kept=10"), 1);
	for (unsigned i = 0; i < wlog.count && i < DIAG_MAX; i++)
		for (const char *c = wlog.msg[i]; *c; c++)
			CHECK(*c > ' ' || *c == ' ');
	/* Good ones: none. */
	CHECK_EQ(parse(&o, "cycles=3 park=hlt", 8), 0);
	CHECK_EQ(wlog.count, 0);
}

/* Every wake_config field is its option's; init_delay_us stays auto until
 * the kernel resolves it (smp_resolve_wake()). */
static void test_wake_config(void)
{
	struct options o;
	struct wake_config w;

	CHECK_EQ(parse(&o, "", 8), 0);
	w = o.wake;
	CHECK_EQ(w.init_delay_us, INIT_DELAY_AUTO);
	CHECK_EQ(w.sipi_delay, SIPI_DELAY_LINUX);
	CHECK_EQ(w.sipi_count, 2);
	CHECK_EQ(w.ap_timeout_ms, 1000);
	CHECK_EQ(w.bsp_wait, BSP_WAIT_SPIN);
	CHECK_EQ(w.park, PARK_LINUX);
	CHECK_EQ(w.sipi_retry, 1);
	CHECK_EQ(o.icount, ICOUNT_OFF);
	CHECK_EQ(w.bringup, BRINGUP_SERIAL);
	CHECK_EQ(w.cycles_mode, CYCLES_SERIAL);

	CHECK_EQ(parse(&o, "init_delay_us=0 sipi_delay=fixed sipi_delay_us=300 "
		       "sipi_count=auto ap_timeout_ms=50 bsp_wait=hlt park=init "
		       "sipi_retry=3 icount=on bringup=broadcast cycles_mode=parallel", 8), 0);
	w = o.wake;
	CHECK_EQ(w.init_delay_us, 0);
	CHECK_EQ(w.sipi_delay, SIPI_DELAY_FIXED);
	CHECK_EQ(w.sipi_delay_us, 300);
	CHECK_EQ(w.sipi_count, SIPI_COUNT_AUTO);
	CHECK_EQ(w.ap_timeout_ms, 50);
	CHECK_EQ(w.bsp_wait, BSP_WAIT_HLT);
	CHECK_EQ(w.park, PARK_INIT);
	CHECK_EQ(w.sipi_retry, 3);
	CHECK_EQ(o.icount, ICOUNT_ON);
	CHECK_EQ(w.bringup, BRINGUP_BROADCAST);
	CHECK_EQ(w.cycles_mode, CYCLES_PARALLEL);
}

static void test_linux_spellings(void)
{
	struct options o;

	CHECK_EQ(parse(&o, "nosmp nox2apic cpu_init_udelay=10000", 8), 0);
	CHECK_EQ(o.maxcpus, 1);
	CHECK_EQ(o.x2apic, X2APIC_OFF);
	CHECK_EQ(o.wake.init_delay_us, 10000);
	/* Only whole words: nosmpx is unknown; a later option wins. */
	CHECK_EQ(parse(&o, "nosmpx nosmp maxcpus=3", 8), 1);
	CHECK_EQ(o.maxcpus, 3);
	CHECK_STREQ(dlog.msg[0], "cmdline: unknown option 'nosmpx' ignored");
	CHECK_EQ(parse(&o, "cpu_init_udelay=x", 8), 1);
	CHECK_STREQ(dlog.msg[0], "cmdline: cpu_init_udelay=x is not a number (0..10000000), "
				 "keeping auto");

	/* console=ttyS<n>[,<baud>[n8]]: COM1-COM4. */
	CHECK_EQ(o.console_port, 0);
	CHECK_EQ(o.console_baud, 115200);
	CHECK_EQ(parse(&o, "console=ttyS1", 8), 0);
	CHECK_EQ(o.console_port, 1);
	CHECK_EQ(o.console_baud, 115200);
	CHECK_EQ(parse(&o, "console=tty0 console=ttyS3,9600", 8), 0);
	CHECK_EQ(o.console_port, 3);
	CHECK_EQ(o.console_baud, 9600);
	CHECK_EQ(parse(&o, "console=ttyS2,57600n8", 8), 0);
	CHECK_EQ(o.console_port, 2);
	CHECK_EQ(o.console_baud, 57600);
	static const char *const bad[] = {
		"console=ttyS4", "console=ttyS", "console=ttyS1,", "console=ttyS1,1000",
		"console=ttyS1,0", "console=ttyS1,115200e7", "console=ttyUSB0",
		"console=ttyS1,99999999999", "console=ttyS0x1", "console=",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_EQ(parse(&o, bad[i], 8), 1);
		CHECK_EQ(o.console_port, 0);
		CHECK_EQ(o.console_baud, 115200);
	}
	CHECK_EQ(parse(&o, "console=ttyUSB0", 8), 1);
	CHECK_STREQ(dlog.msg[0], "cmdline: console=ttyUSB0 invalid: only "
				 "ttyS0..ttyS3 (and tty0); keeping ttyS0");
	/* The baud row is not an option of its own. */
	CHECK_EQ(parse(&o, "console_baud=9600", 8), 1);
	CHECK_EQ(o.console_baud, 115200);
}

/* The options a kexec from Linux passes (docs/from-linux.md). */
static void test_from_linux(void)
{
	struct options o;

	CHECK_EQ(parse(&o, "acpi_rsdp=0x3f77d014 firmware=uefi pstore=0x30000000,512K exit=reboot", 8), 0);
	CHECK_EQ(o.acpi_rsdp, 0x3f77d014);
	CHECK_EQ(o.firmware, FIRMWARE_UEFI);
	CHECK_EQ(pstore_options.pstore.addr, 0x30000000);
	CHECK_EQ(pstore_options.pstore.size, 512 * 1024);
	CHECK_EQ(o.exit, EXIT_REBOOT);
	/* Linux's meaning: hex without 0x too (kstrtoul base 16). */
	CHECK_EQ(parse(&o, "acpi_rsdp=f5a40 firmware=bios", 8), 0);
	CHECK_EQ(o.acpi_rsdp, 0xf5a40);
	CHECK_EQ(o.firmware, FIRMWARE_BIOS);
	CHECK_EQ(parse(&o, "acpi_rsdp=0XFFFFFFFFFFFFFFF0", 8), 0);
	CHECK_EQ(o.acpi_rsdp, 0xFFFFFFFFFFFFFFF0ull);
	CHECK_EQ(parse(&o, "firmware=uefi firmware=auto", 8), 0);
	CHECK_EQ(o.firmware, FIRMWARE_UNKNOWN);
	/* Sizes and addresses: decimal, 0x, K/M/G. */
	CHECK_EQ(parse(&o, "pstore=805306368,4096", 8), 0);
	CHECK_EQ(pstore_options.pstore.addr, 805306368);
	CHECK_EQ(pstore_options.pstore.size, 4096);
	CHECK_EQ(parse(&o, "pstore=768M,0x100000", 8), 0);
	CHECK_EQ(pstore_options.pstore.addr, 768ull << 20);
	CHECK_EQ(pstore_options.pstore.size, 1 << 20);
	CHECK_EQ(parse(&o, "pstore=4g,1G", 8), 0);
	CHECK_EQ(pstore_options.pstore.addr, 4ull << 30);
	CHECK_EQ(pstore_options.pstore.size, 1ull << 30);
	CHECK_EQ(parse(&o, "pstore=0,4k", 8), 0);
	CHECK_EQ(pstore_options.pstore.addr, 0);
	CHECK_EQ(pstore_options.pstore.size, 4096);

	/* Each bad value: one message, the earlier value kept. */
	static const char *const bad_rsdp[] = {
		"acpi_rsdp=", "acpi_rsdp=0", "acpi_rsdp=0x", "acpi_rsdp=xyz",
		"acpi_rsdp=0x1_000", "acpi_rsdp=0x10000000000000000", "acpi_rsdp=-1",
	};
	for (size_t i = 0; i < sizeof bad_rsdp / sizeof bad_rsdp[0]; i++) {
		CHECK_EQ(parse(&o, bad_rsdp[i], 8), 1);
		CHECK_EQ(o.acpi_rsdp, 0);
	}
	CHECK_EQ(parse(&o, "acpi_rsdp=0x1000 acpi_rsdp=nope", 8), 1);
	CHECK_EQ(o.acpi_rsdp, 0x1000);
	CHECK_STREQ(dlog.msg[0], "cmdline: acpi_rsdp=nope invalid: a physical address in hex "
				 "(Linux's ACPI20= in /sys/firmware/efi/systab); keeping 0x1000");
	CHECK_STREQ(wlog.msg[0], "what=option problem=invalid option=acpi_rsdp value=nope kept=0x1000");
	static const char *const bad_pstore[] = {
		"pstore=", "pstore=0x30000000", "pstore=0x30000000,", "pstore=,512K",
		"pstore=0x30000000,500K", "pstore=0x30000000,2K", "pstore=0x30000000,2G",
		"pstore=0x30000002,4K", "pstore=0777,4K", "pstore=0x30000000,512KB",
		"pstore=0x30000000,512K,1", "pstore=0xFFFFFFFFFFFFF000,8K",
		"pstore=99999999999999999999,4K", "pstore=0x10000000000000000,4K",
		"pstore=17179869184G,4K", "pstore=0x,4K", "pstore=K,4K", "pstore=0x3g0000,4K",
	};
	for (size_t i = 0; i < sizeof bad_pstore / sizeof bad_pstore[0]; i++) {
		CHECK_EQ(parse(&o, bad_pstore[i], 8), 1);
		CHECK_EQ(pstore_options.pstore.size, 0);
	}
	CHECK_EQ(parse(&o, "pstore=0x30000000,512K pstore=0x30000000,500K", 8), 1);
	CHECK_EQ(pstore_options.pstore.addr, 0x30000000);
	CHECK_EQ(pstore_options.pstore.size, 512 * 1024);
	CHECK_STREQ(dlog.msg[0], "cmdline: pstore=0x30000000,500K invalid: SIZE must be a power of "
				 "two from 4K to 1G (ramoops' console_size); keeping 0x30000000,512K");
	CHECK_EQ(parse(&o, "pstore=0777,4K", 8), 1);
	CHECK_STREQ(dlog.msg[0], "cmdline: pstore=0777,4K invalid: a leading 0 (octal to Linux's "
				 "memparse): write 0x...; keeping none");
	CHECK_EQ(parse(&o, "firmware=efi", 8), 1);
	CHECK_EQ(o.firmware, FIRMWARE_UNKNOWN);
	CHECK_STREQ(dlog.msg[0], "cmdline: firmware=efi invalid, expected auto|uefi|bios, keeping auto");
	/* Silent (the early pass, app/main.c): the values, no messages. */
	struct option_targets t = targets(&o);
	options_set_defaults(&t);
	CHECK_EQ(options_parse(&t, "pstore=1 pstore=4096,4096 junk", 8, NULL, NULL, NULL), 2);
	CHECK_EQ(pstore_options.pstore.addr, 4096);
}

void test_cmdline(void)
{
	RUN_CASE(test_from_linux);
	RUN_CASE(test_linux_spellings);
	RUN_CASE(test_wake_config);
	RUN_CASE(test_warn_records);
	RUN_CASE(test_defaults_and_empty);
	RUN_CASE(test_all_valid);
	RUN_CASE(test_bad_values);
	RUN_CASE(test_unknown_and_paths);
	RUN_CASE(test_huge_tokens);
	RUN_CASE(test_null_diag);
}
