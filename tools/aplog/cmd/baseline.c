/* SPDX-License-Identifier: MIT */
/* Baselines: write one from logs (baseline), check logs against one
 * (check --baseline), show what changed between two (diff-baseline). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/read/baseline.h"
#include "tools/aplog/stats/sets.h"
#include "tools/aplog/util.h"

int cmd_baseline(void)
{
	if (!cli.nfiles[0])
		usage_error("baseline needs at least one LOG");
	struct side sd;
	if (side_load(&sd, cli.files[0], cli.nfiles[0], "logs", "the baseline")) {
		side_free(&sd);
		return 1;
	}
	double tol = (cli.given & O_TOL) ? cli.tolerance : 5.0;
	printf("# aplog baseline: median AP online/offline time per APIC ID, in "
	       "ns,\n# over %zu run%s from:", sd.usable, sd.usable == 1 ? "" : "s");
	for (size_t i = 0; i < cli.nfiles[0]; i++) {
		char b[256];
		const char *f = cli.files[0][i];
		printf(" %s", show(b, sizeof(b), f, strlen(f)));
	}
	printf("\n# check: aplog check --baseline THIS_FILE LOG...\n");
	print_flush_note(&sd, "# ");
	print_nmi_note(&sd, "# ");
	printf("mode=%s\n", cli.mode ? cli.mode : "unspecified");
	printf("tolerance_pct=%g\n", tol);
	if (cli.config)
		printf("config=%s\n", cli.config);
	if (sd.wbinvd >= 0)
		printf("wbinvd=%d\n", sd.wbinvd);
	if (sd.modelled)
		printf("flush_model=%s\n", sd.flush_model ? sd.flush_model : "mixed");
	printf("offline_figure=%s\n", sd.offline_figure);
	printf("runs=%zu\n", sd.usable);
	for (size_t i = 0; i < sd.t.nrows; i++) {
		const struct cpu_row *r = &sd.t.rows[i];
		for (int op = 0; op < OP_COUNT; op++)
			if (r->n[op])
				printf("apic=%" PRIu32 " op=%s median_ns=%" PRIu64
				       " n=%zu\n", r->apic, op_name[op],
				       median_of(r->v[op], r->n[op]), r->n[op]);
	}
	side_free(&sd);
	return 0;
}

/* The measured medians, in the baseline's (apic, op) order. */
static size_t measured(const struct side *sd, struct bl_entry **out)
{
	size_t nm = 0;
	struct bl_entry *m = xrealloc_array(NULL, sd->t.nrows * OP_COUNT,
					    sizeof(*m));
	for (size_t i = 0; i < sd->t.nrows; i++)
		for (int op = 0; op < OP_COUNT; op++)
			if (sd->t.rows[i].n[op])
				m[nm++] = (struct bl_entry){ sd->t.rows[i].apic,
					(uint8_t)op, median_of(sd->t.rows[i].v[op],
							       sd->t.rows[i].n[op]), 0 };
	*out = m;
	return nm;
}

