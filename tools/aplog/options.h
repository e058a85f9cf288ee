/* SPDX-License-Identifier: MIT */
/* aplog's command line: COMMAND [options] LOG... [-- LOG...], options
 * anywhere (getopt_long), each command taking only its own. */
#ifndef APLOG_OPTIONS_H
#define APLOG_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Option groups; a command names the groups it takes. */
enum {
	O_TRUNC = 1u << 0, O_LABELS = 1u << 1, O_BOOT = 1u << 2,
	O_BASELINE = 1u << 3, O_TOL = 1u << 4, O_SLOWER = 1u << 5,
	O_MAXRATIO = 1u << 6, O_OP = 1u << 7, O_FASTER = 1u << 8,
	O_MODE = 1u << 9, O_CONFIG = 1u << 10, O_OUT = 1u << 11,
	O_IDENT = 1u << 12, O_VERIFY = 1u << 13, O_NMI = 1u << 14,
	O_PHASES = 1u << 15, O_FORCE = 1u << 16, O_MINRUNS = 1u << 17,
	O_PAIRED = 1u << 18,
	O_CSV = 1u << 19,
	O_SMI = 1u << 20, /* --with-smi: wherever --with-nmi goes */
};

#define MAX_BOOT_EXPECT 16

struct cli {
	const char *cmd;
	const char **files[2];   /* set A, and set B after '--' */
	size_t nfiles[2];
	bool sep;                /* '--' given */
	unsigned given;          /* O_* groups used */
	const char *label[2], *baseline, *out, *mode, *config;
	double tolerance, max_ratio;
	size_t min_runs;         /* per side for a verdict (lib/verdict.h) */
	int op;
	/* verify */
	int status;              /* 0 pass, 1 fail */
	long cpus, cycles, wbinvd, online, failed; /* -1: not checked */
	long warnings; /* -1: 0 for a passing run whose @end has the key */
	const char *boot_expect[MAX_BOOT_EXPECT]; /* KEY=VALUE */
	size_t nboot_expect;
};

extern struct cli cli;

void usage(FILE *f);
void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Fills cli from argv[2..]; allowed: the command's O_* groups; two_sets:
 * the command takes A.log... -- B.log.... Exits 2 on bad usage. */
void parse_cli(int argc, char **argv, unsigned allowed, bool two_sets);
void cli_free(void);

#endif
