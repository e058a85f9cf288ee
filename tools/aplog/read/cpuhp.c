/* SPDX-License-Identifier: MIT */
/* @cpuhp / @cpuhp_write records (cpuhp.h). */
#include "tools/aplog/read/cpuhp.h"

#include <stdlib.h>
#include <string.h>

#include "tools/aplog/util.h"


struct pending {
	struct cpuhp_cb *cb;
	size_t n, cap;
	uint32_t cpu, cycle;
	uint8_t op;
	size_t first_line;
};

static bool parse_cb(struct msgs *m, size_t line, const struct record *r,
		     struct pending *p)
{
	if (!need_required(m, line, r))
		return false;
	uint64_t cpu, cycle, state, multi, on, start, ns;
	int op;
	struct cpuhp_cb cb;
	memset(&cb, 0, sizeof(cb));
	if (!get_num(m, line, r, RK_cpuhp_cpu, 0, CPUS_MAX, &cpu) ||
	    !get_num(m, line, r, RK_cpuhp_cycle, 1, CYCLES_MAX, &cycle) ||
	    !get_choice(m, line, r, RK_cpuhp_op, op_choices, &op) ||
	    !get_num(m, line, r, RK_cpuhp_state, 0, CPUHP_STATES - 1, &state) ||
	    !get_text(m, line, r, RK_cpuhp_name, cb.name, CPUHP_NAME) ||
	    !get_text(m, line, r, RK_cpuhp_fn, cb.fn, CPUHP_NAME) ||
	    !get_num(m, line, r, RK_cpuhp_multi, 0, 1, &multi) ||
	    !get_num(m, line, r, RK_cpuhp_on, 0, CPUS_MAX, &on) ||
	    !get_num(m, line, r, RK_cpuhp_start_ns, 0, NS_MAX, &start) ||
	    !get_num(m, line, r, RK_cpuhp_ns, 0, NS_MAX, &ns))
		return false;
	if (p->n && (p->cpu != cpu || p->cycle != cycle || p->op != op)) {
		lerr(m, line, "@cpuhp: cpu=%u cycle=%u op=%s, but the records before it "
		     "(from line %zu) are of cpu=%u cycle=%u op=%s without their @cpuhp_write",
		     (unsigned)cpu, (unsigned)cycle, op_name[op], p->first_line, p->cpu,
		     p->cycle, op_name[p->op]);
		p->n = 0;
		return false;
	}
	if (!p->n) {
		p->cpu = (uint32_t)cpu;
		p->cycle = (uint32_t)cycle;
		p->op = (uint8_t)op;
		p->first_line = line;
	}
	cb.state = (uint32_t)state;
	cb.on = (uint32_t)on;
	cb.ap = on == cpu;
	cb.multi = multi;
	cb.start_ns = start;
	cb.ns = ns;
	grow((void **)&p->cb, &p->cap, p->n + 1, sizeof(*p->cb));
	p->cb[p->n++] = cb;
	return true;
}

static bool parse_write(struct msgs *m, size_t line, const struct record *r,
			struct pending *p, struct cpuhp_run *run)
{
	if (!need_required(m, line, r))
		return false;
	uint64_t cpu, apic, cycle, ns, lost, at = 0;
	int op;
	if (!get_num(m, line, r, RK_cpuhp_write_cpu, 0, CPUS_MAX, &cpu) ||
	    !get_num(m, line, r, RK_cpuhp_write_apic, 0, UINT32_MAX, &apic) ||
	    !get_num(m, line, r, RK_cpuhp_write_cycle, 1, CYCLES_MAX, &cycle) ||
	    !get_choice(m, line, r, RK_cpuhp_write_op, op_choices, &op) ||
	    !get_num(m, line, r, RK_cpuhp_write_ns, 0, NS_MAX, &ns) ||
	    !get_num(m, line, r, RK_cpuhp_write_lost, 0, NS_MAX, &lost) ||
	    (rec_get(r, RK_cpuhp_write_at_ns) && !get_num(m, line, r, RK_cpuhp_write_at_ns, 0, NS_MAX, &at)))
		return false;
	if (p->n && (p->cpu != cpu || p->cycle != cycle || p->op != op)) {
		lerr(m, line, "@cpuhp_write: cpu=%u cycle=%u op=%s, but its @cpuhp records "
		     "(from line %zu) say cpu=%u cycle=%u op=%s", (unsigned)cpu,
		     (unsigned)cycle, op_name[op], p->first_line, p->cpu, p->cycle,
		     op_name[p->op]);
		p->n = 0;
		return false;
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->cb[i].start_ns > ns || p->cb[i].ns > ns - p->cb[i].start_ns) {
			lerr(m, line, "@cpuhp_write: ns=%llu, but a callback of it (state %u) "
			     "ends at %llu ns", (unsigned long long)ns, p->cb[i].state,
			     (unsigned long long)(p->cb[i].start_ns + p->cb[i].ns));
			p->n = 0;
			return false;
		}
	grow((void **)&run->w, &run->cap, run->nw + 1, sizeof(*run->w));
	struct cpuhp_write *w = &run->w[run->nw++];
	*w = (struct cpuhp_write){ .cpu = (uint32_t)cpu, .apic = (uint32_t)apic,
		.cycle = (uint32_t)cycle, .op = (uint8_t)op, .has_at = rec_get(r, RK_cpuhp_write_at_ns) != NULL,
		.at_ns = at, .ns = ns, .lost = lost, .line = line };
	w->ncb = p->n;
	w->cb = p->n ? xcalloc(p->n, sizeof(*w->cb)) : NULL;
	if (p->n)
		memcpy(w->cb, p->cb, p->n * sizeof(*w->cb));
	p->n = 0;
	return true;
}

