#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The netboot lane's web server: python3's http.server plus byte ranges.

GRUB's http module (grub-core/net/http.c, 2.06) seeks in a file by opening
it again with "Range: bytes=N-" and takes whatever body comes back as the
bytes from N on: it does not check for 206. When it seeks forward past
what has arrived is timing-dependent (grub-core/net/net.c reads through
only what it already holds), so on a busy host the multiboot2 loader asks
for a range. http.server ignores Range and sends the file from byte 0 with
200, and GRUB then loads the wrong bytes. Real servers (nginx, Apache,
lighttpd) answer ranges (RFC 9110 §14); so does this one. Every request is
logged with its Range header.

usage: httpd.py --bind ADDR --port PORT --directory DIR [--no-ranges]
(--no-ranges: http.server's own answer, 200 and the whole file: the fault
this server exists to avoid, kept to show it.)
"""
import argparse
import functools
import http.server
import os
import re
import sys


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """GET and HEAD with one byte range (bytes=A-, bytes=A-B, bytes=-N)."""

    def log_request(self, code="-", size="-"):
        rng = self.headers.get("Range") if self.headers else None
        self.log_message('"%s" %s %s%s', self.requestline, str(code), str(size),
                         f" range={rng}" if rng else "")

    honour_ranges = True

    def send_head(self):
        rng = self.headers.get("Range")
        if rng is None or not self.honour_ranges:
            return super().send_head()
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            return super().send_head()
        try:
            f = open(path, "rb")
        except OSError:
            self.send_error(404, "File not found")
            return None
        size = os.fstat(f.fileno()).st_size
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", rng.strip())
        if not m or (m.group(1) == "" and m.group(2) == ""):
            f.close()
            self.send_error(400, f"unsupported Range '{rng}'")
            return None
        if m.group(1) == "":  # the last N bytes
            start, end = max(0, size - int(m.group(2))), size - 1
        else:
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
        if start >= size or start > end:
            f.close()
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        f.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        self.range_left = end - start + 1
        return f

    def copyfile(self, source, outputfile):
        left = getattr(self, "range_left", None)
        self.range_left = None
        if left is None:
            return super().copyfile(source, outputfile)
        while left > 0:
            buf = source.read(min(left, 64 * 1024))
            if not buf:
                break
            outputfile.write(buf)
            left -= len(buf)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bind", required=True)
    ap.add_argument("--port", type=int, default=80)
    ap.add_argument("--directory", required=True)
    ap.add_argument("--no-ranges", action="store_true")
    a = ap.parse_args()
    RangeHandler.honour_ranges = not a.no_ranges
    if not os.path.isdir(a.directory):
        print(f"httpd.py: no directory '{a.directory}'", file=sys.stderr)
        return 2
    handler = functools.partial(RangeHandler, directory=a.directory)
    with http.server.ThreadingHTTPServer((a.bind, a.port), handler) as srv:
        print(f"Serving HTTP on {a.bind} port {a.port} from {a.directory} (byte ranges)", flush=True)
        srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
