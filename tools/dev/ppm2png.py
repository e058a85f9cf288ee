#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ppm2png.py IN.ppm OUT.png: a screendump (binary PPM, 8-bit) as a small
PNG, for the README's screenshots. Screens have few colours: the PNG is
indexed (1, 2, 4 or 8 bits a pixel), compressed with zlib; standard
library only. More than 256 colours is refused."""
import struct
import sys
import zlib


def read_ppm(path):
    with open(path, 'rb') as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b'#':
            pos = data.index(b'\n', pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    magic, w, h, maxval = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    if magic != b'P6' or maxval != 255:
        sys.exit(f'ppm2png: {path}: not an 8-bit binary PPM')
    pixels = data[pos + 1:]
    if len(pixels) != w * h * 3:
        sys.exit(f'ppm2png: {path}: {len(pixels)} bytes of pixels, want {w * h * 3}')
    return w, h, pixels


def chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: ppm2png.py IN.ppm OUT.png')
    w, h, px = read_ppm(sys.argv[1])
    colours = {}
    index = bytearray(w * h)
    for i in range(w * h):
        c = px[3 * i:3 * i + 3]
        if c not in colours:
            if len(colours) == 256:
                sys.exit(f'ppm2png: {sys.argv[1]}: more than 256 colours')
            colours[c] = len(colours)
        index[i] = colours[c]
    depth = next(d for d in (1, 2, 4, 8) if len(colours) <= 1 << d)
    per_byte = 8 // depth
    rows = bytearray()
    for y in range(h):
        rows.append(0)  # filter: none
        line = index[y * w:(y + 1) * w]
        for x in range(0, w, per_byte):
            b = 0
            for k, v in enumerate(line[x:x + per_byte]):
                b |= v << (8 - depth * (k + 1))
            rows.append(b)
    palette = b''.join(sorted(colours, key=colours.get))
    png = (b'\x89PNG\r\n\x1a\n' +
           chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, 3, 0, 0, 0)) +
           chunk(b'PLTE', palette) +
           chunk(b'IDAT', zlib.compress(bytes(rows), 9)) +
           chunk(b'IEND', b''))
    with open(sys.argv[2], 'wb') as f:
        f.write(png)


main()
