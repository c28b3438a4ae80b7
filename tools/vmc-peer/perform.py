#!/usr/bin/env python3
"""A stand-in phone tracker: sends VMC "perfect sync" (ARKit-52 blend shapes and the
Head bone) to `omote live --vmc-in PORT`, built with python-osc.

    perform.py PORT SECONDS [RATE_HZ]

The jaw opens and closes once a second, the head turns slowly, a blink every 3 s.
"""
import math
import socket
import sys
import time

from pythonosc.osc_bundle_builder import IMMEDIATELY, OscBundleBuilder
from pythonosc.osc_message_builder import OscMessageBuilder


def message(address, *args):
    m = OscMessageBuilder(address=address)
    for a in args:
        m.add_arg(a)
    return m.build()


def main():
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    rate = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    start = time.monotonic()
    k = 0
    while True:
        t = k / rate
        if t >= seconds:
            break
        due = start + t
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        jaw = 0.5 - 0.5 * math.cos(2 * math.pi * t)
        blink = 1.0 if (t % 3.0) < 0.12 else 0.0
        yaw = 0.3 * math.sin(2 * math.pi * t / 5)
        b = OscBundleBuilder(IMMEDIATELY)
        for name, v in [("jawOpen", jaw), ("eyeBlinkLeft", blink), ("eyeBlinkRight", blink)]:
            b.add_content(message("/VMC/Ext/Blend/Val", name, float(v)))
        # Unity axes: a turn about Y is (0, -sin, 0, cos) after the X mirror.
        b.add_content(message("/VMC/Ext/Bone/Pos", "Head", 0.0, 0.0, 0.0,
                              0.0, -math.sin(yaw / 2), 0.0, math.cos(yaw / 2)))
        b.add_content(message("/VMC/Ext/Blend/Apply"))
        sock.sendto(b.build().dgram, ("127.0.0.1", port))
        k += 1
    print(f"sent {k} frames", file=sys.stderr)


if __name__ == "__main__":
    main()
