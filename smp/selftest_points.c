/* SPDX-License-Identifier: MIT */
/* The self-test points' state (smp/selftest_points.h): nothing armed. */
#include "smp/selftest_points.h"

uint32_t selftest_armed;
struct selftest_points selftest_points;
