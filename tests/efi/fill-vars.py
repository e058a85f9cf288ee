#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Fill an OVMF variable store (a copy of OVMF_VARS_4M.fd, used or not)
# with filler variables until about LEFT bytes of its variable area are
# free: NVRAM as a machine that kept too much finds it. Deleted variables
# are dropped first, as the firmware's reclaim would. The variables are laid out as
# EDK II writes authenticated ones (MdeModulePkg VariableFormat.h: a
# 60-byte header, the UCS-2 name, the data, the next header 4-byte
# aligned; x86 has no pad between name and data).
#
#   fill-vars.py STORE LEFT
import struct
import sys
import uuid

GUID = uuid.UUID("6b9d3c1e-1f0a-4d55-9a7e-5f0c2b7e9a10")   # a test GUID, not apstart's
CHUNK = 32000


def main():
    path, left = sys.argv[1], int(sys.argv[2])
    data = bytearray(open(path, "rb").read())
    fv_len = struct.unpack_from("<H", data, 48)[0]          # FV header length
    store = fv_len                                          # VARIABLE_STORE_HEADER
    size = struct.unpack_from("<I", data, store + 16)[0]    # its Size field
    first = store + 28                                      # first variable
    # Keep the live variables, drop the deleted ones (what the firmware's
    # reclaim does), so that LEFT is what it finds free.
    live, at = bytearray(), first
    while struct.unpack_from("<H", data, at)[0] == 0x55AA:
        name_size, data_size = struct.unpack_from("<II", data, at + 36)
        nxt = (at + 60 + name_size + data_size + 3) & ~3
        if data[at + 2] == 0x3F:
            live += data[at:nxt]
        at = nxt
    end = store + size
    data[first:end] = b"\xff" * (end - first)
    data[first:first + len(live)] = live
    at = first + len(live)
    n = 0
    while True:
        name = ("ApstartTestFill%d" % n).encode("utf-16-le") + b"\0\0"
        room = end - at - 60 - len(name) - left
        if room <= 0:
            break
        body = min(CHUNK, room)
        hdr = struct.pack("<HBBIQ16sIII16s", 0x55AA, 0x3F, 0, 7, 0, bytes(16), 0,
                          len(name), body, GUID.bytes_le)
        data[at:at + 60] = hdr
        data[at + 60:at + 60 + len(name)] = name
        data[at + 60 + len(name):at + 60 + len(name) + body] = bytes([0x5A]) * body
        at = (at + 60 + len(name) + body + 3) & ~3
        n += 1
    open(path, "wb").write(data)
    print("fill-vars: %d variables, %d bytes of the %d-byte store left" % (n, end - at, size))


main()
