#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Render a LAVA device file as lava-server would, without lava-server.

  render-device.py --templates DIR --dict DEVICE.jinja2 --job JOB.yaml

DIR: lava-server's device-types (from the package, unpacked:
apt-get download lava-server; dpkg -x lava-server_*.deb x; DIR is
x/usr/share/lava-server/device-types). DEVICE.jinja2: the device
dictionary (tools/lab/lava/devices/). The job's context is passed to the
template, as lava-server does at submission. The device file goes to
stdout; tools/lab/lava/devices/qemu-apstart.yaml was made this way."""
import argparse
import os
import sys

import jinja2
import yaml


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--templates', required=True)
    p.add_argument('--dict', required=True)
    p.add_argument('--job', required=True)
    a = p.parse_args()
    with open(a.job) as f:
        context = (yaml.safe_load(f) or {}).get('context', {})
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(
        [os.path.dirname(os.path.abspath(a.dict)), a.templates]),
        trim_blocks=True, autoescape=False)
    text = env.get_template(os.path.basename(a.dict)).render(**context)
    yaml.safe_load(text)  # it must be YAML
    sys.stdout.write('# Rendered by tools/lab/lava/render-device.py from %s and the context of %s\n'
                     % (os.path.basename(a.dict), os.path.basename(a.job)) + text)


if __name__ == '__main__':
    sys.exit(main())
