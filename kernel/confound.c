/* SPDX-License-Identifier: MIT */
#include "kernel/confound.h"

#include "kernel/console.h"
#include "kernel/msr_safe.h"
#include "kernel/tsc.h"
#include "kernel/x86.h"
#include "lib/format.h"

static struct confound_caps caps;
static uint32_t smi_windows;
static uint32_t khz_min = UINT32_MAX, khz_max;

void confound_note_khz(uint32_t khz)
{
	if (!khz)
		return;
	if (khz < khz_min)
		khz_min = khz;
	if (khz > khz_max)
		khz_max = khz;
}

void confound_report(void)
{
	bool any = khz_max != 0;
	cprintf(CON_SERIAL, "@confound smi_counter=%d aperf=%d smi_windows=%u khz_min=%u khz_max=%u\n",
		caps.smi, caps.freq, smi_windows, any ? khz_min : 0, khz_max);
	if (smi_windows)
		kprintf("confounders: %u timed window%s hit by an SMI (smi= in their records; "
			"left out of aplog's figures)\n", smi_windows, smi_windows == 1 ? "" : "s");
	if (any && (uint64_t)khz_max * 100 > (uint64_t)khz_min * 105)
		kprintf("confounders: the effective clock moved between windows: %u..%u MHz "
			"(APERF/MPERF; turbo or thermal limits)\n", khz_min / 1000, khz_max / 1000);
}

void confound_count_smi_windows(uint32_t n)
{
	smi_windows += n;
}

uint32_t confound_smi_windows(void)
{
	return smi_windows;
}

void confound_init(void)
{
	uint64_t v;

	caps.smi = msr_read_safe(MSR_SMI_COUNT, &v);
	caps.freq = cpuid(0, 0).eax >= 6 && (cpuid(6, 0).ecx & 1) &&
		    msr_read_safe(MSR_IA32_APERF, &v) && msr_read_safe(MSR_IA32_MPERF, &v);
}

const struct confound_caps *confound_caps(void)
{
	return &caps;
}

void confound_read(struct confound_snap *s)
{
	s->smi = s->aperf = s->mperf = 0;
	if (caps.smi)
		msr_read_safe(MSR_SMI_COUNT, &s->smi);
	if (caps.freq) {
		msr_read_safe(MSR_IA32_MPERF, &s->mperf);
		msr_read_safe(MSR_IA32_APERF, &s->aperf);
	}
	s->tsc = rdtsc();
}

uint32_t confound_smis(const struct confound_snap *a, const struct confound_snap *b)
{
	return caps.smi ? (uint32_t)b->smi - (uint32_t)a->smi : 0;
}

uint64_t confound_khz(const struct confound_snap *a, const struct confound_snap *b)
{
	uint64_t dm = b->mperf - a->mperf, da = b->aperf - a->aperf;
	if (!caps.freq || !dm)
		return 0;
	/* MPERF counts at the TSC's rate on CPUs with an invariant TSC;
	 * scale the TSC's kHz by the ratio (no 128-bit product needed:
	 * kHz < 2^23 and the ratio is held to 1/1024). */
	uint64_t ratio = dm >= 1024 ? da / (dm >> 10) : (da << 10) / dm;
	return tsc_info()->khz * ratio >> 10;
}

void confound_open(struct confound_window *w)
{
	confound_read(&w->open);
}

void confound_close(struct confound_window *w)
{
	struct confound_snap b;
	confound_read(&b);
	w->close_tsc = b.tsc;
	w->smis = confound_smis(&w->open, &b);
	w->khz = (uint32_t)confound_khz(&w->open, &b);
	confound_note_khz(w->khz);
	smi_windows += w->smis != 0;
}

void confound_fields(char *buf, uint32_t size, const struct confound_window *w)
{
	if (caps.freq)
		fmt_snprintf(buf, size, " smi=%u khz=%u", w->smis, w->khz);
	else
		fmt_snprintf(buf, size, " smi=%u", w->smis);
}
