/* SPDX-License-Identifier: MIT */
/* disturb=on: while a vCPU of a socket is held for a flush, the socket's
 * other vCPUs stop at their next translation block until it ends, as if
 * the flush took the shared cache (and the cores behind it) away from
 * them. Whether and how much a real WBINVD stalls its neighbours is what
 * the probe's victims measure on hardware; this is the model's
 * assumption, opt-in, for testing that chain end to end. pthreads only,
 * no QEMU. */
#ifndef FLUSHMODEL_DISTURB_H
#define FLUSHMODEL_DISTURB_H

#include <stdbool.h>
#include <stdint.h>

bool disturb_init(unsigned ndomains);
/* The flushing vCPU, around its hold. */
void disturb_begin(unsigned d);
void disturb_end(unsigned d);
/* Any vCPU of domain d, at each block: returns at once unless a flush of
 * its socket is being held, else when none is; the ns it waited. */
uint64_t disturb_gate(unsigned d);

#endif