int cpuhp_load(struct cpuhp_logs *L, const char *const *files, size_t n,
	       bool allow_trunc)
{
	memset(L, 0, sizeof(*L));
	int errors = 0;
	for (size_t f = 0; f < n; f++) {
		size_t first = L->set.n;
		int e = load_file(&L->set, files[f], allow_trunc);
		errors += e;
		/* every run in the set has its entry, a file with errors' too
		 * (its runs kept, their @cpuhp records not read): cpuhp_free
		 * and the tables walk all of them */
		L->run = xrealloc_array(L->run, L->set.n, sizeof(*L->run));
		memset(L->run + first, 0, (L->set.n - first) * sizeof(*L->run));
		if (e)
			continue;
		char *buf;
		size_t len, pos = 0, line = 0;
		if (read_all(files[f], &buf, &len) != 0) {
			errors++;
			continue;
		}
		struct msgs m = { .file = strcmp(files[f], "-") ? files[f] : "<stdin>" };
		struct pending p = { 0 };
		size_t cur = first; /* the run of the records read: set by @boot */
		bool in_run = false;
		static struct record rec;
		while (pos < len && m.errors < MAX_ERRORS_PER_FILE) {
			size_t ln;
			const char *s = next_line(buf, len, &pos, &ln);
			line++;
			if (ln < 6 || s[0] != '@')
				continue;
			size_t w = 1;
			while (w < ln && s[w] != ' ' && s[w] != '\t')
				w++;
			int id = record_find(s, w);
			if (id == RW_boot) {
				if (in_run)
					cur++;
				in_run = true;
				p.n = 0;
				continue;
			}
			bool is_cb = id == RW_cpuhp;
			if (!is_cb && id != RW_cpuhp_write)
				continue;
			if (!in_run || cur >= L->set.n) {
				lerr(&m, line, "%s before any @boot", is_cb ? "@cpuhp" : "@cpuhp_write");
				continue;
			}
			if (!record_parse(&m, line, s, ln, &rec))
				continue;
			if (is_cb)
				parse_cb(&m, line, &rec, &p);
			else
				parse_write(&m, line, &rec, &p, &L->run[cur]);
		}
		if (p.n)
			lerr(&m, p.first_line, "@cpuhp records without their @cpuhp_write "
			     "(the log ends)");
		free(p.cb);
		free(buf);
		errors += m.errors;
	}
	return errors;
}

void cpuhp_free(struct cpuhp_logs *L)
{
	for (size_t i = 0; L->run && i < L->set.n; i++) {
		for (size_t j = 0; j < L->run[i].nw; j++)
			free(L->run[i].w[j].cb);
		free(L->run[i].w);
	}
	free(L->run);
	set_free(&L->set);
	memset(L, 0, sizeof(*L));
}

bool cpuhp_is_kick(const struct cpuhp_cb *cb)
{
	return !strcmp(cb->name, "cpu:bringup") || !strcmp(cb->name, "cpu:kick_ap") ||
	       !strcmp(cb->fn, "bringup_cpu");
}

uint64_t cpuhp_inner_ns(const struct cpuhp_write *w, const struct cpuhp_cb *c)
{
	uint64_t in = 0;
	if (c->ap)
		return 0;
	for (size_t i = 0; i < w->ncb; i++) {
		const struct cpuhp_cb *a = &w->cb[i];
		if (a->ap && a->start_ns >= c->start_ns &&
		    a->start_ns + a->ns <= c->start_ns + c->ns)
			in += a->ns;
	}
	return in > c->ns ? c->ns : in;
}
