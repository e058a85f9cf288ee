/* SPDX-License-Identifier: MIT */
/* Sets of logs as the commands see them (sets.h). */
#include "sets.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "options.h"

int side_load(struct side *sd, const char *const *files, size_t n,
	      const char *name, const char *purpose)
{
	int errors = 0;
	memset(sd, 0, sizeof(*sd));
	for (size_t i = 0; i < n; i++)
		errors += load_file(&sd->set, files[i], cli.given & O_TRUNC);
	sd->load_errors = errors;
	if (errors)
		return errors;

	double sum[OP_COUNT] = { 0, 0 };
	sd->wbinvd = sd->cpus = sd->cycles = -2;
	for (size_t i = 0; i < sd->set.n; i++) {
		const struct run *r = &sd->set.runs[i];
		enum use u = run_use(r);
		if (u == USE_NONE) {
			fprintf(stderr, "%s:%zu: warning: run %u ended with status=fail "
				"(online=%" PRIu32 " failed=%" PRIu32 "): excluded from "
				"%s\n", r->file, r->boot_line, r->index, r->end_online,
				r->end_failed, purpose);
			continue;
		}
		sd->usable++;
		sd->nmi_marked += r->nmi_marked;
		sd->wbinvd = sd->wbinvd == -2 || sd->wbinvd == (int)r->wbinvd ?
			     (int)r->wbinvd : -1;
		sd->cpus = sd->cpus == -2 || sd->cpus == (long)r->cpus ?
			   (long)r->cpus : -1;
		sd->cycles = sd->cycles == -2 || sd->cycles == (long)r->cycles ?
			     (long)r->cycles : -1;
		const char *fig = run_offline_figure(r);
		sd->offline_figure = !sd->offline_figure ||
			!strcmp(sd->offline_figure, fig) ? fig : "mixed";
		if (r->flush_model[0]) {
			sd->flush_model = !sd->modelled ||
				(sd->flush_model && !strcmp(sd->flush_model, r->flush_model)) ?
				r->flush_model : NULL;
			sd->modelled++;
		}
		if (u != USE_FULL)
			continue;
		double tot[OP_COUNT];
		run_totals(r, tot);
		for (int op = 0; op < OP_COUNT; op++)
			sum[op] += tot[op];
		sd->complete++;
	}
	if (!sd->usable) {
		fprintf(stderr, "aplog: %s: no usable run (every run failed)\n",
			name);
		return 1;
	}
	for (int op = 0; op < OP_COUNT && sd->complete; op++)
		sd->mean_total[op] = sum[op] / (double)sd->complete;
	if (sd->wbinvd == -1)
		fprintf(stderr, "aplog: warning: %s mixes wbinvd=0 and wbinvd=1 "
			"runs\n", name);
	table_build(&sd->set, &sd->t);
	return 0;
}

void side_free(struct side *sd)
{
	table_free(&sd->t);
	set_free(&sd->set);
}

void side_labels(struct side s[2])
{
	for (int i = 0; i < 2; i++) {
		if (cli.label[i])
			s[i].label = cli.label[i];
		else if (s[i].wbinvd >= 0)
			snprintf(s[i].label_buf, sizeof(s[i].label_buf), "WBINVD=%d",
				 s[i].wbinvd);
		else
			snprintf(s[i].label_buf, sizeof(s[i].label_buf), "%c", 'A' + i);
		if (!cli.label[i])
			s[i].label = s[i].label_buf;
	}
	if (!cli.label[0] && !cli.label[1] && !strcmp(s[0].label, s[1].label)) {
		snprintf(s[0].label_buf, sizeof(s[0].label_buf), "A");
		snprintf(s[1].label_buf, sizeof(s[1].label_buf), "B");
	}
}

void side_label_one(struct side *s)
{
	if (cli.label[0]) {
		s->label = cli.label[0];
	} else if (s->wbinvd >= 0) {
		snprintf(s->label_buf, sizeof(s->label_buf), "WBINVD=%d", s->wbinvd);
		s->label = s->label_buf;
	} else {
		s->label = "A";
	}
}

void print_flush_note(const struct side *s, const char *prefix)
{
	if (!s->modelled)
		return;
	printf("%sMODELLED: %zu of %zu runs had each WBINVD/INVD charged a modelled "
	       "cost by the QEMU flushmodel plugin (flush_model=%s): not hardware\n",
	       prefix, s->modelled, s->usable,
	       s->flush_model ? s->flush_model : "(differs between runs)");
}

void print_nmi_note(const struct side *s, const char *prefix)
{
	if (!s->nmi_marked)
		return;
	if (nmi_samples_counted)
		printf("%s%zu samples marked nmi=1 (an NMI inside their window) are "
		       "counted (--with-nmi)\n", prefix, s->nmi_marked);
	else
		printf("%s%zu samples marked nmi=1 (an NMI inside their window) are "
		       "left out of every figure below (--with-nmi keeps them)\n",
		       prefix, s->nmi_marked);
}

int load_two(struct side s[2], const char *purpose)
{
	if (!cli.sep || !cli.nfiles[0] || !cli.nfiles[1])
		usage_error("'%s' needs A.log... -- B.log...", cli.cmd);
	int e0 = side_load(&s[0], cli.files[0], cli.nfiles[0], "set A", purpose);
	int e1 = side_load(&s[1], cli.files[1], cli.nfiles[1], "set B", purpose);
	if (e0 || e1)
		return 1;
	side_labels(s);
	if (s[0].cpus >= 0 && s[1].cpus >= 0 && s[0].cpus != s[1].cpus)
		fprintf(stderr, "aplog: warning: A has cpus=%ld but B has cpus=%ld: "
			"the totals cover different numbers of CPUs\n", s[0].cpus,
			s[1].cpus);
	if (strcmp(s[0].offline_figure, s[1].offline_figure))
		fprintf(stderr, "aplog: warning: offline figures differ: A uses %s, "
			"B uses %s\n", s[0].offline_figure, s[1].offline_figure);
	if (s[0].cycles >= 0 && s[1].cycles >= 0 && s[0].cycles != s[1].cycles)
		fprintf(stderr, "aplog: warning: A has cycles=%ld but B has "
			"cycles=%ld: the totals are not comparable\n", s[0].cycles,
			s[1].cycles);
	return 0;
}
