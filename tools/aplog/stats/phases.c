/* SPDX-License-Identifier: MIT */
/* The phases of a set's starts, pooled (phases.h). */
#include "tools/aplog/stats/phases.h"

#include <stdlib.h>

#include "tools/aplog/util.h"

static bool usable(const struct run *r)
{
	return run_use(r) != USE_NONE;
}

bool side_has_phases(const struct side *sd)
{
	for (size_t i = 0; i < sd->set.n; i++)
		if (usable(&sd->set.runs[i]) && sd->set.runs[i].nph)
			return true;
	return false;
}

bool side_has_rounds(const struct side *sd)
{
	for (size_t i = 0; i < sd->set.n; i++)
		if (usable(&sd->set.runs[i]) && sd->set.runs[i].nrounds)
			return true;
	return false;
}

void phase_pool_build(const struct side *sd, long apic, struct phase_pool *p)
{
	size_t cap = 0;
	for (size_t i = 0; i < sd->set.n; i++)
		cap += sd->set.runs[i].nph;
	for (int k = 0; k < PHASE_COUNT; k++) {
		p->v[k] = xrealloc_array(NULL, cap ? cap : 1, sizeof(uint64_t));
		p->n[k] = p->na[k] = 0;
	}
	for (size_t i = 0; i < sd->set.n; i++) {
		const struct run *r = &sd->set.runs[i];
		if (!usable(r))
			continue;
		for (size_t j = 0; j < r->nph; j++) {
			const struct phase_rec *ph = &r->ph[j];
			if (ph->cycle == 0 || (apic != ALL_APICS && ph->apic != (uint32_t)apic) ||
			    (ph->nmi && !nmi_samples_counted))
				continue;
			if (ph->na)
				p->na[ph->phase]++;
			else
				p->v[ph->phase][p->n[ph->phase]++] = ph->ns;
		}
	}
}

void phase_pool_free(struct phase_pool *p)
{
	for (int k = 0; k < PHASE_COUNT; k++)
		free(p->v[k]);
}
