#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Kernel-shaped files around a synthetic blob for the realmode lane:
#   mkimage.py vmlinux BITS MACHINE BLOB RELOCS BANNER OUT
#       a minimal ELF (class BITS, e_machine MACHINE) with the banner at
#       0x100 and the blob page-aligned at 0x2000, its relocations after
#       it, as rmpiggy.S lays them out (BLOB "-": no blob at all)
#   mkimage.py bzimage VMLINUX FORMAT OUT
#       an x86 boot-protocol 2.15 image: boot sector, one setup sector,
#       the payload (VMLINUX compressed by FORMAT's own command, the
#       4-byte size appended as Linux's *_with_size rules do, but gzip)
#   mkimage.py arm64 OUT
#       an arm64 Image header ("ARM\x64" at 0x38) and a page of zeros
import struct
import subprocess
import sys

COMMANDS = {
    "gzip": (["gzip", "-9nc"], False),
    "xz": (["xz", "-c", "--check=crc32"], True),
    "zstd": (["zstd", "-19", "-qc"], True),
    "lz4": (["lz4", "-l", "-9", "-qc"], True),
    "bzip2": (["bzip2", "-9c"], True),
    "lzma": (["lzma", "-9c"], True),
    "lzo": (["lzop", "-9c"], True),
}


def vmlinux(bits, machine, blob, relocs, banner, out):
    ident = b"\x7fELF" + bytes([2 if bits == 64 else 1, 1, 1]) + bytes(9)
    head = ident + struct.pack("<HHI", 2, machine, 1)
    img = bytearray(0x2000)
    img[: len(head)] = head
    b = banner.encode() + b"\n\0"
    img[0x100 : 0x100 + len(b)] = b
    if blob != "-":
        img += open(blob, "rb").read() + open(relocs, "rb").read()
    img += bytes(-len(img) % 4096 + 4096)
    open(out, "wb").write(img)


def bzimage(vm, fmt, out):
    data = open(vm, "rb").read()
    cmd, appended = COMMANDS[fmt]
    payload = subprocess.run(cmd, input=data, capture_output=True, check=True).stdout
    if appended:
        payload += struct.pack("<I", len(data))
    setup = bytearray(1024)
    setup[0x1F1] = 1  # setup_sects: one sector after the boot sector
    setup[0x1FE:0x200] = b"\x55\xaa"
    setup[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", setup, 0x206, 0x020F)
    struct.pack_into("<II", setup, 0x248, 0x100, len(payload))
    img = setup + bytes(0x100) + payload + bytes(64)
    open(out, "wb").write(img)


def arm64(out):
    h = bytearray(4096)
    h[0x38:0x3C] = b"ARM\x64"
    open(out, "wb").write(h)


def main(a):
    if a[0] == "vmlinux":
        vmlinux(int(a[1]), int(a[2]), a[3], a[4], a[5], a[6])
    elif a[0] == "bzimage":
        bzimage(a[1], a[2], a[3])
    elif a[0] == "arm64":
        arm64(a[1])
    else:
        sys.exit("mkimage.py: unknown kind " + a[0])


main(sys.argv[1:])
