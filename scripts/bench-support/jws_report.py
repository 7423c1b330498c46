"""The Markdown table of scripts/bench-jws, from its folder: run.env and measurements.tsv.

measurements.tsv holds one line per measurement:
    raw    ROUND LIBRARY          THREADS CALLS WALL_SECONDS PROCESS_CPU_SECONDS   (crypto-engines jws)
    swift  ROUND INPUT warm|cold  THREADS CALLS WALL_SECONDS PROCESS_CPU_SECONDS   (jws-bench)
Rates are calls per wall-clock second; "per CPU-second" divides by the process's CPU time instead, which the
other tenants of a shared machine do not inflate. Every figure is a median over rounds; a ratio is taken inside
each round (both halves ran back to back) and then its median over rounds.
"""

import statistics
import sys
from collections import defaultdict
from pathlib import Path

work = Path(sys.argv[1])
env = dict(line.split("=", 1) for line in (work / "run.env").read_text().splitlines() if "=" in line)

# (kind, name, threads) -> round -> (calls/s, calls per CPU-second)
rates = defaultdict(dict)
for line in (work / "measurements.tsv").read_text().splitlines():
    fields = line.split("\t")
    if fields[0] == "raw":
        _, rnd, library, threads, calls, wall, cpu = fields
        key = ("raw", library, int(threads))
    elif fields[0] == "swift":
        _, rnd, name, mode, threads, calls, wall, cpu = fields
        key = (mode, name, int(threads))
    else:
        continue
    rates[key][int(rnd)] = (int(calls) / float(wall), int(calls) / float(cpu))

libraries = sorted({k[1] for k in rates if k[0] == "raw"})
inputs = sorted({k[1] for k in rates if k[0] != "raw"}, key=lambda n: ("(minted)" in n, n))
rounds = sorted({r for by_round in rates.values() for r in by_round})


def faster(threads, rnd, which):
    """The faster library's raw rate in this round (which: 0 wall, 1 CPU) and its name."""
    best = max(libraries, key=lambda lib: rates[("raw", lib, threads)].get(rnd, (0, 0))[which])
    return rates[("raw", best, threads)][rnd][which], best


def median_ratio(key, threads, which):
    values = [rates[key][r][which] / faster(threads, r, which)[0] for r in rounds if r in rates[key]]
    return statistics.median(values)


def fmt(value):
    return f"{value:,.0f}"


def median_rate(key, which):
    return statistics.median(v[which] for v in rates[key].values())


print(f"Run of {env.get('date')} (commit {env.get('commit')}, {env.get('dirty')} uncommitted files in Sources and "
      f"Benchmarks): {env.get('machine')}; load average {env.get('load_before')} before, {env.get('load_after')} "
      f"after; {env.get('swift')}; libssl-dev {env.get('libssl')}, libcrypto++-dev {env.get('cryptopp')}. "
      f"{len(rounds)} rounds of {env.get('seconds')} s per measurement, the C++ and Swift halves alternating.")
print()
winners = defaultdict(int)
for threads in (1, 2):
    for r in rounds:
        winners[(threads, faster(threads, r, 0)[1])] += 1
print("| measurement | threads | per second (median) | per CPU-second (median) "
      "| ÷ faster raw, per second | ÷ faster raw, per CPU-second |")
print("|---|---:|---:|---:|---:|---:|")
for threads in (1, 2):
    for library in libraries:
        key = ("raw", library, threads)
        won = winners[(threads, library)]
        print(f"| raw ECDSA P-256 verify, {library} (SHA-256 of the signing input + verify, reused verifier; "
              f"faster in {won}/{len(rounds)} rounds) | {threads} | {fmt(median_rate(key, 0))} "
              f"| {fmt(median_rate(key, 1))} | {median_ratio(key, threads, 0):.1%} "
              f"| {median_ratio(key, threads, 1):.1%} |")
    for mode, what in (("warm", "verifyJWS, warm (chain cached)"), ("cold", "verifyJWS, cold (new verifier per call)")):
        for name in inputs:
            key = (mode, name, threads)
            if key not in rates:
                continue
            ratio_wall = median_ratio(key, threads, 0)
            ratio_cpu = median_ratio(key, threads, 1)
            bold = "**" if mode == "warm" else ""
            print(f"| {what}, {name} | {threads} | {fmt(median_rate(key, 0))} | {fmt(median_rate(key, 1))} "
                  f"| {bold}{ratio_wall:.1%}{bold} | {bold}{ratio_cpu:.1%}{bold} |")

print()
for name in inputs:
    for threads in (1, 2):
        key = ("warm", name, threads)
        if key not in rates:
            continue
        per_round = ", ".join(f"{rates[key][r][0] / faster(threads, r, 0)[0]:.0%}" for r in rounds if r in rates[key])
        print(f"- warm ÷ faster raw per second, {name}, {threads} thread{'s' if threads > 1 else ''}, "
              f"round by round: {per_round}")
