#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the run-level verdict fixtures of tests/aplog/ref/ (committed;
rerun only to change them): sets of runs whose per-run totals spread the
way runs do, for aplog compare to judge and verdict_ref.py to check.

  reference-wbinvd1.log, reference-wbinvd0.log
      10 runs each on a bare-metal Intel machine, totals around the
      patch's table (Offline 40.40 s both, Online 65.83 s -> 11.14 s)
  aa-a.log, aa-b.log     5 runs each, one build twice: no difference
  small-a.log, small-b.log  3 and 4 runs, a 5% change inside the spread
  tcg-wbinvd1.log, tcg-wbinvd0.log  4 runs each under QEMU TCG
  tcg-wbinvd0-again.log  the WBINVD=0 build once more"""
import os

here = os.path.dirname(os.path.abspath(__file__))


class Lcg:  # deterministic, no numpy needed
    def __init__(self, seed):
        self.x = seed

    def uniform(self):
        self.x = (self.x * 6364136223846793005 + 1442695040888963407) % 2**64
        return (self.x >> 11) / 2**53

    def spread(self, rel):  # a factor 1 +- rel, roughly bell-shaped
        return 1 + rel * (self.uniform() + self.uniform() + self.uniform() - 1.5) / 0.866


ENV_METAL = ("@env vendor=GenuineIntel family=0x6 model=0xad stepping=1 "
             "brand=Intel(R)_Xeon(R)_6985P-C llc_kib=516096 hypervisor=0 invariant_tsc=1 "
             "x2apic_handover=1 x2apic_supported=1 firmware=uefi protocol=mb2 "
             "tramp=0x9e000 acpi_oem=INTEL screen=gop loader=grub")
ENV_TCG = ("@env vendor=AuthenticAMD family=0xf model=0x6b stepping=1 "
           "brand=QEMU_TCG_CPU_version_2.5+ llc_kib=16384 hypervisor=1 invariant_tsc=0 "
           "x2apic_handover=0 x2apic_supported=0 firmware=bios protocol=mb1 "
           "tramp=0x9e000 acpi_oem=BOCHS screen=vga-text loader=qemu")


def run(out, rng, wbinvd, env, aps, cycles, online_ns, offline_ns, run_rel, sample_rel):
    """One run: its own host factor (run_rel) on every sample of it."""
    f_on, f_off = rng.spread(run_rel), rng.spread(run_rel)
    out.append("@boot kernel=apstart version=0.1 wbinvd=%d slow_tramp_ns=0 cpus=%d "
               "x2apic=1 tsc_khz=2000000 tsc_source=cpuid tramp=0x9e000 firmware=uefi "
               "protocol=mb2 cycles=%d arch=x86_64" % (wbinvd, aps + 1, cycles))
    out.append(env)
    for ap in range(1, aps + 1):
        for c in range(1, cycles + 1):
            off = int(offline_ns * f_off * rng.spread(sample_rel))
            on = int(online_ns * f_on * rng.spread(sample_rel))
            out.append("@sample cpu=%d apic=%d cycle=%d op=offline ns=%d ticks=%d" %
                       (ap, 2 * ap, c, off, 2 * off))
            out.append("@sample cpu=%d apic=%d cycle=%d op=online ns=%d ticks=%d" %
                       (ap, 2 * ap, c, on, 2 * on))
    out.append("@end status=pass online=%d failed=0 warnings=0" % (aps + 1))


def write(name, seed, runs, **kw):
    rng, out = Lcg(seed), []
    for _ in range(runs):
        run(out, rng, **kw)
    with open(os.path.join(here, name), "w") as f:
        f.write("\n".join(out) + "\n")


# 479 APs, 1 cycle in the patch; here 3 APs x 2 cycles carry the same totals.
per = 6
write("reference-wbinvd1.log", 11, 10, wbinvd=1, env=ENV_METAL, aps=3, cycles=2,
      online_ns=65.83e9 / per, offline_ns=40.40e9 / per, run_rel=0.02, sample_rel=0.01)
write("reference-wbinvd0.log", 12, 10, wbinvd=0, env=ENV_METAL, aps=3, cycles=2,
      online_ns=11.14e9 / per, offline_ns=40.40e9 / per, run_rel=0.03, sample_rel=0.01)
write("aa-a.log", 21, 5, wbinvd=0, env=ENV_METAL, aps=3, cycles=4,
      online_ns=120e3, offline_ns=30e3, run_rel=0.15, sample_rel=0.05)
write("aa-b.log", 22, 5, wbinvd=0, env=ENV_METAL, aps=3, cycles=4,
      online_ns=120e3, offline_ns=30e3, run_rel=0.15, sample_rel=0.05)
write("small-a.log", 31, 3, wbinvd=1, env=ENV_METAL, aps=2, cycles=3,
      online_ns=2.0e6, offline_ns=0.5e6, run_rel=0.10, sample_rel=0.02)
write("small-b.log", 32, 4, wbinvd=0, env=ENV_METAL, aps=2, cycles=3,
      online_ns=1.9e6, offline_ns=0.5e6, run_rel=0.10, sample_rel=0.02)
write("tcg-wbinvd1.log", 41, 4, wbinvd=1, env=ENV_TCG, aps=3, cycles=5,
      online_ns=140e3, offline_ns=20e3, run_rel=0.30, sample_rel=0.10)
write("tcg-wbinvd0.log", 42, 4, wbinvd=0, env=ENV_TCG, aps=3, cycles=5,
      online_ns=110e3, offline_ns=20e3, run_rel=0.30, sample_rel=0.10)
write("tcg-wbinvd0-again.log", 43, 4, wbinvd=0, env=ENV_TCG, aps=3, cycles=5,
      online_ns=110e3, offline_ns=20e3, run_rel=0.30, sample_rel=0.10)
