/* SPDX-License-Identifier: MIT */
/* One handler per record word (@boot, @sample, @phase, @round, @bringup,
 * @cpu, @summary, @cpusum, @fail, @warn, @end, @host): each checks its
 * record's fields and adds it to the open run. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/read/loader.h"
#include "tools/aplog/util.h"
#include "wings/screen/warn_events.h"

static const char *const firmware_names[] = { "bios", "uefi", "unknown", NULL };
static const char *const status_choices[] = { "pass", "fail", NULL };

/* Every @boot opens a run, even a malformed one: later lines belong to it
 * and are not blamed on the run before. */
struct run *begin_boot(struct loader *ld, size_t line, const char *p,
		       size_t n)
{
	if (ld->cur >= 0)
		close_run(ld, line, "before the next @boot");
	struct set *s = ld->set;
	grow((void **)&s->runs, &s->cap, s->n + 1, sizeof(*s->runs));
	struct run *r = &s->runs[s->n];
	memset(r, 0, sizeof(*r));
	r->file = ld->m.file;
	r->index = ++ld->runs_in_file;
	r->boot_line = line;
	memcpy(r->flush_model, ld->host_flush, sizeof(r->flush_model));
	ld->host_flush[0] = '\0';
	r->boot_fields = xcalloc(n + 1, 1);
	memcpy(r->boot_fields, p, n);
	ld->cur = (long)s->n++;
	return r;
}

void on_boot(struct loader *ld, size_t line, const struct record *rec,
	     struct run *r)
{
	uint64_t wb = 0, x2 = 0, cpus = 0, cycles = 0;
	char b[256];
	const struct field *tr;
	struct msgs *m = &ld->m;

	bool ok = need_required(m, line, rec) &&
		  get_str(m, line, rec, RK_boot_kernel, r->kernel) &&
		  get_str(m, line, rec, RK_boot_version, r->version) &&
		  get_num(m, line, rec, RK_boot_wbinvd, 0, 1, &wb) &&
		  get_num(m, line, rec, RK_boot_cpus, 1, CPUS_MAX, &cpus) &&
		  get_num(m, line, rec, RK_boot_x2apic, 0, 1, &x2) &&
		  get_num(m, line, rec, RK_boot_tsc_khz, 0, UINT32_MAX, &r->tsc_khz) &&
		  get_str(m, line, rec, RK_boot_tsc_source, r->tsc_source) &&
		  get_choice(m, line, rec, RK_boot_firmware, firmware_names,
			     &r->firmware) &&
		  get_num(m, line, rec, RK_boot_cycles, 0, CYCLES_MAX, &cycles);
	if (ok) {
		tr = rec_get(rec, RK_boot_tramp);
		if (parse_hex(tr->v, tr->vl, &r->tramp) != NUM_OK) {
			lerr(m, line, "@boot: tramp=%s must be a 0x hex address",
			     show(b, sizeof(b), tr->v, tr->vl));
			ok = false;
		}
	}
	r->wbinvd = (unsigned)wb;
	r->x2apic = (unsigned)x2;
	r->cpus = (uint32_t)cpus;
	r->cycles = (uint32_t)cycles;
	r->bad_boot = !ok;
}

/* A record that belongs to a run, outside one. */
static bool in_run(struct loader *ld, size_t line, const char *word)
{
	if (ld->cur >= 0)
		return true;
	if (ld->last_end)
		lerr(&ld->m, line, "%s after @end (line %zu) and before the next "
		     "@boot", word, ld->last_end);
	else if (!ld->headless) {
		/* Said once: a text that starts in the middle of a run has
		 * hundreds of these. */
		lerr(&ld->m, line, "%s before @boot", word);
		lwarn(&ld->m, line, "the text begins in the middle of a run (a capture "
		      "started late, or a pstore zone that kept only the run's end: "
		      "@warn what=pstore_wrapped); its records before the first "
		      "@boot are not read");
		ld->headless = true;
	}
	return false;
}

/* A cross-CPU figure: enum xfig, or -1 (reported) if the value is
 * neither a number nor na. */
static int get_xfig(struct msgs *m, size_t line, const struct record *rec,
		    int key, uint64_t *out)
{
	const struct field *f = rec_get(rec, key);
	if (!f)
		return X_ABSENT;
	if (f->vl == 2 && memcmp(f->v, "na", 2) == 0)
		return X_NA;
	return get_num(m, line, rec, key, 0, NS_MAX, out) ? X_NUM : -1;
}

