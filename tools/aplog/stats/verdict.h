/* SPDX-License-Identifier: MIT */
/* A verdict on two variants, A and B, from whole runs: each boot is ONE
 * observation (its total, or its median), never each of its samples,
 * because the samples of one boot share that boot's host state (load,
 * vCPU placement, frequency) and would make the spread between two boots
 * look like an effect.
 *
 * The interval is Welch's: the difference of the two means of per-run
 * values over its standard error, with the Welch-Satterthwaite degrees of
 * freedom, divided by A's mean for a relative change (docs/verdicts.md
 * says why not a percentile bootstrap at ten runs). The verdict word
 * follows from that interval and nothing else.
 *
 * One source for aplog (host), the kernel and apstart.efi: integers only,
 * no allocation, no libc beyond the freestanding headers. */
#ifndef APSTART_VERDICT_H
#define APSTART_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Below this many runs on either side a row has no interval and no verdict. */
#define VERDICT_MIN_RUNS 3
/* The most runs per side (keeps every sum inside 64 bits). */
#define VERDICT_MAX_RUNS 1000
/* Per-run values above this are clamped (1e6 s in ns, as aplog's NS_MAX). */
#define VERDICT_VALUE_MAX 1000000000000000ULL

enum verdict_word {
	VERDICT_NONE,           /* fewer than VERDICT_MIN_RUNS on a side */
	VERDICT_SAME,           /* the 95% interval holds 0 */
	VERDICT_FASTER,         /* B took less time: the interval lies below 0 */
	VERDICT_SLOWER,         /* B took more time: the interval lies above 0 */
	VERDICT_NOT_MEASURABLE, /* the flush under test costs nothing here */
};

/* One row (Offline, Online, Total, a median...). */
struct verdict_row {
	size_t na, nb;            /* runs per side */
	uint64_t mean_a, mean_b;  /* mean per run, input unit (ns), rounded */
	bool has_change;          /* mean_a > 0 */
	int64_t change_ppm;       /* mean_b / mean_a - 1, parts per million */
	bool has_ci;              /* both sides have VERDICT_MIN_RUNS */
	int64_t lo_ppm, hi_ppm;   /* its 95% interval */
	uint32_t df_milli;        /* Welch's degrees of freedom x 1000 (0:
				     no spread on either side) */
	enum verdict_word word;
};

/* a[na], b[nb]: one value per run. min_runs: per side for an interval
 * (VERDICT_MIN_RUNS if smaller). measurable = false: the variants differ
 * only in an instruction that costs nothing here (WBINVD under an emulator
 * or hypervisor without a flush model): the row is computed as usual but
 * its word is VERDICT_NOT_MEASURABLE. */
void verdict_compute(const uint64_t *a, size_t na, const uint64_t *b,
		     size_t nb, size_t min_runs, bool measurable,
		     struct verdict_row *out);

/* The 97.5% quantile of Student's t with df_milli / 1000 degrees of
 * freedom (>= 2), x 1e6 (within 0.1%: a table, interpolated in 1/df). */
uint32_t verdict_t975_micro(uint32_t df_milli);

/* "no difference", "faster", ... */
const char *verdict_word_text(enum verdict_word w);

/* The row as every program prints it:
 *   "Online:  65.83 s -> 11.14 s (-83.1%, 95% CI -85.0..-81.2%) faster, mean of 10 runs"
 *   "Online:  10.82 ms -> 13.99 ms (+29.3%) no verdict: 1 run per side cannot
 *    tell the change from run-to-run noise"
 * each side in the unit that fits it (fmt_duration). name: "Online" etc.
 * Returns the full length, as snprintf does. */
int verdict_format_row(char *buf, size_t size, const char *name,
		       const struct verdict_row *r);

/* A signed ppm figure as a percentage with one decimal: "-83.1%",
 * "+0.0%" (buf of at least 24 bytes). */
void verdict_format_pct(char *buf, size_t size, int64_t ppm);

#endif
