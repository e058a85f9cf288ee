#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Append one UEFI variable to an OVMF variable store file, as the
# firmware's variable driver would write it (EDK II MdeModulePkg
# VariableFormat.h: the 60-byte authenticated-variable header, the UCS-2
# name, the data; the next header 4-byte aligned). The Secure Boot lane
# uses it for MokList, the list shim trusts besides db and its own key:
# what MokManager leaves after an enrolment, without its screens.
#
#   setvar.py STORE NAME GUID ATTRIBUTES FILE
import struct
import sys
import uuid

ADDED = 0x3F  # VAR_ADDED state: a live variable


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: setvar.py STORE NAME GUID ATTRIBUTES FILE")
    path, name, guid, attrs, src = sys.argv[1:]
    payload = open(src, "rb").read()
    data = bytearray(open(path, "rb").read())
    store = struct.unpack_from("<H", data, 48)[0]           # FV header length
    if data[store + 0:store + 16] == bytes(16):
        sys.exit("setvar: %s: no variable store header" % path)
    end = store + struct.unpack_from("<I", data, store + 16)[0]
    at = store + 28                                         # first variable
    while struct.unpack_from("<H", data, at)[0] == 0x55AA:
        name_size, data_size = struct.unpack_from("<II", data, at + 36)
        vname = data[at + 60:at + 60 + name_size].decode("utf-16-le").rstrip("\0")
        if data[at + 2] == ADDED and vname == name:
            sys.exit("setvar: %s already has a live %s" % (path, name))
        at = (at + 60 + name_size + data_size + 3) & ~3
    ucs2 = name.encode("utf-16-le") + b"\0\0"
    blob = struct.pack("<HBBIQ16sIII16s", 0x55AA, ADDED, 0, int(attrs, 0), 0, bytes(16), 0,
                       len(ucs2), len(payload), uuid.UUID(guid).bytes_le) + ucs2 + payload
    if at + len(blob) > end:
        sys.exit("setvar: %s: no room for %d bytes" % (path, len(blob)))
    data[at:at + len(blob)] = blob
    open(path, "wb").write(data)


main()
