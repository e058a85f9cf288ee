#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes the seed corpus in tests/fuzz/corpus/ (committed; rerun only to
# change it): well-formed inputs close to what QEMU, SeaBIOS, OVMF and
# GRUB hand over, so the fuzzer starts deep inside each parser.
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def out(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def fix(b, at, start=0, end=None):
    b = bytearray(b)
    end = len(b) if end is None else end
    b[at] = 0
    b[at] = (-sum(b[start:end])) & 0xFF
    return bytes(b)


def sdt(sig, body, rev=1):
    n = 36 + len(body)
    h = sig + struct.pack("<IBB", n, rev, 0) + b"APTEST" + b"FUZZSEED" + struct.pack("<I4sI", 1, b"FUZZ", 1)
    return fix(h + body, 9)


def madt(entries):
    return sdt(b"APIC", struct.pack("<II", 0xFEE00000, 1) + b"".join(entries), 5)


def lapic(uid, aid, fl=1):
    return struct.pack("<BBBBI", 0, 8, uid, aid, fl)


def x2apic(aid, fl, uid):
    return struct.pack("<BBHIII", 9, 16, 0, aid, fl, uid)


def rsdp(rev, rsdt, xsdt):
    b = b"RSD PTR " + b"\0" + b"BOCHS " + bytes([rev]) + struct.pack("<I", rsdt)
    b = fix(b, 8)
    if rev >= 2:
        b = b + struct.pack("<IQ", 36, xsdt) + b"\0\0\0\0"
        b = fix(b, 32)
    return b


def fadt():
    body = bytearray(276 - 36)
    struct.pack_into("<I", body, 76 - 36, 0x608)
    body[91 - 36] = 4
    struct.pack_into("<I", body, 112 - 36, 1 << 8)
    body[208 - 36] = 1
    struct.pack_into("<Q", body, 212 - 36, 0x608)
    return sdt(b"FACP", bytes(body), 6)


def hpet():
    body = struct.pack("<IBBBBQ", 0x8086A201, 0, 64, 0, 0, 0xFED00000) + b"\0" * 4
    return sdt(b"HPET", body)


def memory(base, tables):
    img = bytearray(0x800)
    for at, blob in tables:
        img[at - base:at - base + len(blob)] = blob
    return bytes(img)


cpus = [lapic(i, i) for i in range(4)] + [lapic(4, 0xFF, 0), x2apic(0x100, 1, 5),
                                          x2apic(0xFFFFFFFF, 0, 6),
                                          struct.pack("<BBBBIQ", 5, 12, 0, 0, 0, 0xFEE00000)[:12],
                                          struct.pack("<BBBBII", 1, 12, 0, 0, 0xFEC00000, 0)]
for base, name in ((0, "xsdt"), (0x400, "scan-ebda")):
    t = [(base + 0x100, madt(cpus)), (base + 0x300, fadt()), (base + 0x500, hpet())]
    ptrs = [base + 0x100, base + 0x300, base + 0x500]
    t.append((base + 0x40, sdt(b"XSDT", b"".join(struct.pack("<Q", p) for p in ptrs))))
    t.append((base + 0x80, sdt(b"RSDT", b"".join(struct.pack("<I", p) for p in ptrs))))
    t.append((base, rsdp(2, base + 0x80, base + 0x40)))
    out("acpi", name, memory(base, t))
t = [(0x100, madt(cpus[:2])), (0x80, sdt(b"RSDT", struct.pack("<I", 0x100))), (0, rsdp(0, 0x80, 0))]
out("acpi", "rsdt-v1", memory(0, t))


def tag(typ, payload):
    b = struct.pack("<II", typ, 8 + len(payload)) + payload
    return b + b"\0" * (-len(b) % 8)


mmap = struct.pack("<II", 24, 0) + b"".join(struct.pack("<QQII", b, l, ty, 0) for b, l, ty in (
    (0, 0x9FC00, 1), (0x9FC00, 0x400, 2), (0xF0000, 0x10000, 2), (0x100000, 0x1FF00000, 1)))
fb = struct.pack("<QIIIBBH", 0xFD000000, 4096, 1024, 768, 32, 1, 0) + bytes([16, 8, 8, 8, 0, 8]) + b"\0\0"
efimap = struct.pack("<II", 48, 1) + b"".join(struct.pack("<IIQQQQQ", ty, 0, b, 0, pages, 0xF, 0) for ty, b, pages in (
    (7, 0, 0x9F), (3, 0x100000, 0x700), (9, 0x800000, 16)))
tags = (tag(1, b"cycles=2 console=ttyS1,57600 x2apic=auto\0") + tag(2, b"GRUB 2.06\0") +
        tag(4, struct.pack("<II", 639, 523264)) + tag(6, mmap) + tag(8, fb) +
        tag(14, rsdp(0, 0xE0000, 0)) + tag(0, b""))
out("mb2", "bios", struct.pack("<II", 8 + len(tags), 0) + tags)
tags = (tag(1, b"\0") + tag(12, struct.pack("<Q", 0x7F9EE018)) + tag(17, efimap) +
        tag(15, rsdp(2, 0x7FB7E000, 0x7FB7E0E8)) + tag(0, b""))
out("mb2", "uefi", struct.pack("<II", 8 + len(tags), 0) + tags)

info = bytearray(0x1000)  # whole pages: strings are mapped page by page
struct.pack_into("<IIII", info, 0, 1 | 1 << 2 | 1 << 6 | 1 << 9 | 1 << 12, 639, 523264, 0)
struct.pack_into("<I", info, 16, 0x200)
struct.pack_into("<II", info, 44, 3 * 24, 0x300)
struct.pack_into("<I", info, 64, 0x280)
struct.pack_into("<QIIIBB", info, 88, 0xB8000, 160, 80, 25, 16, 2)
for at, text in ((0x200, b"apstart.elf cycles=3 maxcpus=4\0"), (0x280, b"qemu\0")):
    info[at:at + len(text)] = text
for i, (b, l, ty) in enumerate(((0, 0x9FC00, 1), (0x9FC00, 0x400, 2), (0x100000, 0x1FF00000, 1))):
    struct.pack_into("<IQQI", info, 0x300 + 24 * i, 20, b, l, ty)
out("mb1", "qemu", bytes(info))

for i, s in enumerate((b"cycles=10 maxcpus=4 x2apic=off init_delay_us=0 sipi_delay_us=10",
                       b"/boot/apstart.elf sipi_count=1 ap_timeout_ms=200 exit=qemu bsp_wait=hlt icount=on",
                       b"nosmp nox2apic cpu_init_udelay=10000 console=ttyS1,115200n8 console=tty0",
                       b"selftest=double-start maxcpus=0 cycles=0x10 frobnicate=1 cycles=",
                       b"acpi_rsdp=0x3f77d014 firmware=uefi pstore=0x30000000,512K exit=reboot",
                       b"acpi_rsdp=f5a40 firmware=bios pstore=768M,4k pstore=0777,4K pstore=0x30000000,500K")):
    out("cmdline", "seed%d" % i, s)

# plan.txt as apstart.efi writes it (wings/efi/plan_text.c: plan_format),
# a stopped one with run lines, and issue 38's crafted plan (k=100, order=
# of 200 A's: refused; kept as the regression seed).
PLAN_HEAD = (b"# apstart A/B session, written by apstart.efi: the plan, then a line\n"
             b"session=0001\nruns_per_variant=2\norder=ABBA\nseed=0x3e8\ncmdline=cycles=1\n"
             b"created=2026-12-01T09:40:05\nstate=running\n")
out("plan", "written", PLAN_HEAD)
out("plan", "stopped", PLAN_HEAD +
    b"run=001 variant=A wbinvd=1 started clock=1796123456 at=2026-12-01T09:40:05\n"
    b"run=001 variant=A filed run-001-A-wbinvd1.log bytes=4060 parts=1 status=pass online=4 failed=0\n"
    b"run=002 variant=B wbinvd=0 started clock=1796123556 at=2026-12-01T09:41:45\n"
    b"run=002 variant=B interrupted: no results came back (power cut, hang or reset)\n"
    b"state=stopped next=003 (a key during the countdown) at=2026-12-01T09:42:00\n"
    b"state=running (resumed) at=2026-12-01T09:50:00\n")
out("plan", "crafted-k100-200A",
    b"session=0001\nruns_per_variant=100\norder=" + b"A" * 200 + b"\nseed=0x1\ncmdline=cycles=1\nstate=running\n")
out("plan", "wrapping-k", b"runs_per_variant=18446744073709551617\norder=AB\nstate=running\n")

# The table's input (tests/fuzz/fuzz_table.c): k, runs, the order's
# letters (bit 0 B, bit 2 no file, bit 1 interrupted), the run files each
# ended by NUL (the last one repeats).
RUN = (b"@boot cpus=4 firmware=uefi wbinvd=1\n@env brand=QEMU_TCG_CPU acpi_oem=BOCHS\n"
       b"@summary op=offline cpus=3 total_ns=40000000 settled_total_ns=41000000\n"
       b"@summary op=online cpus=3 total_ns=60000000\n@end status=pass online=4 failed=0\n")
FAILED = b"@boot cpus=4 firmware=uefi wbinvd=0\n@end status=fail online=3 failed=1\n"
out("table", "session-k2", bytes([2, 4, 0, 1, 1, 0]) + RUN + b"\0" + RUN + b"\0" + FAILED + b"\0")
out("table", "interrupted", bytes([2, 4, 0, 1, 7, 4]) + RUN + b"\0" + RUN + b"\0")
out("table", "crafted-k100-200A", bytes([100, 200]) + bytes(200) + RUN + b"\0")
out("table", "huge-totals", bytes([1, 2, 0, 1]) +
    b"@summary op=offline total_ns=18446744073709551615\n@summary op=online total_ns=99999999999999999999\n"
    b"@end status=pass\n\0" + RUN + b"\0")

# aplog's reader: whole runs as captured, and the bad logs aplog's own
# lane keeps (tests/aplog/bad/: a wrapped pstore zone among them).
aplog_dir = os.path.join(here, "..", "aplog")
for name in ("wbinvd1.log", "phases.log", "bad/pstore-wrapped.log", "bad/overflow.log",
             "bad/sample-after-end.log", "bad/double-boot.log"):
    with open(os.path.join(aplog_dir, name), "rb") as f:
        out("aplog", name.replace("/", "-"), f.read())
