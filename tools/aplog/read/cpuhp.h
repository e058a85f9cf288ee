/* SPDX-License-Identifier: MIT */
/* Linux's CPU hotplug, state by state: the @cpuhp and @cpuhp_write
 * records of linux-hotplug --trace (tools/linux/hotplug/trace.h), one
 * per state callback that ran during a sysfs write and one per write.
 * Read here, apart from records.c, on top of the runs load_file() finds
 * (a run's records are those between its @boot and the next). */
#ifndef APLOG_CPUHP_H
#define APLOG_CPUHP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/aplog/read/records.h"

#define CPUHP_STATES 1024 /* state numbers 0..1023 */
#define CPUHP_NAME 48

/* @cpuhp cpu= apic= cycle= op= state= name= fn= multi= on= start_ns= ns= ret= */
struct cpuhp_cb {
	uint32_t state, on;
	bool ap;                 /* ran on the CPU being brought up or down */
	bool multi;              /* one instance of a multi-instance state */
	uint64_t start_ns, ns;   /* within its write */
	char name[CPUHP_NAME], fn[CPUHP_NAME];
};

/* @cpuhp_write cpu= apic= cycle= op= [at_ns=] ns= callbacks= lost= ... */
struct cpuhp_write {
	uint32_t cpu, apic, cycle;
	uint8_t op;              /* enum op */
	bool has_at;
	uint64_t at_ns, ns, lost;
	struct cpuhp_cb *cb;     /* the @cpuhp records before it */
	size_t ncb;
	size_t line;
};

struct cpuhp_run {
	struct cpuhp_write *w;
	size_t nw, cap;
};

/* The runs of some logs (set, as load_file() reads them) and, per run,
 * its traced writes (run[i] for set.runs[i]; nw 0 when untraced). */
struct cpuhp_logs {
	struct set set;
	struct cpuhp_run *run;
};

/* Loads the logs; returns the number of errors (each reported). */
int cpuhp_load(struct cpuhp_logs *L, const char *const *files, size_t n,
	       bool allow_trunc);
void cpuhp_free(struct cpuhp_logs *L);

/* Whether cb is the state that holds the AP's kick (INIT/SIPI) and its
 * trampoline: CPUHP_BRINGUP_CPU ("cpu:bringup", bringup_cpu) in Linux
 * up to 6.4, CPUHP_BP_KICK_AP ("cpu:kick_ap") from 6.5. */
bool cpuhp_is_kick(const struct cpuhp_cb *cb);

/* AP-side time inside a control-side callback c of write w (callbacks on
 * the AP whose window lies within c's). */
uint64_t cpuhp_inner_ns(const struct cpuhp_write *w, const struct cpuhp_cb *c);

#endif