int cmd_check_baseline(void)
{
	if (!cli.nfiles[0])
		usage_error("check --baseline needs at least one LOG");
	struct baseline bl;
	struct side sd;
	struct bl_entry *m = NULL;
	int rc = baseline_load(&bl, cli.baseline);
	int lrc = side_load(&sd, cli.files[0], cli.nfiles[0], "logs", "the check");
	if (rc || lrc) {
		rc = 1;
		goto out;
	}
	double tol = bl.tol;
	if (cli.given & O_TOL)
		tol = cli.tolerance;
	else if (!bl.has_tol) {
		fprintf(stderr, "aplog: %s has no tolerance_pct and no --tolerance "
			"was given\n", bl.file);
		rc = 1;
		goto out;
	}
	if (bl.wbinvd >= 0 && sd.wbinvd >= 0 && bl.wbinvd != sd.wbinvd)
		fprintf(stderr, "aplog: warning: baseline has wbinvd=%d but the logs "
			"have wbinvd=%d\n", bl.wbinvd, sd.wbinvd);
	print_flush_note(&sd, "");
	print_nmi_note(&sd, "");
	const char *blfig = bl_header(&bl, "offline_figure");
	if (!blfig)
		blfig = "ns"; /* baselines from before settled_ns */
	if (strcmp(blfig, sd.offline_figure)) {
		fprintf(stderr, "aplog: %s has offline_figure=%s but the logs' "
			"offline figure is %s: not comparable (refresh the baseline)\n",
			bl.file, blfig, sd.offline_figure);
		rc = 1;
		goto out;
	}

	size_t nm = measured(&sd, &m), bad = 0, checked = 0, faster = 0;
	double worst = 0;
	char worst_where[64] = "0.0%";
	for (size_t i = 0, j = 0; i < bl.n || j < nm;) {
		int c = i == bl.n ? 1 : j == nm ? -1 : cmp_bl(&bl.e[i], &m[j]);
		if (c < 0) {
			printf("MISSING apic=%" PRIu32 " op=%s: in the baseline "
			       "(median_ns=%" PRIu64 ") but no samples in the logs\n",
			       bl.e[i].apic, op_name[bl.e[i].op], bl.e[i].median_ns);
			bad++;
			i++;
			continue;
		}
		if (c > 0) {
			printf("EXTRA apic=%" PRIu32 " op=%s: median_ns=%" PRIu64
			       " in the logs but not in the baseline\n", m[j].apic,
			       op_name[m[j].op], m[j].median_ns);
			bad++;
			j++;
			continue;
		}
		const struct bl_entry *e = &bl.e[i];
		double base = (double)e->median_ns, got = (double)m[j].median_ns;
		double hi = base * (1 + tol / 100), lo = base * (1 - tol / 100);
		double pct = base > 0 ? (got - base) / base * 100 : 0;
		char pcts[32] = "n/a";
		if (base > 0)
			snprintf(pcts, sizeof(pcts), "%+.1f%%", pct);
		checked++;
		if (got > hi || (got < lo && !(cli.given & O_FASTER))) {
			printf("%s apic=%" PRIu32 " op=%s median_ns=%" PRIu64
			       " baseline=%" PRIu64 " bound=%" PRIu64 " (%s)\n",
			       got > hi ? "REGRESSION" : "FASTER", e->apic,
			       op_name[e->op], m[j].median_ns, e->median_ns,
			       (uint64_t)llround(got > hi ? hi : lo), pcts);
			bad++;
			faster += got <= hi;
		} else if (fabs(pct) > fabs(worst)) {
			worst = pct;
			snprintf(worst_where, sizeof(worst_where),
				 "apic=%" PRIu32 " op=%s %+.1f%%", e->apic,
				 op_name[e->op], pct);
		}
		i++;
		j++;
	}
	if (bad) {
		printf("FAIL: %zu problem%s against baseline %s (tolerance %g%%, "
		       "%zu AP/op medians compared)\n", bad, bad == 1 ? "" : "s",
		       bl.file, tol, checked);
		if (faster)
			printf("(FASTER: beyond the tolerance the other way; if that "
			       "is expected, regenerate the baseline, or pass "
			       "--allow-faster)\n");
		rc = 1;
	} else {
		printf("OK: %zu AP/op medians within %g%% of baseline %s "
		       "(largest deviation: %s)\n", checked, tol, bl.file,
		       worst_where);
	}
out:
	free(m);
	baseline_free(&bl);
	side_free(&sd);
	return rc;
}

/* Headers changed, added, removed (runs= is noise), then the entries. */
int cmd_diff_baseline(void)
{
	if (cli.nfiles[0] != 2)
		usage_error("diff-baseline needs OLD NEW");
	struct baseline b[2];
	int e0 = baseline_load(&b[0], cli.files[0][0]);
	int e1 = baseline_load(&b[1], cli.files[0][1]);
	if (e0 || e1) {
		baseline_free(&b[0]);
		baseline_free(&b[1]);
		return 1;
	}
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < b[side].nh; i++) {
			const struct bl_header *h = &b[side].h[i];
			const char *other = bl_header(&b[!side], h->key);
			if (!strcmp(h->key, "runs"))
				continue;
			if (!other)
				printf("%s: %s %s\n", h->key,
				       side ? "added:" : "removed, was:", h->val);
			else if (side == 0 && strcmp(other, h->val))
				printf("%s: %s -> %s\n", h->key, h->val, other);
		}
	size_t changed = 0, added = 0, removed = 0, same = 0, i = 0, j = 0;
	while (i < b[0].n || j < b[1].n) {
		int c = i == b[0].n ? 1 : j == b[1].n ? -1 : cmp_bl(&b[0].e[i],
								  &b[1].e[j]);
		if (c < 0) {
			printf("apic=%" PRIu32 " op=%s removed (was median_ns=%" PRIu64
			       ")\n", b[0].e[i].apic, op_name[b[0].e[i].op],
			       b[0].e[i].median_ns);
			removed++;
			i++;
		} else if (c > 0) {
			printf("apic=%" PRIu32 " op=%s added (median_ns=%" PRIu64 ")\n",
			       b[1].e[j].apic, op_name[b[1].e[j].op],
			       b[1].e[j].median_ns);
			added++;
			j++;
		} else {
			uint64_t o = b[0].e[i].median_ns, n = b[1].e[j].median_ns;
			if (o != n) {
				printf("apic=%" PRIu32 " op=%s median_ns %" PRIu64 " -> %"
				       PRIu64, b[0].e[i].apic, op_name[b[0].e[i].op], o, n);
				if (o)
					printf(" (%+.1f%%)", ((double)n - (double)o) /
							     (double)o * 100);
				putchar('\n');
				changed++;
			} else {
				same++;
			}
			i++;
			j++;
		}
	}
	printf("diff-baseline: %zu changed, %zu added, %zu removed, %zu "
	       "unchanged\n", changed, added, removed, same);
	baseline_free(&b[0]);
	baseline_free(&b[1]);
	return 0;
}
