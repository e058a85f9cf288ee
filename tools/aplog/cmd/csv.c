/* SPDX-License-Identifier: MIT */
/* csv: one row per sample (--phases: one per @phase record instead), every run (failed ones too, with a warning):
 * ap_ns (online rows) and settled_ns (offline rows), empty where the log
 * has no such key and na where the kernel printed na, then the run's
 * flush model last (empty when not modelled). */
#include <inttypes.h>
#include <stdio.h>

#include "tools/aplog/cmd/commands.h"
#include "tools/aplog/options.h"
#include "tools/aplog/out/phase_tables.h"
#include "tools/aplog/out/text.h"
#include "tools/aplog/read/records.h"

int cmd_csv(void)
{
	if (!cli.nfiles[0])
		usage_error("csv needs at least one LOG");
	struct set set = { 0 };
	int errors = 0;
	for (size_t i = 0; i < cli.nfiles[0]; i++)
		errors += load_file(&set, cli.files[0][i], cli.given & O_TRUNC);
	if (errors) {
		set_free(&set);
		return 1;
	}
	if (cli.given & O_PHASES) {
		print_phase_csv(&set);
		set_free(&set);
		return 0;
	}
	printf("file,run,wbinvd,cpu,apic,cycle,op,ns,ticks,ap_ns,settled_ns,"
	       "flush_model\n");
	for (size_t i = 0; i < set.n; i++) {
		const struct run *r = &set.runs[i];
		if (run_use(r) == USE_NONE)
			fprintf(stderr, "aplog: %s:%zu: warning: run %u ended with "
				"status=fail; its samples are in the CSV\n", r->file,
				r->boot_line, r->index);
		for (size_t j = 0; j < r->ns; j++) {
			const struct sample *s = &r->s[j];
			csv_field(r->file);
			printf(",%u,%u,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%s,%" PRIu64
			       ",%" PRIu64, r->index, r->wbinvd, s->cpu, s->apic,
			       s->cycle, op_name[s->op], s->ns, s->ticks);
			char x[24] = "";
			if (s->x == X_NA)
				snprintf(x, sizeof(x), "na");
			else if (s->x == X_NUM)
				snprintf(x, sizeof(x), "%" PRIu64, s->xns);
			if (s->op == OP_ONLINE)
				printf(",%s,,", x);
			else
				printf(",,%s,", x);
			csv_field(r->flush_model);
			putchar('\n');
		}
	}
	set_free(&set);
	return 0;
}
