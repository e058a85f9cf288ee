/* SPDX-License-Identifier: MIT */
/* Reads @boot/@probe/@flush/@host/@env lines; everything else is other
 * tools' (records.c reads the cycles' records from the same logs). */
#include "tools/aplog/read/flush_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "tools/aplog/util.h"

const char *const flush_op_names[FOP_COUNT] = { "wbinvd", "wbnoinvd", "clflushopt", "clwb" };

/* key=value of a record line; NULL when absent. *vl: its length. */
static const char *field(const char *line, size_t n, const char *key, size_t *vl)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i + kl < n; i++) {
		if ((i == 0 || line[i - 1] == ' ') && !memcmp(line + i, key, kl) &&
		    line[i + kl] == '=') {
			size_t s = i + kl + 1, e = s;
			while (e < n && line[e] != ' ')
				e++;
			*vl = e - s;
			return line + s;
		}
	}
	return NULL;
}

static bool num(const char *line, size_t n, const char *key, uint64_t max, uint64_t *out)
{
	size_t vl;
	const char *v = field(line, n, key, &vl);
	return v && parse_dec(v, vl, max, out) == NUM_OK;
}

static bool starts(const char *line, size_t n, const char *word)
{
	size_t wl = strlen(word);
	return n > wl && !memcmp(line, word, wl) && line[wl] == ' ';
}

static void copy_field(const char *line, size_t n, const char *key, char *dst, size_t size)
{
	size_t vl;
	const char *v = field(line, n, key, &vl);
	if (!v)
		return;
	if (vl >= size)
		vl = size - 1;
	for (size_t i = 0; i < vl; i++)
		dst[i] = v[i] >= 0x20 && v[i] < 0x7f ? v[i] : '?';
	dst[vl] = '\0';
}

static void on_flush(struct flush_log *l, const char *line, size_t n)
{
	uint64_t apic, at_once, rep, kib, ns, smi = 0, khz = 0;
	size_t ol;
	const char *op = field(line, n, "op", &ol);
	int k = -1;
	for (int i = 0; op && i < FOP_COUNT; i++)
		if (strlen(flush_op_names[i]) == ol && !memcmp(op, flush_op_names[i], ol))
			k = i;
	if (k < 0 || !num(line, n, "apic", UINT32_MAX, &apic) ||
	    !num(line, n, "at_once", 1u << 20, &at_once) || !at_once ||
	    !num(line, n, "rep", 1u << 20, &rep) ||
	    !num(line, n, "dirty_kib", UINT32_MAX, &kib) ||
	    !num(line, n, "ns", 1000000000000000ull, &ns)) {
		l->bad_lines++;
		return;
	}
	num(line, n, "smi", UINT32_MAX, &smi);
	num(line, n, "khz", UINT32_MAX, &khz);
	uint64_t start = 0;
	size_t sl;
	bool has_start = field(line, n, "start_ns", &sl) &&
			 num(line, n, "start_ns", 1000000000000000ull, &start);
	grow((void **)&l->r, &l->cap, l->n + 1, sizeof *l->r);
	l->r[l->n++] = (struct flush_rec){ l->runs, (uint32_t)apic, (uint32_t)at_once,
					  (uint32_t)rep, (uint32_t)kib, (enum flush_op)k, ns,
					  (uint32_t)smi, (uint32_t)khz, has_start, start };
}

/* The next line from *pos, without its CR/LF; NULL at the end. */
static const char *line_at(const char *buf, size_t len, size_t *pos, size_t *n)
{
	if (*pos >= len)
		return NULL;
	const char *s = buf + *pos;
	const char *nl = memchr(s, '\n', len - *pos);
	size_t l = nl ? (size_t)(nl - s) : len - *pos;
	*pos += l + (nl != NULL);
	while (l && s[l - 1] == '\r')
		l--;
	*n = l;
	return s;
}

int flush_log_load(struct flush_log *l, const char *path)
{
	char *buf;
	size_t len, pos = 0, n;
	if (read_all(path, &buf, &len))
		return -1;
	const char *line;
	while ((line = line_at(buf, len, &pos, &n))) {
		if (starts(line, n, "@boot")) {
			l->runs++;
		} else if (starts(line, n, "@flush")) {
			on_flush(l, line, n);
		} else if (starts(line, n, "@probe")) {
			uint64_t v;
			l->probe_seen = true;
			if (num(line, n, "llc_kib", UINT32_MAX, &v))
				l->llc_kib = (uint32_t)v;
			if (num(line, n, "socket_cpus", UINT32_MAX, &v))
				l->socket_cpus = (uint32_t)v;
			if (num(line, n, "cpus", UINT32_MAX, &v))
				l->cpus = (uint32_t)v;
			if (num(line, n, "at_once_kib", UINT32_MAX, &v))
				l->at_once_kib = (uint32_t)v;
		} else if (starts(line, n, "@host")) {
			copy_field(line, n, "flush_model", l->model, sizeof l->model);
		} else if (starts(line, n, "@env")) {
			copy_field(line, n, "brand", l->brand, sizeof l->brand);
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
