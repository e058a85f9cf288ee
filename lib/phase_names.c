/* SPDX-License-Identifier: MIT */
#include "lib/phase_names.h"

#include <stddef.h>

const char *const phase_names[PHASE_NAMES_COUNT + 1] = {
	"init_assert", "init_deassert", "sipi", "real", "protected", "long",
	"c_entry", "tables", "lapic", "online", "seen", "sipi2", NULL,
};
