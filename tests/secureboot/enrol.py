#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# make secureboot-enrol (long, not in make test): apstart's key enrolled
# and removed again through MokManager's own screens, under OVMF with
# Microsoft's keys and Secure Boot on, keys typed on QEMU's USB keyboard:
#   1 the stick's message, its menu entry -> MokManager, "Enroll key from
#     disk", \apstart\keys\apstart-mok.der, Yes, Reboot; then the stick
#     boots to @end status=pass and MokList holds the certificate
#   2 what `mokutil --import apstart-mok.der` leaves (MokNew and MokAuth,
#     the password's SHA-256 form): shim starts MokManager by itself,
#     "Enroll MOK", Yes, the password, Reboot; then pass
#   3 what `mokutil --delete apstart-mok.der` leaves (MokDel, MokDelAuth):
#     "Delete MOK", Yes, the password, Reboot; then the stick's message
#     that the key is not enrolled
# Screens: build/test-logs/sbenrol-*.ppm (docs/screens/secureboot-*.png
# come from them). Protocol lines as every lane (tests/protocol.sh).
#
#   enrol.py TEST-ISO APSTART-EFI
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

OVMF = "/usr/share/OVMF"
SHIM_GUID = "605dab50-e046-4300-abb6-3dd810dd8b23"
PASSWORD = "apstart1"
OUT = "build/test-logs"
BOOT_TIMEOUT = int(os.environ.get("SB_BOOT_TIMEOUT", "300"))
counts = {"passed": 0, "failed": 0}
BOOTS = []  # every QEMU started, stopped at the end whatever happened


def check(name, ok, why=""):
    if ok:
        counts["passed"] += 1
        print("ok   " + name)
    else:
        counts["failed"] += 1
        print("FAIL %s: %s" % (name, why or "failed"))
    sys.stdout.flush()
    return ok


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True).stdout


