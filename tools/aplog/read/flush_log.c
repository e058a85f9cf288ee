/* SPDX-License-Identifier: MIT */
/* Reads @boot/@probe/@flush/@host/@env lines; everything else is other
 * tools' (records.c reads the cycles' records from the same logs). */
#include "tools/aplog/read/flush_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "tools/aplog/read/records.h"
#include "tools/aplog/util.h"

const char *const flush_op_names[FOP_COUNT] = { "wbinvd", "wbnoinvd", "clflushopt", "clwb" };

static void on_flush(struct flush_log *l, const struct record *r)
{
	uint64_t apic, at_once, rep, kib, ns, smi = 0, khz = 0;
	int k = -1;
	for (int i = 0; i < FOP_COUNT; i++)
		if (rec_is(r, RK_flush_op, flush_op_names[i]))
			k = i;
	if (k < 0 || !rec_num(r, RK_flush_apic, UINT32_MAX, &apic) ||
	    !rec_num(r, RK_flush_at_once, 1u << 20, &at_once) || !at_once ||
	    !rec_num(r, RK_flush_rep, 1u << 20, &rep) ||
	    !rec_num(r, RK_flush_dirty_kib, UINT32_MAX, &kib) ||
	    !rec_num(r, RK_flush_ns, NS_MAX, &ns)) {
		l->bad_lines++;
		return;
	}
	rec_num(r, RK_flush_smi, UINT32_MAX, &smi);
	rec_num(r, RK_flush_khz, UINT32_MAX, &khz);
	uint64_t start = 0;
	bool has_start = rec_num(r, RK_flush_start_ns, NS_MAX, &start);
	grow((void **)&l->r, &l->cap, l->n + 1, sizeof *l->r);
	l->r[l->n++] = (struct flush_rec){ l->runs, (uint32_t)apic, (uint32_t)at_once,
					  (uint32_t)rep, (uint32_t)kib, (enum flush_op)k, ns,
					  (uint32_t)smi, (uint32_t)khz, has_start, start };
}

int flush_log_load(struct flush_log *l, const char *path)
{
	char *buf;
	size_t len, pos = 0, n, line = 0;
	if (read_all(path, &buf, &len))
		return -1;
	/* Lenient: a malformed @flush line is counted (bad_lines), others
	 * are other tools' business. */
	struct msgs m = { .file = path, .quiet = true };
	static struct record r;
	while (pos < len) {
		const char *s = next_line(buf, len, &pos, &n);
		line++;
		size_t w = 1;
		while (w < n && s[w] != ' ' && s[w] != '\t')
			w++;
		int id = n && s[0] == '@' ? record_find(s, w) : -1;
		if (id != RW_boot && id != RW_flush && id != RW_probe && id != RW_host &&
		    id != RW_env)
			continue;
		if (!record_parse(&m, line, s, n, &r)) {
			l->bad_lines += id == RW_flush;
			continue;
		}
		if (id == RW_boot) {
			l->runs++;
		} else if (id == RW_flush) {
			on_flush(l, &r);
		} else if (id == RW_probe) {
			uint64_t v;
			l->probe_seen = true;
			if (rec_num(&r, RK_probe_llc_kib, UINT32_MAX, &v))
				l->llc_kib = (uint32_t)v;
			if (rec_num(&r, RK_probe_socket_cpus, UINT32_MAX, &v))
				l->socket_cpus = (uint32_t)v;
			if (rec_num(&r, RK_probe_cpus, UINT32_MAX, &v))
				l->cpus = (uint32_t)v;
			if (rec_num(&r, RK_probe_at_once_kib, UINT32_MAX, &v))
				l->at_once_kib = (uint32_t)v;
		} else if (id == RW_host) {
			if (rec_get(&r, RK_host_flush_model))
				rec_copy(&r, RK_host_flush_model, l->model, sizeof l->model);
		} else if (rec_get(&r, RK_env_brand)) {
			rec_copy(&r, RK_env_brand, l->brand, sizeof l->brand);
		}
	}
	free(buf);
	return 0;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct flush_rec *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	CMP(op);
	CMP(at_once);
	CMP(dirty_kib);
	CMP(run);
	CMP(rep);
#undef CMP
	return 0;
}

static void add_value(struct flush_point *p, size_t *cap, uint64_t v)
{
	grow((void **)&p->v, cap, p->n + 1, sizeof *p->v);
	p->v[p->n++] = v;
}

void flush_log_points(struct flush_log *l, bool smi_counted)
{
	qsort(l->r, l->n, sizeof *l->r, cmp_rec);
	size_t cap = 0;
	for (size_t i = 0; i < l->n;) {
		const struct flush_rec *a = &l->r[i];
		grow((void **)&l->pt, &cap, l->npt + 1, sizeof *l->pt);
		struct flush_point *p = &l->pt[l->npt++];
		*p = (struct flush_point){ .op = a->op, .at_once = a->at_once,
					   .dirty_kib = a->dirty_kib };
		size_t vcap = 0, j = i;
		while (j < l->n && l->r[j].op == a->op && l->r[j].at_once == a->at_once &&
		       l->r[j].dirty_kib == a->dirty_kib) {
			/* one window (at_once=1) or one round's records */
			size_t k = j;
			uint64_t worst = 0, late = 0, first_ns = 0;
			bool hit = false;
			while (k < l->n && !cmp_rec(&l->r[k], &l->r[j]) &&
			       (a->at_once > 1 || k == j)) {
				/* at once: first start to last end where the
				 * start is known, else the slowest window */
				uint64_t start = l->r[k].has_start ? l->r[k].start_ns : 0;
				uint64_t end = l->r[k].ns + start;
				worst = end > worst ? end : worst;
				late = start > late ? start : late;
				if (l->r[k].has_start && !start)
					first_ns = l->r[k].ns; /* the CPU that started first */
				hit |= l->r[k].smi != 0;
				k++;
			}
			if (hit && !smi_counted)
				p->smi_left_out++;
			else if (a->at_once > 1 && first_ns && late > first_ns)
				/* not at once: a CPU opened its window only after
				 * the first one's had closed (a host that
				 * descheduled a vCPU, an interrupt) */
				p->skewed_left_out++;
			else
				add_value(p, &vcap, worst);
			j = k;
		}
		if (p->n) {
			qsort(p->v, p->n, sizeof *p->v, cmp_u64);
			p->best = p->v[0];
			p->max = p->v[p->n - 1];
			p->median = median_sorted_u64(p->v, p->n);
		}
		i = j;
	}
}

const struct flush_point *flush_log_find(const struct flush_log *l, enum flush_op op,
					 uint32_t at_once, uint32_t dirty_kib)
{
	for (size_t i = 0; i < l->npt; i++)
		if (l->pt[i].op == op && l->pt[i].at_once == at_once &&
		    l->pt[i].dirty_kib == dirty_kib && l->pt[i].n)
			return &l->pt[i];
	return NULL;
}

void flush_log_free(struct flush_log *l)
{
	for (size_t i = 0; i < l->npt; i++)
		free(l->pt[i].v);
	free(l->pt);
	free(l->r);
	memset(l, 0, sizeof *l);
}
