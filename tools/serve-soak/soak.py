#!/usr/bin/env python3
"""Soak `omote view` on the demo scene and print figures (no pass/fail: a measurement).

  python3 tools/serve-soak/soak.py [--omote target/release/omote] [--clients 16]
                                   [--slow 64] [--seconds 40]

1. Bakes nobody reads: CLIENTS connections each ask for the largest bake the viewer
   allows (`/bake?advance=T`, T from `maxPressTime` down, a distinct press script each,
   so no answer is shared) and never read. The server's RSS is sampled from /proc every
   0.25 s while they hold on, then after they leave. Figures: peak RSS (VmHWM) and RSS
   after they leave; the answers 200 / 503 / 400 the clients got, as far as they read
   the status line afterwards.
2. Slow heads: SLOW connections each trickle one byte of a request head every 5 s while
   a probe asks for `/scene.json` once a second. Figures: the probes' answer times.
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time


def rss_kib(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            fields[k] = v.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def get(port, path, timeout=10.0):
    t0 = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    body = data.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in data else b""
    return status, body, time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--omote", default="target/release/omote")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--slow", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=40.0)
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="omote-soak-")
    demo = os.path.join(work, "demo")
    subprocess.run([args.omote, "demo", "--out", demo], check=True, stdout=subprocess.DEVNULL)
    view = subprocess.Popen(
        [args.omote, "view", os.path.join(demo, "scene.toml"), "--bind", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = view.stdout.readline()
    port = int(re.search(r"127\.0\.0\.1:(\d+)", url).group(1))
    try:
        import json
        status, body, _ = get(port, "/scene.json")
        info = json.loads(body)
        top = info["maxPressTime"]
        rss0, _ = rss_kib(view.pid)
        print(f"omote view {args.omote}: demo scene {info['duration']:.1f} s, "
              f"largest press time {top:.1f} s; RSS at start {rss0 / 1024:.0f} MiB")

        # 1. Bakes nobody reads.
        status, body, took = get(port, f"/bake?advance={top - 0.05:.2f}", timeout=120)
        print(f"one largest bake read in full: status {status}, {len(body) / 1e6:.1f} MB, "
              f"{took:.1f} s")
        socks = []
        for i in range(args.clients):
            s = socket.create_connection(("127.0.0.1", port))
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            t = top - 0.1 * (i + 1)
            s.sendall(f"GET /bake?advance={t:.1f} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            socks.append(s)
        peak_rss = 0
        t0 = time.monotonic()
        while time.monotonic() - t0 < args.seconds:
            rss, _ = rss_kib(view.pid)
            peak_rss = max(peak_rss, rss)
            time.sleep(0.25)
        statuses = {}
        for s in socks:
            s.settimeout(2)
            try:
                head = s.recv(64)
                code = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
            except (OSError, ValueError, IndexError):
                code = 0
            statuses[code] = statuses.get(code, 0) + 1
            s.close()
        time.sleep(5)
        after, hwm = rss_kib(view.pid)
        print(f"{args.clients} clients not reading the largest bakes for {args.seconds:.0f} s: "
              f"peak RSS sampled {peak_rss / 1024:.0f} MiB, VmHWM {hwm / 1024:.0f} MiB, "
              f"RSS 5 s after they left {after / 1024:.0f} MiB; status lines {statuses} "
              "(0: closed or none)")

        # 2. Slow heads.
        stop = threading.Event()
        slow = []
        for _ in range(args.slow):
            try:
                slow.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            except OSError:
                break

        def trickle():
            while not stop.is_set():
                for s in list(slow):
                    try:
                        s.send(b"G")
                    except OSError:
                        slow.remove(s)
                        try:
                            slow.append(socket.create_connection(("127.0.0.1", port), timeout=5))
                        except OSError:
                            pass
                stop.wait(5)

        th = threading.Thread(target=trickle, daemon=True)
        th.start()
        times, failed = [], 0
        t0 = time.monotonic()
        while time.monotonic() - t0 < args.seconds:
            try:
                status, _, took = get(port, "/scene.json", timeout=10)
                if status == 200:
                    times.append(took)
                else:
                    failed += 1
            except OSError:
                failed += 1
            time.sleep(1)
        stop.set()
        for s in slow:
            s.close()
        times.sort()
        if times:
            print(f"{args.slow} slow heads (a byte every 5 s) for {args.seconds:.0f} s: "
                  f"{len(times)} probes answered, median {times[len(times) // 2] * 1000:.0f} ms, "
                  f"slowest {times[-1] * 1000:.0f} ms; {failed} failed")
        else:
            print(f"{args.slow} slow heads: no probe answered; {failed} failed")
    finally:
        view.terminate()
        view.wait()


if __name__ == "__main__":
    sys.exit(main())
