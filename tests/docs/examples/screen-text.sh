#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The text on one of the committed screenshots (docs/screens/*.png, made
# by make screenshots from the ISO lane's screendumps): the PNG back to
# the PPM it was (tools/dev/ppm2png.py writes indexed rows, filter none), then
# tests/iso/screentext.c reads it cell by cell (build/host/screentext).
#   screen-text.sh FILE.png
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
python3 - "$1" "$t/screen.ppm" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, plte = 8, b'', b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    pos += 12 + n
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        assert ctype == 3 and interlace == 0, 'not an indexed, non-interlaced PNG'
    elif kind == b'PLTE':
        plte = body
    elif kind == b'IDAT':
        idat += body
raw = zlib.decompress(idat)
stride = (w * depth + 7) // 8
out = bytearray()
for y in range(h):
    row = raw[y * (stride + 1):(y + 1) * (stride + 1)]
    assert row[0] == 0, 'a PNG filter other than none'
    for x in range(w):
        bit = x * depth
        i = (row[1 + bit // 8] >> (8 - depth - bit % 8)) & ((1 << depth) - 1)
        out += plte[3 * i:3 * i + 3]
open(sys.argv[2], 'wb').write(b'P6\n%d %d\n255\n' % (w, h) + bytes(out))
PY
"$root/build/host/screentext" "$t/screen.ppm"
