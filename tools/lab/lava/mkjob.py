#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Fill in an apstart LAVA job template (tools/lab/lava/*.yaml).

  mkjob.py --template qemu|x86-ipxe|x86-grub|FILE --kernel-url URL
           [--args "cycles=10 ..."] [--smp N] [--variant TEXT]
           [--module-url URL] [--out FILE]

Replaces @KERNEL_URL@, @ARGS@, @SMP@ and @VARIANT@ in every string of the
template and puts the monitors of tools/lab/lava/monitors.yaml where it says
'@MONITORS@'. Kernel arguments may use only [A-Za-z0-9_.,:=+/@%-] (as
tools/image/mkgrubcfg.sh): nothing in them means anything to a shell, GRUB or
iPXE. --module-url: the APs start in Linux's own trampoline, the LRM file at
URL (aprealmode's, docs/linux-trampoline.md): trampoline=linux is added to
the arguments and the file deployed beside the kernel as its Multiboot
module (qemu: -initrd; x86-grub: a ramdisk LAVA leaves as it is, module2;
x86-ipxe: the same, loaded with initrd, which iPXE hands over as a module).
Writes the job on stdout or to FILE; exit status 2 on bad input."""
import argparse
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ARG_RE = re.compile(r'^[A-Za-z0-9_.,:=+/@%-]+$')


def die(msg):
    print('mkjob: ' + msg, file=sys.stderr)
    sys.exit(2)


def fill(node, values, monitors):
    if isinstance(node, dict):
        return {k: fill(v, values, monitors) for k, v in node.items()}
    if isinstance(node, list):
        return [fill(v, values, monitors) for v in node]
    if node == '@MONITORS@':
        return monitors
    if isinstance(node, str):
        for key, val in values.items():
            node = node.replace('@' + key + '@', val)
        left = re.findall(r'@[A-Z_]+@', node)
        if left:
            die('template value %r has an unknown placeholder %s' % (node, left[0]))
        return node
    return node


def add_module(job, template, url):
    """The LRM file as the kernel's Multiboot module, the way the template's
    boot method loads modules."""
    deploy = next(a['deploy'] for a in job['actions'] if 'deploy' in a)
    boot = next(a['boot'] for a in job['actions'] if 'boot' in a)
    if 'images' in deploy:  # qemu: QEMU's -initrd is Multiboot module 1
        deploy['images']['module'] = {'image_arg': '-initrd {module}', 'url': url}
        return
    # tftp: a ramdisk LAVA must not unpack, add modules to or rewrap
    deploy['ramdisk'] = {'url': url, 'install_modules': False, 'install_overlay': False}
    cmds = boot['commands']
    if boot['method'] == 'grub':
        cmds.insert(cmds.index('boot'), 'module2 (tftp,{SERVER_IP})/{RAMDISK}')
    elif boot['method'] == 'ipxe':
        at = next(i for i, c in enumerate(cmds) if c.startswith('kernel '))
        cmds.insert(at + 1, 'initrd tftp://{SERVER_IP}/{RAMDISK}')
    else:
        die('template %s: its boot method %r loads no module' % (template, boot['method']))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--template', required=True)
    p.add_argument('--kernel-url', required=True)
    p.add_argument('--args', default='')
    p.add_argument('--smp', default='4')
    p.add_argument('--variant', default='')
    p.add_argument('--module-url')
    p.add_argument('--out')
    a = p.parse_args()
    path = a.template
    if not os.path.exists(path):
        path = os.path.join(HERE, a.template + '.yaml')
    if not os.path.isfile(path):
        die('no template %r (qemu, x86-ipxe, x86-grub or a file)' % a.template)
    words = a.args.split()
    if a.module_url is not None:
        if not re.match(r'^(file|https?|ftp)://\S+$', a.module_url):
            die('--module-url must be a file://, http(s):// or ftp:// URL, not %r' % a.module_url)
        if 'trampoline=linux' not in words:
            words.append('trampoline=linux')
    for w in words:
        if not ARG_RE.match(w):
            die("kernel argument %r has characters other than [A-Za-z0-9_.,:=+/@%%-]" % w)
    if not re.match(r'^[1-9][0-9]{0,3}$', a.smp):
        die('--smp must be a CPU count, not %r' % a.smp)
    if not re.match(r'^(file|https?|ftp)://\S+$', a.kernel_url):
        die('--kernel-url must be a file://, http(s):// or ftp:// URL, not %r' % a.kernel_url)
    if not re.match(r'^[A-Za-z0-9_.,:=+/@%() -]*$', a.variant):
        die('--variant %r has characters a job name should not have' % a.variant)
    with open(os.path.join(HERE, 'monitors.yaml')) as f:
        monitors = yaml.safe_load(f)
    with open(path) as f:
        job = yaml.safe_load(f)
    values = {'KERNEL_URL': a.kernel_url, 'ARGS': ' '.join(words), 'SMP': a.smp,
              'VARIANT': a.variant or 'kernel'}
    job = fill(job, values, monitors)
    if a.module_url is not None:
        add_module(job, a.template, a.module_url)
    text = ('# apstart LAVA job from %s (tools/lab/lava/mkjob.py)\n'
            % os.path.relpath(path, os.path.dirname(HERE) + '/..')
            + yaml.safe_dump(job, sort_keys=False, width=1000))
    if a.out:
        with open(a.out, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == '__main__':
    main()
