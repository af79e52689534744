#!/usr/bin/env python3
# Counts, per thread, how often each JVM's threads blocked and woke, and the CPU they used, over a
# window: the measurement behind docs/BENCHMARKS.md "The wake-ups counted".
#
#   scripts/thread-wakeups.py SECONDS PID...
#
# Run it while a load is steady (e.g. during the measured window of `scripts/bench.sh commit
# --cs 1 --measure-s 100`; the node PIDs: `pgrep -f cohort-server.jar`). For every PID it prints the
# process's CPU (% of one core) and voluntary context switches per second, then each thread that
# woke or used CPU: its name (from the JDK's `jstack`, so names are not cut to the kernel's 15
# characters), CPU %, voluntary and involuntary switches per second. A voluntary switch is the
# thread blocking (a lock, a condition, a sleep, I/O such as an fsync); divide by commits/s to get
# wake-ups per commit. Linux only (/proc/<pid>/task); needs python3 and jstack on the PATH.
import os
import re
import subprocess
import sys
import time

HZ = os.sysconf('SC_CLK_TCK')


def thread_names(pid):
    out = subprocess.run(['jstack', str(pid)], capture_output=True, text=True).stdout
    names = {}
    for line in out.splitlines():
        m = re.match(r'^"(.*?)".*nid=(0x[0-9a-f]+)', line)
        if m:
            names[int(m.group(2), 16)] = m.group(1)
    return names


def sample(pid):
    """tid -> [user ticks, system ticks, voluntary switches, involuntary switches]"""
    threads = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            stat = open(f'/proc/{pid}/task/{tid}/stat').read()
            fields = stat[stat.rindex(')') + 2:].split()
            status = open(f'/proc/{pid}/task/{tid}/status').read()
            voluntary = int(re.search(r'\nvoluntary_ctxt_switches:\s+(\d+)', status).group(1))
            involuntary = int(re.search(r'nonvoluntary_ctxt_switches:\s+(\d+)', status).group(1))
            threads[int(tid)] = [int(fields[11]), int(fields[12]), voluntary, involuntary]
        except (OSError, AttributeError, ValueError):
            pass  # the thread ended meanwhile
    return threads


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: thread-wakeups.py SECONDS PID...')
    seconds = float(sys.argv[1])
    pids = [int(p) for p in sys.argv[2:]]
    names = {pid: thread_names(pid) for pid in pids}
    before = {pid: sample(pid) for pid in pids}
    time.sleep(seconds)
    after = {pid: sample(pid) for pid in pids}
    for pid in pids:
        rows = []
        for tid, now in after[pid].items():
            then = before[pid].get(tid, [0, 0, 0, 0])
            delta = [now[i] - then[i] for i in range(4)]
            if delta[2] or delta[0] + delta[1]:
                rows.append((delta, names[pid].get(tid, f'tid {tid} (started in the window)')))
        total = [sum(row[0][i] for row in rows) for i in range(4)]
        print(f'== pid {pid}: cpu {100 * (total[0] + total[1]) / HZ / seconds:.1f}% of a core '
              f'(kernel {100 * total[1] / HZ / seconds:.1f}%), voluntary switches/s {total[2] / seconds:.0f}')
        for delta, name in sorted(rows, key=lambda row: -row[0][2]):
            cpu = 100 * (delta[0] + delta[1]) / HZ / seconds
            if delta[2] / seconds < 5 and cpu < 0.5:
                continue
            print(f'  {name[:72]:72s} cpu {cpu:5.1f}%  voluntary/s {delta[2] / seconds:6.0f}  '
                  f'involuntary/s {delta[3] / seconds:5.0f}')


if __name__ == '__main__':
    main()
