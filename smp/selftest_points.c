/* SPDX-License-Identifier: MIT */
/* The self-test points' state (smp/selftest_points.h): nothing armed. */
#include "smp/selftest_points.h"

enum selftest selftest_armed = SELFTEST_NONE;
struct selftest_points selftest_points;
