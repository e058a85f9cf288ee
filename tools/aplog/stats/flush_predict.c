/* SPDX-License-Identifier: MIT */
/* What the flush model says a probe point costs (flush_predict.h): the
 * model parsed and costed by the plugin's own code
 * (tools/flushmodel/model.c, preset_file.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/aplog/stats/flush_predict.h"
#include "tools/aplog/util.h"
#include "tools/flushmodel/model.h"
#include "tools/flushmodel/preset_file.h"

#define SPEC_ITEMS_MAX 32

/* SPEC -> a parsed model, with the plugin's parser. */
int model_from_spec(const char *spec, struct flush_model *m)
{
	char *copy = strdup(spec), *items[SPEC_ITEMS_MAX], *save = NULL;
	int n = 0;
	if (!copy)
		oom();
	char *owned[SPEC_ITEMS_MAX] = { 0 };
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == SPEC_ITEMS_MAX) {
			fprintf(stderr, "aplog: --against: more than %d items\n", SPEC_ITEMS_MAX);
			free(copy);
			return 1;
		}
		if (!strncmp(t, "file:", 5) || !strchr(t, '=')) {
			const char *pre = strncmp(t, "file:", 5) ? "preset=" : "preset_file=";
			const char *rest = strncmp(t, "file:", 5) ? t : t + 5;
			owned[n] = xcalloc(strlen(pre) + strlen(rest) + 1, 1);
			strcat(strcpy(owned[n], pre), rest);
			items[n] = owned[n];
			n++;
		} else {
			items[n++] = t;
		}
	}
	int na;
	char **args, err[256];
	int rc = 0;
	if (preset_args_merge(n, items, &na, &args, err, sizeof err)) {
		fprintf(stderr, "aplog: --against %s: %s\n", spec, err);
		rc = 1;
	} else {
		if (model_parse(m, na, args, err, sizeof err)) {
			fprintf(stderr, "aplog: --against %s: %s\n", spec, err);
			rc = 1;
		}
		preset_args_free(na, args);
	}
	for (int i = 0; i < n; i++)
		free(owned[i]);
	free(copy);
	return rc;
}

/* What the model says the point's figure is, ns; < 0: not modelled
 * (CLFLUSHOPT/CLWB: the plugin charges only WBINVD, WBNOINVD, INVD). At
 * once, n CPUs of one socket: the first flush finds the socket's dirty
 * lines, the others none; serialised they run one after the other. */
double predict(const struct flush_model *m, const struct flush_point *p, uint32_t socket_cpus)
{
	if (p->op != FOP_WBINVD && p->op != FOP_WBNOINVD)
		return -1;
	if (socket_cpus && p->at_once > socket_cpus)
		return -1;
	enum flush_kind k = p->op == FOP_WBNOINVD ? FLUSH_WBNOINVD : FLUSH_WBINVD;
	double dirty = (double)p->dirty_kib * 1024.0 * p->at_once;
	double first, other;
	if (m->dirty_track) {
		first = (double)model_cost_dirty_ns(m, k, dirty, 0);
		other = (double)model_cost_dirty_ns(m, k, 0, 0);
	} else {
		first = other = (double)model_cost_ns(m, k, 0);
	}
	if (p->at_once == 1 || !m->serialize)
		return first;
	return first + (p->at_once - 1) * other;
}
