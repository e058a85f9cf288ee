/* SPDX-License-Identifier: MIT */
/* What the compiler is told beyond C11. */
#ifndef APSTART_COMPILER_H
#define APSTART_COMPILER_H

/* Inlined whatever the optimiser thinks: code written once for a set of
 * APs compiles, for one AP, to the sequence written for one AP, so that
 * the measured windows cost the same instructions either way. */
#define FORCE_INLINE static inline __attribute__((always_inline))

#endif