void on_sample(struct loader *ld, size_t line, const struct record *rec,
	       uint64_t text_hash)
{
	if (!in_run(ld, line, "@sample"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t cpu, apic, cycle, ns, ticks;
	int op;
	bool ok = need_required(m, line, rec) &&
		  get_num(m, line, rec, RK_sample_cpu, 0, CPUS_MAX - 1, &cpu) &&
		  get_num(m, line, rec, RK_sample_apic, 0, UINT32_MAX, &apic) &&
		  get_num(m, line, rec, RK_sample_cycle, 0, CYCLES_MAX, &cycle) &&
		  get_choice(m, line, rec, RK_sample_op, op_choices, &op) &&
		  get_num(m, line, rec, RK_sample_ns, 0, NS_MAX, &ns) &&
		  get_num(m, line, rec, RK_sample_ticks, 0, UINT64_MAX, &ticks);
	if (!ok)
		return;
	uint64_t xns = 0, real_ns;
	int x = get_xfig(m, line, rec, op == OP_ONLINE ? RK_sample_ap_ns : RK_sample_settled_ns,
			 &xns);
	int x_real = op == OP_ONLINE ? get_xfig(m, line, rec, RK_sample_to_real_ns, &real_ns)
				     : X_ABSENT;
	if (x < 0 || x_real < 0)
		return; /* neither a number nor na: reported */
	/* No cpu < cpus check: cpu indexes every CPU in the MADT, skipped
	 * ones too, while cpus counts those started. cycle counts from 1 in
	 * apstart; 0 is accepted too. */
	if (!r->bad_boot && cycle > r->cycles) {
		lerr(m, line, "@sample: cycle=%" PRIu64 " but @boot at line %zu "
		     "has cycles=%" PRIu32, cycle, r->boot_line, r->cycles);
		return;
	}
	uint64_t nmi = 0;
	if (rec_get(rec, RK_sample_nmi) && !get_num(m, line, rec, RK_sample_nmi, 0, 1, &nmi))
		return;
	r->nmi_marked += nmi;
	uint64_t smi = 0;
	if (rec_get(rec, RK_sample_smi) && !get_num(m, line, rec, RK_sample_smi, 0, UINT32_MAX, &smi))
		return;
	r->smi_marked += smi > 0;
	grow((void **)&r->s, &r->cap, r->ns + 1, sizeof(*r->s));
	r->s[r->ns++] = (struct sample){ (uint32_t)cpu, (uint32_t)apic,
		(uint32_t)cycle, (uint8_t)op, ns, ticks, text_hash, line,
		(uint8_t)x, xns, (uint8_t)x_real, nmi == 1, smi > 0 };
}

/* @phase: one phase of one AP start (smp/phases.c). */
void on_phase(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@phase"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t cpu, apic, cycle, ns = 0;
	int phase;
	bool ok = need_required(m, line, rec) &&
		  get_num(m, line, rec, RK_phase_cpu, 0, CPUS_MAX - 1, &cpu) &&
		  get_num(m, line, rec, RK_phase_apic, 0, UINT32_MAX, &apic) &&
		  get_num(m, line, rec, RK_phase_cycle, 0, CYCLES_MAX, &cycle) &&
		  get_choice(m, line, rec, RK_phase_phase, phase_names, &phase);
	if (!ok)
		return;
	int x = get_xfig(m, line, rec, RK_phase_ns, &ns);
	if (x < 0)
		return;
	uint64_t nmi = 0;
	if (rec_get(rec, RK_phase_nmi) && !get_num(m, line, rec, RK_phase_nmi, 0, 1, &nmi))
		return;
	if (!r->bad_boot && cycle > r->cycles) {
		lerr(m, line, "@phase: cycle=%" PRIu64 " but @boot at line %zu "
		     "has cycles=%" PRIu32, cycle, r->boot_line, r->cycles);
		return;
	}
	grow((void **)&r->ph, &r->ph_cap, r->nph + 1, sizeof(*r->ph));
	r->ph[r->nph++] = (struct phase_rec){ (uint32_t)cpu, (uint32_t)apic,
		(uint32_t)cycle, (uint8_t)phase, x == X_NA, nmi == 1, ns };
}

/* @round: the wall time of one round of cycles_mode=parallel. */
void on_round(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@round"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t cycle, aps, ns;
	int op;
	if (!(need_required(m, line, rec) &&
	      get_num(m, line, rec, RK_round_cycle, 1, CYCLES_MAX, &cycle) &&
	      get_choice(m, line, rec, RK_round_op, op_choices, &op) &&
	      get_num(m, line, rec, RK_round_aps, 0, CPUS_MAX, &aps) &&
	      get_num(m, line, rec, RK_round_ns, 0, NS_MAX, &ns)))
		return;
	grow((void **)&r->rounds, &r->rounds_cap, r->nrounds + 1, sizeof(*r->rounds));
	r->rounds[r->nrounds++] = (struct round_rec){ (uint32_t)cycle, (uint32_t)aps,
		(uint8_t)op, ns };
}

/* @bringup: the mode that ran and its total (first bring-up). */
void on_bringup(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@bringup"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	if (need_required(m, line, rec) &&
	    get_str(m, line, rec, RK_bringup_mode, r->bringup))
		get_num(m, line, rec, RK_bringup_total_ns, 0, NS_MAX, &r->bringup_ns);
}

/* @cpu: only its TSC warp test result is kept (tsc_sync=0|1, apstart);
 * records without it (older kernels, other tools) are left alone. */
void on_cpu(struct loader *ld, size_t line, const struct record *rec)
{
	uint64_t apic, sync;
	if (!in_run(ld, line, "@cpu"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	if (!rec_get(rec, RK_cpu_apic)) {
		lerr(m, line, "@cpu: tsc_sync= without apic=");
		return;
	}
	if (!get_num(m, line, rec, RK_cpu_apic, 0, UINT32_MAX, &apic) ||
	    !get_num(m, line, rec, RK_cpu_tsc_sync, 0, 1, &sync))
		return;
	if (run_tsc_sync(r, (uint32_t)apic) >= 0) {
		lerr(m, line, "second @cpu apic=%" PRIu64 " with tsc_sync= in this "
		     "run", apic);
		return;
	}
	grow((void **)&r->sync, &r->sync_cap, r->nsync + 1, sizeof(*r->sync));
	r->sync[r->nsync++] = (struct cpu_sync){ (uint32_t)apic, sync == 1, line };
}

void on_summary(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@summary"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t v, cpus = 0, cycles = 0, settled = 0;
	int op;
	bool ok = need_required(m, line, rec) &&
		  get_choice(m, line, rec, RK_summary_op, op_choices, &op) &&
		  get_num(m, line, rec, RK_summary_cpus, 0, CPUS_MAX, &cpus) &&
		  get_num(m, line, rec, RK_summary_cycles, 0, CYCLES_MAX, &cycles) &&
		  get_num(m, line, rec, RK_summary_mean_ns, 0, UINT64_MAX, &v) &&
		  get_num(m, line, rec, RK_summary_median_ns, 0, UINT64_MAX, &v) &&
		  get_num(m, line, rec, RK_summary_min_ns, 0, UINT64_MAX, &v) &&
		  get_num(m, line, rec, RK_summary_max_ns, 0, UINT64_MAX, &v) &&
		  get_num(m, line, rec, RK_summary_total_ns, 0, UINT64_MAX, &v);
	if (!ok)
		return;
	int x = op == OP_OFFLINE ? get_xfig(m, line, rec, RK_summary_settled_total_ns, &settled)
				 : X_ABSENT;
	if (x < 0)
		return; /* neither a number nor na: reported */
	if (r->sum[op].present) {
		lerr(m, line, "second @summary op=%s in this run (first at line %zu)",
		     op_name[op], r->sum[op].line);
		return;
	}
	r->sum[op].present = true;
	r->sum[op].total_ns = v;
	r->sum[op].settled = x == X_NUM;
	r->sum[op].settled_total_ns = settled;
	r->sum[op].cpus = (uint32_t)cpus;
	r->sum[op].cycles = (uint32_t)cycles;
	r->sum[op].line = line;
}

/* @cpusum: one AP's summary (the QR code carries these when it cannot
 * carry samples). An AP once per run. */
void on_cpusum(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@cpusum"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t cpu, apic, cycles, on_med, on_max, off_med, off_max;
	bool ok = need_required(m, line, rec) &&
		  get_num(m, line, rec, RK_cpusum_cpu, 0, CPUS_MAX - 1, &cpu) &&
		  get_num(m, line, rec, RK_cpusum_apic, 0, UINT32_MAX, &apic) &&
		  get_num(m, line, rec, RK_cpusum_cycles, 0, CYCLES_MAX, &cycles) &&
		  get_num(m, line, rec, RK_cpusum_online_median_ns, 0, NS_MAX, &on_med) &&
		  get_num(m, line, rec, RK_cpusum_online_max_ns, 0, NS_MAX, &on_max) &&
		  get_num(m, line, rec, RK_cpusum_offline_median_ns, 0, NS_MAX, &off_med) &&
		  get_num(m, line, rec, RK_cpusum_offline_max_ns, 0, NS_MAX, &off_max);
	if (!ok)
		return;
	for (size_t i = 0; i < r->ncs; i++)
		if (r->cs[i].apic == apic) {
			lerr(m, line, "second @cpusum apic=%" PRIu64 " in this run (first "
			     "at line %zu)", apic, r->cs[i].line);
			return;
		}
	if (on_med > on_max || off_med > off_max) {
		lerr(m, line, "@cpusum: a median above its max");
		return;
	}
	grow((void **)&r->cs, &r->cs_cap, r->ncs + 1, sizeof(*r->cs));
	struct cpusum *c = &r->cs[r->ncs++];
	*c = (struct cpusum){ (uint32_t)cpu, (uint32_t)apic, (uint32_t)cycles,
			      { 0, 0 }, { 0, 0 }, line };
	c->median[OP_ONLINE] = on_med;
	c->max[OP_ONLINE] = on_max;
	c->median[OP_OFFLINE] = off_med;
	c->max[OP_OFFLINE] = off_max;
}

/* @fail: the kernel's report of what went wrong. Only counted (verify
 * names the first); outside a run (a panic before @boot) the @end after
 * it is what gets reported. */
void on_fail(struct loader *ld, size_t line, const char *p, size_t n)
{
	if (ld->cur < 0)
		return;
	struct run *r = &ld->set->runs[ld->cur];
	if (r->nfail++ == 0) {
		r->fail_line = line;
		/* Printable, cut to fit: it is shown as the run's reason. */
		size_t k = n < sizeof(r->fail_text) - 1 ? n : sizeof(r->fail_text) - 1;
		for (size_t i = 0; i < k; i++)
			r->fail_text[i] = p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
		r->fail_text[k] = '\0';
	}
}

/* @warn records of the events a passing run may have (wings/screen/warn_events.h). */
void on_warn(struct loader *ld, const char *p, size_t n)
{
	if (ld->cur >= 0 && warn_is_event(p, n))
		ld->set->runs[ld->cur].warn_events++;
}

/* A record's text after its word, kept whole for lookups. */
static void keep_text(char **dst, const char *p, size_t n)
{
	free(*dst);
	*dst = xcalloc(n + 1, 1);
	memcpy(*dst, p, n);
}

/* @env: the machine (vendor, brand, hypervisor=, acpi_oem=...), kept as
 * text for lookups: it says whether the flush under test cost anything. */
void on_env(struct loader *ld, const char *p, size_t n)
{
	if (ld->cur >= 0)
		keep_text(&ld->set->runs[ld->cur].env_fields, p, n);
}

/* @trampoline: whose trampoline the APs started in (kind=apstart, or
 * kind=linux with the blob's version and SHA-256): a side is one. */
void on_trampoline(struct loader *ld, const char *p, size_t n)
{
	if (ld->cur >= 0)
		keep_text(&ld->set->runs[ld->cur].tramp_fields, p, n);
}

void on_end(struct loader *ld, size_t line, const struct record *rec)
{
	if (!in_run(ld, line, "@end"))
		return;
	struct run *r = &ld->set->runs[ld->cur];
	struct msgs *m = &ld->m;
	uint64_t online = 0, failed = 0, warnings = 0;
	int status = 1;
	bool ok = need_required(m, line, rec) &&
		  get_choice(m, line, rec, RK_end_status, status_choices, &status) &&
		  get_num(m, line, rec, RK_end_online, 0, CPUS_MAX, &online) &&
		  get_num(m, line, rec, RK_end_failed, 0, CPUS_MAX, &failed);
	/* Even a malformed @end ends the run, so later lines are not blamed. */
	r->ended = true;
	r->end_line = line;
	r->passed = ok && status == 0;
	r->end_online = (uint32_t)online;
	r->end_failed = (uint32_t)failed;
	r->end_warnings = -1;
	if (rec_get(rec, RK_end_warnings) &&
	    get_num(m, line, rec, RK_end_warnings, 0, UINT32_MAX, &warnings))
		r->end_warnings = (int64_t)warnings;
	ld->last_end = line;
	close_run(ld, line, "");
}

/* @host: facts from the host side of a run (tools/run/qemu-run.sh writes it
 * before QEMU starts). flush_model= marks the run that follows, or the
 * open one, as run under a modelled flush cost. Other keys are ignored. */
void on_host(struct loader *ld, size_t line, const struct record *rec)
{
	if (!rec_get(rec, RK_host_flush_model))
		return;
	char *dst = ld->cur >= 0 ? ld->set->runs[ld->cur].flush_model
				 : ld->host_flush;
	char v[HOST_STR_MAX];
	if (get_text(&ld->m, line, rec, RK_host_flush_model, v, sizeof(v)))
		memcpy(dst, v, sizeof(v));
}
