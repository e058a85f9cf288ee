/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
#include "disturb.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct domain_gate {
	unsigned flushing; /* holds in progress; read without the lock first */
	pthread_mutex_t lock;
	pthread_cond_t done;
};

static struct domain_gate *gates;
static unsigned ngates;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool disturb_init(unsigned ndomains)
{
	gates = calloc(ndomains, sizeof *gates);
	if (!gates)
		return false;
	ngates = ndomains;
	for (unsigned d = 0; d < ndomains; d++) {
		pthread_mutex_init(&gates[d].lock, NULL);
		pthread_cond_init(&gates[d].done, NULL);
	}
	return true;
}

void disturb_begin(unsigned d)
{
	if (d >= ngates)
		return;
	pthread_mutex_lock(&gates[d].lock);
	__atomic_add_fetch(&gates[d].flushing, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&gates[d].lock);
}

void disturb_end(unsigned d)
{
	if (d >= ngates)
		return;
	pthread_mutex_lock(&gates[d].lock);
	if (__atomic_sub_fetch(&gates[d].flushing, 1, __ATOMIC_RELEASE) == 0)
		pthread_cond_broadcast(&gates[d].done);
	pthread_mutex_unlock(&gates[d].lock);
}

uint64_t disturb_gate(unsigned d)
{
	if (d >= ngates || !__atomic_load_n(&gates[d].flushing, __ATOMIC_ACQUIRE))
		return 0;
	uint64_t t0 = mono_ns();
	pthread_mutex_lock(&gates[d].lock);
	while (gates[d].flushing)
		pthread_cond_wait(&gates[d].done, &gates[d].lock);
	pthread_mutex_unlock(&gates[d].lock);
	return mono_ns() - t0;
}