class Boot:
    """One QEMU run: q35 with SMM, Secure Boot pflash, the stick on xHCI
    with a USB keyboard beside it, serial to a file, the monitor on a
    socket for keys and screendumps."""

    def __init__(self, name, vars_file, image):
        self.name, self.log = name, "%s/sbenrol-%s.log" % (OUT, name)
        self.mon = "%s/sbenrol-%s.mon" % (WORK, name)
        open(self.log, "w").close()
        self.q = subprocess.Popen([
            "timeout", str(BOOT_TIMEOUT), "qemu-system-x86_64", "-display", "none", "-no-reboot",
            "-m", "512", "-serial", "file:" + self.log, "-monitor", "unix:%s,server,nowait" % self.mon,
            "-device", "isa-debug-exit,iobase=0xf4,iosize=4",
            "-machine", "q35,smm=on", "-global", "driver=cfi.pflash01,property=secure,value=on",
            "-accel", "tcg", "-cpu", "max", "-smp", "1", "-net", "none",
            "-drive", "if=pflash,format=raw,unit=0,readonly=on,file=%s/OVMF_CODE_4M.ms.fd" % OVMF,
            "-drive", "if=pflash,format=raw,unit=1,file=" + vars_file,
            "-drive", "if=none,id=stick,format=raw,file=" + image,
            "-device", "qemu-xhci,id=xhci", "-device", "usb-storage,bus=xhci.0,drive=stick,bootindex=0",
            "-device", "usb-kbd,bus=xhci.0"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        BOOTS.append(self.q)
        self.sock, self.seen = None, 0
        for _ in range(50):
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(self.mon)
                break
            except OSError:
                time.sleep(0.2)
        self.sock.settimeout(0.5)

    def text(self):
        raw = open(self.log, "rb").read().decode("latin-1").replace("\r", "")
        return re.sub(r"\x1b\[[0-9;=?]*[A-Za-z]", "", raw)

    def wait(self, regex):
        """Until REGEX shows on serial after what was waited for last."""
        t0 = time.time()
        while time.time() - t0 < BOOT_TIMEOUT:
            m = re.search(regex, self.text()[self.seen:])
            if m:
                self.seen += m.end()
                return True
            if self.q.poll() is not None:
                break
            time.sleep(0.5)
        return False

    def monitor(self, command):
        self.sock.sendall((command + "\n").encode())
        time.sleep(0.3)
        try:
            self.sock.recv(65536)
        except OSError:
            pass

    def keys(self, *names):
        for k in names:
            self.monitor("sendkey " + k)
            time.sleep(0.6)

    def shot(self, what):
        self.monitor("screendump %s/sbenrol-%s-%s.ppm" % (OUT, self.name, what))

    def stop(self):
        if self.q.poll() is None:
            self.q.terminate()
        return self.end()

    def end(self):
        try:
            self.q.wait(BOOT_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.q.kill()
        return self.q.returncode


def step(b, name, regex, *keys, shot=None, settle=2.0):
    """Waits for a MokManager screen, then presses KEYS."""
    if not b.wait(regex):
        return check("%s: %s" % (b.name, name), False, "'%s' never came (sbenrol-%s.log)" % (regex, b.name))
    time.sleep(settle)
    if shot:
        b.shot(shot)
        time.sleep(0.5)
    b.keys(*keys)
    return True


def var(path, name):
    """The data of a live variable in an OVMF vars file, or None."""
    data = open(path, "rb").read()
    store = int.from_bytes(data[48:50], "little")
    at = store + 28
    while data[at:at + 2] == b"\xaa\x55":
        ns, ds = int.from_bytes(data[at + 36:at + 40], "little"), int.from_bytes(data[at + 40:at + 44], "little")
        vname = data[at + 60:at + 60 + ns].decode("utf-16-le").rstrip("\0")
        if data[at + 2] == 0x3F and vname == name:
            return data[at + 60 + ns:at + 60 + ns + ds]
        at = (at + 60 + ns + ds + 3) & ~3
    return None


def setvar(vars_file, name, data):
    path = os.path.join(WORK, name + ".bin")
    open(path, "wb").write(data)
    run("tests/secureboot/setvar.py", vars_file, name, SHIM_GUID, "7", path)


def fat_order(image, folder):
    """Entries of a FAT folder in directory order, as MokManager lists
    them (mdir -b, which leaves out . and ..)."""
    off = run("tools/image/esp-offset.sh", image).split()[0].decode()
    out = run("mdir", "-b", "-i", "%s@@%s" % (image, off), folder).decode()
    return [os.path.basename(line.rstrip("/")) for line in out.splitlines() if line]


def request(name, verb, var_name, auth_name, vars_file, image, esl):
    """What mokutil --import (verb Enroll) or --delete (Delete) leaves in
    NVRAM, then MokManager, which shim starts by itself, through to
    Reboot."""
    setvar(vars_file, var_name, esl)
    setvar(vars_file, auth_name, hashlib.sha256(esl + PASSWORD.encode("utf-16-le")).digest())
    b = Boot(name, vars_file, image)
    ok = (step(b, "MokManager's countdown", r"Press any key to perform MOK management", "spc", settle=1)
          and step(b, "MokManager's menu", verb + r" MOK", "down", "ret", shot="mokmenu")
          and step(b, "[%s MOK]" % verb, r"\[%s MOK\]" % verb, "down", "ret")
          and step(b, "%s the key(s)?" % verb, verb + r" the key\(s\)\?", "down", "ret", shot="confirm")
          and step(b, "Password", r"Password", *(list(PASSWORD) + ["ret"]), shot="password")
          and step(b, "Reboot", r"Reboot", "ret"))
    b.end() if ok else b.stop()
    return ok and check("%s: mokutil's request (%s), MokManager, the password, Reboot" % (name, var_name), True)


def passes(name, vars_file, image):
    b = Boot(name, vars_file, image)
    ok = b.wait(r"@end status=pass ")
    b.stop()
    return check("%s: the signed stick boots under Secure Boot to @end status=pass" % name, ok,
                 "no '@end status=pass' (sbenrol-%s.log)" % name)


def main():
    global WORK
    # make's timeout: stop the QEMUs on the way out (the finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(2))
    test_iso, efi = sys.argv[1:3]
    os.makedirs(OUT, exist_ok=True)
    WORK = tempfile.mkdtemp(prefix="sbenrol-tmp.", dir=OUT)
    try:
        os.environ["MTOOLS_SKIP_CHECK"] = "1"
        keys = os.path.join(WORK, "keys")
        run("tools/image/keys.sh", keys)
        crt = os.path.join(keys, "apstart-mok.crt")
        image = os.path.join(WORK, "stick.img")
        shutil.copy(test_iso, image)
        run("tools/image/sign.sh", "--key", os.path.join(keys, "apstart-mok.key"), "--cert", crt,
            "--efi", efi, "--out", os.path.join(WORK, "sign"), image)
        cfg = os.path.join(WORK, "loader.cfg")
        open(cfg, "w").write("timeout=0\nresults_wait=0\ncmdline=cycles=1 save=off\n")
        run("tools/image/esp-populate.sh", "--config", cfg, image)
        esl = run("cert-to-efi-sig-list", "-g", SHIM_GUID, crt, "/dev/stdout")

        # 1: from the stick's menu, "Enroll key from disk".
        vars1 = os.path.join(WORK, "vars1.fd")
        shutil.copy("%s/OVMF_VARS_4M.ms.fd" % OVMF, vars1)
        b = Boot("1-disk", vars1, image)
        root, apstart = fat_order(image, "::/"), fat_order(image, "::/apstart")
        ok = (step(b, "the stick's message", r"The menu follows in 60 s", "esc", shot="gate", settle=1)
              and step(b, "its menu", r"Power off", "ret", shot="menu")
              and step(b, "MokManager's countdown", r"Press any key to perform MOK management", "spc", shot="countdown", settle=1)
              and step(b, "MokManager's menu", r"Enroll key from disk", "down", "ret", shot="mokmenu")
              and step(b, "Select Key: the volumes", r"Select Key", "ret", shot="volumes")
              and step(b, "Select Key: the root folder", r"apstart/", *(["down"] * root.index("apstart") + ["ret"]))
              and step(b, "Select Key: \\apstart", r"keys/", *(["down"] * (1 + apstart.index("keys")) + ["ret"]), shot="folder")
              and step(b, "Select Key: \\apstart\\keys", r"apstart-mok\.der", "down", "ret")
              and step(b, "[Enroll MOK]", r"\[Enroll MOK\]", "down", "ret", shot="enrollmok")
              and step(b, "Enroll the key(s)?", r"Enroll the key\(s\)\?", "down", "ret", shot="confirm")
              and step(b, "Reboot", r"Reboot", "ret", shot="reboot"))
        b.end() if ok else b.stop()
        if ok:
            check("1-disk: MokManager's screens, from the stick's menu entry to Reboot", True)
            check("1-disk: MokList holds the certificate (cert-to-efi-sig-list's bytes)", var(vars1, "MokList") == esl,
                  "MokList is %r" % (var(vars1, "MokList") or b"")[:40])
            passes("1-after", vars1, image)

        # 2: what mokutil --import leaves; shim starts MokManager itself.
        vars2 = os.path.join(WORK, "vars2.fd")
        shutil.copy("%s/OVMF_VARS_4M.ms.fd" % OVMF, vars2)
        if request("2-import", "Enroll", "MokNew", "MokAuth", vars2, image, esl):
            check("2-import: MokList holds the certificate, MokNew is gone",
                  var(vars2, "MokList") == esl and var(vars2, "MokNew") is None)
            passes("2-after", vars2, image)
            # 3: what mokutil --delete leaves.
            if request("3-delete", "Delete", "MokDel", "MokDelAuth", vars2, image, esl):
                check("3-delete: MokList is gone", var(vars2, "MokList") is None)
                b = Boot("3-after", vars2, image)
                said = b.wait(r"Secure Boot is on and apstart's key is not enrolled")
                b.stop()
                check("3-after: the stick says again that the key is not enrolled", said)
    finally:
        for q in BOOTS:
            if q.poll() is None:
                q.terminate()
                q.wait()
        shutil.rmtree(WORK, ignore_errors=True)
    print("secureboot-enrol: %d passed, %d failed, 0 skipped" % (counts["passed"], counts["failed"]))
    sys.exit(1 if counts["failed"] else 0)


main()
