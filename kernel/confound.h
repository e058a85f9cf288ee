/* SPDX-License-Identifier: MIT */
/* What can disturb a timed window without the kernel seeing it: System
 * Management Interrupts (the CPU leaves for firmware code; only
 * MSR_SMI_COUNT tells) and the clock the core ran at (APERF/MPERF). A
 * snapshot before and one after a window say whether either happened. */
#ifndef APSTART_CONFOUND_H
#define APSTART_CONFOUND_H

#include <stdbool.h>
#include <stdint.h>

struct confound_snap {
	uint64_t smi;          /* MSR_SMI_COUNT[31:0] */
	uint64_t aperf, mperf; /* IA32_APERF, IA32_MPERF */
	uint64_t tsc;
};

struct confound_caps {
	bool smi;   /* MSR_SMI_COUNT read without #GP on the BSP */
	bool freq;  /* CPUID 6 ECX[0] and both MSRs read */
};

/* BSP, once: which counters this machine has (all CPUs taken alike). */
void confound_init(void);
const struct confound_caps *confound_caps(void);

/* Any CPU: the counters it has (the others read 0). Safe everywhere: a
 * #GP on an AP that lacks an MSR the BSP had is taken back. */
void confound_read(struct confound_snap *s);

/* SMIs between two snapshots of one CPU (0 without the counter; the
 * counter is 32 bits wide and wraps). */
uint32_t confound_smis(const struct confound_snap *a, const struct confound_snap *b);
/* Effective frequency between two snapshots, kHz: TSC rate x
 * dAPERF/dMPERF (SDM Vol. 3B §15.2, "P-state hardware coordination");
 * 0 without the counters or when MPERF did not move. */
uint64_t confound_khz(const struct confound_snap *a, const struct confound_snap *b);

/* One timed window of the cycles: open just before it, close just after
 * (the MSR reads stay outside the window). smis: SMIs on this CPU in
 * between; a window with any is counted for @end smi_windows=. */
struct confound_window {
	struct confound_snap open;
	uint64_t close_tsc;
	uint32_t smis;
	uint32_t khz;
};
void confound_open(struct confound_window *w);
void confound_close(struct confound_window *w);
/* " smi=N" (and " khz=K" where APERF/MPERF are read) for a record. */
void confound_fields(char *buf, uint32_t size, const struct confound_window *w);

/* A window's effective kHz (0: none), for the run's range. */
void confound_note_khz(uint32_t khz);
/* End of run: "@confound ..." with the counters there were, the windows an
 * SMI hit and the effective clock's range; a line on the console when the
 * clock moved by more than 5% between windows (turbo, thermal limits). */
void confound_report(void);

/* Timed windows an SMI hit, over the run (for @end smi_windows=). */
void confound_count_smi_windows(uint32_t n);
uint32_t confound_smi_windows(void);

#endif
