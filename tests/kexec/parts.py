#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Cuts the kexec lane's serial capture (tests/kexec/run.sh) into what the
# lane compares, byte for byte:
#   OUT/serial-K.bin  run K's part of the capture: from the CR LF before
#                     apstart's banner ("\r\napstart ", the first bytes the
#                     kernel sends) through the CR LF that ends its first
#                     "reset: warm" line (the last line before the reset;
#                     what follows is the firmware's and Linux's)
#   OUT/zone-K.bin    what the next boot's Linux read back as
#                     /sys/fs/pstore/console-ramoops-0 (base64 between the
#                     init's "pstore-begin K" and "pstore-end K" lines)
# Prints "runs=N zones=M".
#   parts.py CAPTURE OUTDIR
import base64
import re
import sys

cap = open(sys.argv[1], "rb").read()
out = sys.argv[2]
runs = 0
pos = 0
while True:
    start = cap.find(b"\r\napstart ", pos)
    if start < 0:
        break
    m = re.compile(rb"\r\nreset: warm[^\r\n]*\r\n").search(cap, start)
    if not m:
        break
    runs += 1
    open(f"{out}/serial-{runs}.bin", "wb").write(cap[start:m.end()])
    pos = m.end()
zones = 0
for m in re.finditer(rb"kexec-vm: pstore-begin (\d+)\r?\n(.*?)kexec-vm: pstore-end \1", cap, re.S):
    text = m.group(2).replace(b"\r", b"").replace(b"\n", b"")
    open(f"{out}/zone-{int(m.group(1))}.bin", "wb").write(base64.b64decode(text))
    zones += 1
print(f"runs={runs} zones={zones}")
