#!/usr/bin/env python3
"""Runs a command and samples the memory of its whole process tree every 100 ms: the
proportional set size summed over the tree (pages Chromium's processes share count
once), and the command's own resident size.

    python3 measure.py OUT COMMAND...

Writes `WALL_SECONDS PEAK_PSS_KIB PEAK_RSS_KIB EXIT_CODE` to OUT; the command's output
passes through.
"""
import os
import subprocess
import sys
import time


def field_kib(path, name):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(name):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree(root):
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    todo, seen = [root], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo.extend(children.get(p, []))
    return seen


def main():
    out, cmd = sys.argv[1], sys.argv[2:]
    start = time.monotonic()
    proc = subprocess.Popen(cmd)
    peak_all = peak_own = 0
    while proc.poll() is None:
        pids = tree(proc.pid)
        peak_all = max(peak_all, sum(field_kib(f"/proc/{p}/smaps_rollup", "Pss:") for p in pids))
        peak_own = max(peak_own, field_kib(f"/proc/{proc.pid}/status", "VmRSS:"))
        time.sleep(0.1)
    wall = time.monotonic() - start
    with open(out, "w") as f:
        f.write(f"{wall} {peak_all} {peak_own} {proc.returncode}\n")


if __name__ == "__main__":
    main()
