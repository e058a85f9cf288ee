/* SPDX-License-Identifier: MIT */
/* What the flush model says a probe point costs, for the commands that
 * hold measurements against it (flush, victims). */
#ifndef APLOG_FLUSH_PREDICT_H
#define APLOG_FLUSH_PREDICT_H

#include <stdint.h>

#include "tools/aplog/read/flush_log.h"
#include "tools/flushmodel/model.h"

/* flushmodel arguments joined by commas (a bare word: a preset, file:PATH:
 * a preset file) -> m; 0, or 1 after a message. */
int model_from_spec(const char *spec, struct flush_model *m);
/* The model's figure of a point in ns (at once: first start to last end
 * for that many CPUs of one socket); < 0 where it has none. */
double predict(const struct flush_model *m, const struct flush_point *p, uint32_t socket_cpus);

#endif
