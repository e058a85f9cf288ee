/* SPDX-License-Identifier: MIT */
/* plan.txt: key=value lines, '#' comments. Written at the start:
 *
 *   session=0001
 *   runs_per_variant=10
 *   order=ABBABAAB...          one letter per run
 *   seed=0x...                 of the order (randomised pairs)
 *   cmdline=cycles=1           every run's kernel options
 *   state=running
 *
 * then one line per step, e.g.
 *
 *   run=003 variant=B wbinvd=0 started clock=1796123456 at=2026-12-01T09:40:05
 *   run=003 variant=B filed run-003-B-wbinvd0.log bytes=4060 status=pass
 *   run=004 variant=A interrupted: no results came back (power cut, hang or reset)
 *   state=stopped next=005 (a key during the countdown)
 *   state=running (resumed)
 *   state=done
 */
#include "wings/efi/plan_text.h"

#include "lib/format.h"

static uint64_t next_random(uint64_t *s)
{
	/* xorshift64* (Vigna 2016): plenty for a coin per pair. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

/* splitmix64's finaliser (Steele, Lea, Flood 2014): every seed, even 1,
 * gives a well-mixed state. */
static uint64_t mix(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return z ? z : 1;
}

void plan_make_order(struct plan *p)
{
	uint64_t s = mix(p->seed);
	p->runs = 2 * p->k;
	for (size_t i = 0; i < p->k; i++) {
		bool a_first = (next_random(&s) >> 63) != 0;
		p->order[2 * i] = a_first ? 'A' : 'B';
		p->order[2 * i + 1] = a_first ? 'B' : 'A';
	}
	p->order[p->runs] = 0;
}

unsigned plan_run_wbinvd(const struct plan *p, size_t run)
{
	return p->order[run - 1] == 'A' ? PLAN_WBINVD_A : PLAN_WBINVD_B;
}

int plan_format(const struct plan *p, const char *created, char *buf, size_t len)
{
	char test_line[32] = "";
#if APSTART_EFI_TEST_HOOKS
	if (p->test_fail_run) /* this run gets selftest=ap-hang */
		fmt_snprintf(test_line, sizeof test_line, "test_fail_run=%03u\n",
			     (unsigned)p->test_fail_run);
#endif
	int n = fmt_snprintf(buf, len,
			     "# apstart A/B session, written by apstart.efi: the plan, then a line\n"
			     "# per step. A = WBINVD=1 (Linux before the patch), B = WBINVD=0\n"
			     "# (patched). Order: randomised pairs (each pair AB or BA by a coin\n"
			     "# from seed), so neither variant always runs first. The last state=\n"
			     "# line is where the session stands.\n"
			     "session=%04u\nruns_per_variant=%u\norder=%s\nseed=0x%llx\n"
			     "cmdline=%s\ncreated=%s\n%sstate=running\n",
			     (unsigned)p->number, (unsigned)p->k, p->order,
			     (unsigned long long)p->seed, p->cmdline, created, test_line);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

static bool starts_with(const uint8_t *s, size_t len, const char *prefix)
{
	size_t i = 0;
	for (; prefix[i]; i++)
		if (i >= len || s[i] != (uint8_t)prefix[i])
			return false;
	return true;
}

static size_t text_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

/* A decimal number of at most max, the whole of s (len bytes). */
static bool decimal(const uint8_t *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* 0x and 1..16 hex digits, the whole of s. */
static bool hex(const uint8_t *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	if (len < 3 || len > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	for (size_t i = 2; i < len; i++) {
		uint8_t c = s[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
			     c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d == 16)
			return false;
		v = v * 16 + d;
	}
	*out = v;
	return true;
}

/* The decimal value of key=VALUE within a line ("clock=" inside a run
 * line), up to the next blank. */
static bool field(const uint8_t *s, size_t len, const char *key, uint64_t *out)
{
	size_t kl = text_len(key);
	for (size_t i = 0; i + kl <= len; i++) {
		if ((i == 0 || s[i - 1] == ' ') && starts_with(s + i, len - i, key)) {
			size_t at = i + kl, n = 0;
			while (at + n < len && s[at + n] != ' ')
				n++;
			return decimal(s + at, n, UINT64_MAX, out);
		}
	}
	return false;
}

bool plan_parse(const uint8_t *text, size_t size, struct plan *p, char *why, size_t why_len)
{
	size_t number = p->number;
	*p = (struct plan){ .number = number };
	bool have_state = false, have_k = false, k_ok = false, seed_ok = true;
	size_t order_len = 0;
	uint64_t v;
	why[0] = 0;
	for (size_t pos = 0; pos < size;) {
		const uint8_t *l = text + pos;
		size_t len = 0;
		while (pos + len < size && l[len] != '\n')
			len++;
		pos += len + 1;
		while (len && (l[len - 1] == '\r' || l[len - 1] == ' '))
			len--;
		if (starts_with(l, len, "runs_per_variant=")) {
			have_k = true;
			k_ok = decimal(l + 17, len - 17, PLAN_K_MAX, &v) && v >= 1;
			p->k = k_ok ? (size_t)v : 0;
		} else if (starts_with(l, len, "order=")) {
			/* Its true length is kept: a longer one is refused below,
			 * never cut to fit. */
			order_len = len - 6;
			size_t n = order_len < PLAN_RUNS_MAX ? order_len : PLAN_RUNS_MAX;
			for (size_t i = 0; i < n; i++)
				p->order[i] = (char)l[6 + i];
			p->order[n] = 0;
		} else if (starts_with(l, len, "seed=")) {
			seed_ok = hex(l + 5, len - 5, &p->seed);
		} else if (starts_with(l, len, "cmdline=")) {
			/* A control byte becomes a blank, as in loader.cfg
			 * (config.c). */
			size_t n = len - 8 < PLAN_CMDLINE_MAX ? len - 8 : PLAN_CMDLINE_MAX;
			for (size_t i = 0; i < n; i++)
				p->cmdline[i] = l[8 + i] >= 0x20 && l[8 + i] < 0x7F ? (char)l[8 + i] : ' ';
			p->cmdline[n] = 0;
#if APSTART_EFI_TEST_HOOKS
		} else if (starts_with(l, len, "test_fail_run=")) {
			/* Tests only: a run number, or none. */
			p->test_fail_run = decimal(l + 14, len - 14, PLAN_RUNS_MAX, &v) ? (size_t)v : 0;
#endif
		} else if (starts_with(l, len, "state=")) {
			have_state = true;
			p->state = starts_with(l, len, "state=running") ? PLAN_RUNNING :
				   starts_with(l, len, "state=stopped") ? PLAN_STOPPED : PLAN_DONE;
		} else if (starts_with(l, len, "run=") && field(l, len, "clock=", &v)) {
			if (!p->started++)
				p->first_start_s = v;
			p->last_start_s = v;
		}
	}
	p->runs = 2 * p->k;
	size_t a = 0, b = 0, other = 0;
	for (size_t i = 0; i < order_len && i < PLAN_RUNS_MAX; i++) {
		a += p->order[i] == 'A';
		b += p->order[i] == 'B';
		other += p->order[i] != 'A' && p->order[i] != 'B';
	}
	if (!have_state)
		fmt_snprintf(why, why_len, "not a plan: no state= line");
	else if (!have_k || !k_ok)
		fmt_snprintf(why, why_len, "not a plan: runs_per_variant= is not a number 1..%u",
			     PLAN_K_MAX);
	else if (!seed_ok)
		fmt_snprintf(why, why_len, "not a plan: seed= is not 0x and 1..16 hex digits");
	else if (order_len != p->runs)
		fmt_snprintf(why, why_len, "not a plan: order= has %llu runs, runs_per_variant=%u "
			     "needs %u", (unsigned long long)order_len, (unsigned)p->k,
			     (unsigned)p->runs);
	else if (other)
		fmt_snprintf(why, why_len, "not a plan: order= has a letter other than A or B");
	else if (a != p->k || b != p->k)
		fmt_snprintf(why, why_len, "not a plan: order= has %u runs of A and %u of B, not "
			     "%u each", (unsigned)a, (unsigned)b, (unsigned)p->k);
	return why[0] == 0;
}
