#!/usr/bin/env python3
"""A VMC marionette for tests: receives what `omote live --vmc-out` sends, parsed by
python-osc (an independent OSC implementation), and prints a JSON summary.

    peer.py PORT SECONDS  -> prints {"packets": N, "bundles": [...], "problems": [...]}

Per packet it checks what a VMC receiver relies on: every packet is one OSC bundle of
at most 1472 bytes (the protocol asks for bundles within 1500 bytes: one Ethernet
frame); a frame's /VMC/Ext/Blend/Val messages come before its /VMC/Ext/Blend/Apply
(a frame may span packets, its Apply in the last); values are finite floats in 0..1;
bone rotations are finite unit quaternions. It reports, per frame (ended by an Apply),
the blend names, the bones, the Head's position and the value of a few blends, so the
test can follow the mouth over time. It prints "ready" on stderr once listening.
"""

MAX_PACKET = 1472
import json
import math
import socket
import sys
import time

from pythonosc.osc_bundle import OscBundle
from pythonosc.osc_packet import OscPacket, ParseError


def new_frame():
    return {"applied": False, "blends": {}, "bones": {}}


def main():
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    watch = sys.argv[3].split(",") if len(sys.argv) > 3 else []
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", port))
    sock.settimeout(0.2)
    print("ready", file=sys.stderr, flush=True)
    end = time.monotonic() + seconds
    packets, problems, frames = 0, [], []
    names_seen = set()
    pending = new_frame()
    while time.monotonic() < end:
        try:
            data, _ = sock.recvfrom(65536)
        except socket.timeout:
            continue
        arrived = time.monotonic()
        packets += 1
        if not OscBundle.dgram_is_bundle(data):
            problems.append(f"packet {packets}: not a bundle")
            continue
        try:
            messages = [m.message for m in OscPacket(data).messages]
        except ParseError as e:
            problems.append(f"packet {packets}: {e}")
            continue
        if len(data) > MAX_PACKET:
            problems.append(f"packet {packets}: {len(data)} bytes, over {MAX_PACKET}")
        for m in messages:
            addr, params = m.address, list(m.params)
            if addr == "/VMC/Ext/Blend/Val":
                if pending["applied"]:
                    problems.append(f"packet {packets}: a value after Apply")
                name, value = params
                if not (isinstance(value, float) and math.isfinite(value) and 0.0 <= value <= 1.0):
                    problems.append(f"packet {packets}: {name} = {value!r}")
                pending["blends"][name] = value
            elif addr == "/VMC/Ext/Blend/Apply":
                pending["applied"] = True
            elif addr == "/VMC/Ext/Bone/Pos":
                name, *v = params
                q = v[3:7]
                if not all(isinstance(x, float) and math.isfinite(x) for x in v) or abs(
                    math.sqrt(sum(x * x for x in q)) - 1.0
                ) > 1e-3:
                    problems.append(f"packet {packets}: bone {name} = {v!r}")
                pending["bones"][name] = v
        if pending["applied"]:
            blends, bones = pending["blends"], pending["bones"]
            names_seen.update(blends)
            frames.append(
                {
                    "t": arrived,
                    "blends": len(blends),
                    "bones": sorted(bones),
                    "headPosition": bones["Head"][:3] if "Head" in bones else None,
                    "watch": {n: blends.get(n) for n in watch},
                }
            )
            pending = new_frame()
    if pending["blends"]:
        problems.append("the last frame's values came with no Apply")
    t0 = frames[0]["t"] if frames else 0.0
    for f in frames:
        f["t"] = round(f["t"] - t0, 4)
    print(
        json.dumps(
            {
                "packets": packets,
                "names": sorted(names_seen),
                "frames": frames,
                "problems": problems[:50],
                "problemCount": len(problems),
            }
        )
    )


if __name__ == "__main__":
    main()
