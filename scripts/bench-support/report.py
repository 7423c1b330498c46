#!/usr/bin/env python3
"""Writes BENCHMARKS.md from the outputs of one scripts/bench run (a folder of files), to standard output.

  report.py WORKDIR > BENCHMARKS.md

WORKDIR holds: run.env (KEY=VALUE lines: machine, versions, commands), suites.jmh.json (package-benchmark's
JMH export of the stored baseline), thresholds.txt and thresholds.rc (`benchmark thresholds check`),
verify-bench.md, and when they ran, loadtest.md (what scripts/loadtest wrote), compare.json (compare.py) and
e2e.md and e2e.json (scripts/bench-e2e).
A hand-written section of the previous report (from a line `<!-- analysis -->` to the end, in previous.md) is
kept at the end.
"""

import json
import os
import re
import sys

work = sys.argv[1]


def read(name, default=None):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as handle:
        return handle.read()


env = {}
for line in read("run.env", "").splitlines():
    if "=" in line:
        key, value = line.split("=", 1)
        env[key] = value

# MARK: the suites

suites = {}
for element in json.loads(read("suites.jmh.json")):
    name = element["benchmark"].rsplit(".", 1)[-1]
    secondary = element["secondaryMetrics"]
    wall = secondary["Time (wall clock)"]["scorePercentiles"]
    suites[name] = {
        "p50_us": wall["50.0"],
        "p90_us": wall["90.0"],
        "p99_us": wall["99.0"],
        "throughput_p50": element["primaryMetric"]["scorePercentiles"]["50.0"],
        "mallocs_p50": secondary["Malloc (total)"]["scorePercentiles"]["50.0"],
        "samples": element["measurementIterations"],
    }


def per_second(name):
    """Receipts per second from the median wall-clock time (throughput's median is its reciprocal)."""
    return 1e6 / suites[name]["p50_us"]


def us(value):
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def rate(value):
    return f"{value:,.0f}"


small = env.get("receipt_aprv-purchasingexp-sandbox-2023-02", "the small receipt")
large = env.get("receipt_tpi-nutcall-alert-sandbox-2020-187iap", "the large receipt")

descriptions = {
    "decode-small-6KB": f"decode only: `AppReceipt(berEncoded:)` of {small}",
    "decode-large-79KB-187iap": f"decode only: {large}",
    "decode-minted-1000iap": "decode only: a receipt minted in-process with 1,000 purchases",
    "linearity-decode-1iap": "decode, minted receipt with 1 purchase",
    "linearity-decode-100iap": "decode, minted receipt with 100 purchases",
    "linearity-decode-1000iap": "decode, minted receipt with 1,000 purchases",
    "hostile-decode-ordinary-1MiB": "decode, an ordinary receipt of about 1 MiB (minted, 3,780 purchases)",
    "hostile-ber-walk-nested-indefinite-1MiB":
        "**hostile**: `BERReader` walk of every element of 31 nested indefinite SEQUENCEs around NULLs, same size",
    "hostile-decode-nested-junk-1MiB":
        "**hostile**: decode of a receipt carrying 27-deep nested indefinite junk as a certificate, same size",
    "verify-warm-small": "verify bytes (decode, chain-cache hit, digest, RSA), warm cache, 6 KB receipt",
    "verify-warm-large-79KB-187iap": "verify bytes, warm cache, 79 KB receipt",
    "verify-warm-decoded-small": "verify an already decoded receipt, warm cache",
    "verify-cold-small": "verify bytes with a new `ReceiptVerifier` (cold cache: d2i_X509, X509_verify_cert)",
    "json-render-small-6KB": "`AppleReceiptJSON.render` of the decoded 6 KB receipt",
    "json-render-large-79KB-187iap": "`AppleReceiptJSON.render` of the decoded 79 KB receipt",
    "server-path-small-6KB":
        "the server's path without the network: request JSON → base64 → decode → verify → response JSON",
    "server-path-large-79KB-187iap": "the same for the 79 KB receipt (`in_app` and `latest_receipt_info`)",
    "floor-rsa-verify-small": "**floor**: OpenSSL `EVP_PKEY_verify`, RSA-2048, reused context, same signature",
    "floor-digest-small": "**floor**: OpenSSL `EVP_Digest` of the same receipt's signed payload",
    "floor-rsa-verify-plus-digest-small": "**floor**: digest + RSA verify together (the least a verified receipt costs)",
    "hostile-ec-explicit-3certs": "verify bytes: 3 certificates with explicit-curve keys and compressed points "
    "(5.4 KB request; never cached). See `scripts/bench-hostile`",
    "hostile-ordinary-same-size-as-ec-explicit-3certs": "verify bytes, warm cache: an ordinary receipt of at least "
    "the same request size",
    "hostile-rsa4096-partial-path": "verify bytes: 4 × ~4 KiB RSA-4096 certificates, a signed partial path "
    "(24 KB request; never cached)",
    "hostile-ordinary-same-size-as-rsa4096-partial-path": "verify bytes, warm cache: an ordinary receipt of at least "
    "the same request size",
}
order = [
    "decode-small-6KB", "decode-large-79KB-187iap", "decode-minted-1000iap",
    "linearity-decode-1iap", "linearity-decode-100iap", "linearity-decode-1000iap",
    "hostile-decode-ordinary-1MiB", "hostile-ber-walk-nested-indefinite-1MiB", "hostile-decode-nested-junk-1MiB",
    "verify-warm-small", "verify-warm-large-79KB-187iap", "verify-warm-decoded-small", "verify-cold-small",
    "json-render-small-6KB", "json-render-large-79KB-187iap",
    "server-path-small-6KB", "server-path-large-79KB-187iap",
    "floor-rsa-verify-small", "floor-digest-small", "floor-rsa-verify-plus-digest-small",
]
order += sorted(name for name in suites if name not in order)

rsa = per_second("floor-rsa-verify-small")
floor = per_second("floor-rsa-verify-plus-digest-small")
warm = per_second("verify-warm-small")
warm_decoded = per_second("verify-warm-decoded-small")
cold = per_second("verify-cold-small")
server_small = per_second("server-path-small-6KB")
warm_ratio = warm / rsa

# MARK: linearity

points = [(1, "linearity-decode-1iap"), (100, "linearity-decode-100iap"), (1000, "linearity-decode-1000iap")]
t1 = suites[points[0][1]]["p50_us"]
t1000 = suites[points[2][1]]["p50_us"]
slope = (t1000 - t1) / 999
intercept = t1 - slope
predicted_100 = intercept + 100 * slope
measured_100 = suites[points[1][1]]["p50_us"]

# MARK: output

out = []
emit = out.append

emit("# Benchmarks")
emit("")
emit(f"Written by `scripts/bench` on {env.get('started', '?')} from commit `{env.get('commit', '?')}` "
     f"(\"{env.get('commit_subject', '')}\"), in one run: the suites, 2-thread scaling, the server load test and "
     "the comparison with other tools ran one after the other on this machine.")
if env.get("dirty", "0") != "0":
    emit("")
    emit(f"**Note:** the work tree had {env['dirty']} uncommitted change(s) under Sources/, Package.swift or "
         "Benchmarks/ when it ran.")
emit("")
emit("Times are medians (p50) of one operation per iteration on a shared 2-core VM: compare ratios within this "
     "run, not absolutes across runs. The malloc interposer that counts allocations is active in every suite, "
     "the floor's included, so they all pay its small per-allocation cost alike.")
emit("")

emit("## Headline")
emit("")
decode = suites["decode-small-6KB"]
emit(f"- **Decode of the 6 KB receipt**: {us(decode['p50_us'])} µs ({rate(per_second('decode-small-6KB'))}/s), "
     f"**{decode['mallocs_p50']} allocations** per receipt (checked in as a threshold).")
emit(f"- **Decode grows linearly with purchases**: {us(t1)} / {us(measured_100)} / {us(t1000)} µs for 1 / 100 / "
     f"1,000 purchases, {slope:.3f} µs per purchase; the line through 1 and 1,000 predicts {us(predicted_100)} µs "
     f"for 100 (measured {us(measured_100)}). Allocations: "
     + " / ".join(str(suites[name]["mallocs_p50"]) for _, name in points) + ".")
if all(name in suites for name in ("hostile-decode-ordinary-1MiB", "hostile-ber-walk-nested-indefinite-1MiB",
                                    "hostile-decode-nested-junk-1MiB")):
    ordinary = suites["hostile-decode-ordinary-1MiB"]["p50_us"]
    walk = suites["hostile-ber-walk-nested-indefinite-1MiB"]["p50_us"]
    junk = suites["hostile-decode-nested-junk-1MiB"]["p50_us"]
    emit(f"- **Hostile nested indefinite-length BER, per byte** (inputs of one size, about 1 MiB): decoding an "
         f"ordinary receipt {us(ordinary)} µs; walking every element of 31-deep nesting {us(walk)} µs "
         f"(**{walk / ordinary:.1f}×**); decoding a receipt with 27-deep nested junk {us(junk)} µs "
         f"(**{junk / ordinary:.1f}×**).")
verdict = "met" if warm_ratio >= 0.60 else "**not met**"
emit(f"- **Warm-cache verification vs the floor**: {rate(warm)} receipts/s against OpenSSL's raw RSA-2048 verify "
     f"at {rate(rsa)}/s on one core: **{warm_ratio:.0%} of the raw RSA rate** (target ≥ 60%: {verdict}). "
     f"Against the full floor (digest + RSA, {rate(floor)}/s): {warm / floor:.0%}. An already decoded receipt "
     f"verifies at {rate(warm_decoded)}/s ({warm_decoded / rsa:.0%} of raw RSA).")
emit(f"- **Cold cache** (new verifier per receipt): {rate(cold)}/s, {rsa / cold:.0f}× the cost of one RSA verify.")
emit(f"- **JSON** (`AppleReceiptJSON.render`): {us(suites['json-render-small-6KB']['p50_us'])} µs for the 6 KB "
     f"receipt, {us(suites['json-render-large-79KB-187iap']['p50_us'])} µs for the 79 KB one.")
emit(f"- **The server's whole path without the network** (6 KB, warm): {us(suites['server-path-small-6KB']['p50_us'])}"
     f" µs, {rate(server_small)}/s on one core, {server_small / rsa:.0%} of the raw RSA rate; 79 KB: "
     f"{us(suites['server-path-large-79KB-187iap']['p50_us'])} µs.")

loadtest = read("loadtest.md")
load_rows = []
if loadtest:
    for line in loadtest.splitlines():
        if re.match(r"^\| (small|large) \|", line):
            load_rows.append(line)
    small_row = next((row for row in load_rows if row.startswith("| small |")), None)
    if small_row:
        cells = [cell.strip() for cell in small_row.strip("|").split("|")]
        emit(f"- **Server load test** (wrk over loopback, {env.get('loadtest_seconds')} s, server and wrk sharing 2 "
             f"cores): {cells[3]} requests/s for the 6 KB receipt, p99 {cells[6]} ms, {cells[8]} errors.")

e2e = json.loads(read("e2e.json", "null") or "null")
if e2e:
    two = e2e["verify_local"]["2"]["per_second"]
    # The shipped defaults first: what a user runs.
    servers = e2e["servers"]
    shown = []
    for name in ("defaults", "--ledger none", "postgres", "ledger off, logs at warning"):
        if name not in servers:
            continue
        small_server = servers[name]["results"]["6 KB"]
        large_server = servers[name]["results"]["79 KB"]
        shown.append(f"{name}: 6 KB {small_server['rps']:,.0f} requests/s (**{small_server['rps'] / e2e['rsa']:.0%}**, "
                     f"p99 {small_server['p99_ms']:.1f} ms, {small_server['errors']} errors), 79 KB "
                     f"{large_server['rps']:,.0f} (**{large_server['rps'] / e2e['rsa']:.1%}**)")
    emit(f"- **End to end**, against `openssl speed rsa2048` at {e2e['rsa']:,.0f} verify/s on one core in the same "
         f"run: verify-local over 2,000 distinct receipts on both cores {two:,.0f}/s (**{two / e2e['rsa']:.0%}**); "
         f"receipt-server under wrk -t2 -c64, " + "; ".join(shown) + ".")
    if e2e.get("baseline"):
        # bench-e2e --baseline: its before-and-after table of the shipped defaults' paths, as it printed it.
        table = [line for line in (read("e2e.md", "") or "").splitlines()[2:] if line.startswith("|")]
        before = next((index for index, line in enumerate(table) if line.startswith("| what |")), len(table))
        emit("")
        emit(f"Before (`{e2e['baseline']['revision']}`) and after, in the same end-to-end run, as ratios to one "
             "core's RSA verify rate:")
        emit("")
        for line in table[:before]:
            emit(line)
        emit("")

compare = json.loads(read("compare.json", "null") or "null")
if compare:
    best = {}
    for result in compare["results"]:
        for measurement in result["measurements"]:
            if result["receipt"] == "small":
                best[measurement["tool"]] = measurement["per_second"]
    parts = [f"{tool.split(' (')[0]} {value:,.0f}/s" for tool, value in best.items()]
    emit(f"- **Other tools, 6 KB receipt, one core**: " + "; ".join(parts)
         + f" — against this package's server path at {rate(server_small)}/s and warm verify at {rate(warm)}/s.")
emit("")

emit("## Machine and versions")
emit("")
emit(f"- cores (nproc): {env.get('nproc')}; CPU: {env.get('cpu')}; memory: {env.get('memory_mib')} MiB; "
     f"kernel: {env.get('kernel')}")
emit(f"- load average (1/5/15 min) before the run: {env.get('load_before')}; after: {env.get('load_after')}; "
     "1-minute load as each stage started: "
     + ", ".join(f"{stage} {env[f'load_at_{stage}']}" for stage in ("suites", "verify_bench", "loadtest", "comparison",
                                                                     "e2e")
                 if f"load_at_{stage}" in env))
emit(f"- {env.get('swift')}")
emit(f"- OpenSSL: libcrypto {env.get('libcrypto')} (linked by the suites); CLI: {env.get('openssl_cli')}")
resolved = None
for candidate in ("Benchmarks/Package.resolved",):
    if os.path.exists(candidate):
        with open(candidate, encoding="utf-8") as handle:
            pins = json.load(handle).get("pins", [])
        resolved = {pin["identity"]: pin["state"].get("version") for pin in pins}
if resolved:
    emit(f"- package-benchmark (ordo-one/benchmark) {resolved.get('benchmark', '?')}, malloc-interposer "
         f"{resolved.get('malloc-interposer', '?')}")
emit(f"- {env.get('python')}; wrk: {env.get('wrk')}")
if compare:
    packages = ", ".join(f"{name} {version}" for name, version in compare["packages"].items())
    emit(f"- comparison virtualenv (Python {compare['python']}): {packages}")
emit(f"- receipts: small = {small}; large = {large}")
emit("")

emit("## Suites (package-benchmark, release build)")
emit("")
emit("One operation per iteration; p50/p90/p99 of wall-clock time, receipts per second from the median, "
     "allocations per operation (p50).")
emit("")
emit("| benchmark | what | p50 µs | p90 µs | p99 µs | per second | mallocs | samples |")
emit("|---|---|---:|---:|---:|---:|---:|---:|")
for name in order:
    if name not in suites:
        continue
    result = suites[name]
    emit(f"| `{name}` | {descriptions.get(name, '')} | {us(result['p50_us'])} | {us(result['p90_us'])} | "
         f"{us(result['p99_us'])} | {rate(per_second(name))} | {result['mallocs_p50']} | {result['samples']:,} |")
emit("")

emit("## Ratios to the floor (6 KB receipt, one core)")
emit("")
emit("The floor is what OpenSSL itself needs for one receipt: one RSA-2048 verification on a reused context "
     "and one digest of the signed payload, measured in the same process on the same signature and bytes.")
emit("")
emit("| step | per second | share of raw RSA rate | share of the floor (digest + RSA) | cost in RSA verifies |")
emit("|---|---:|---:|---:|---:|")
for name in ["floor-rsa-verify-small", "floor-rsa-verify-plus-digest-small", "verify-warm-decoded-small",
             "verify-warm-small", "server-path-small-6KB", "verify-cold-small"]:
    value = per_second(name)
    emit(f"| `{name}` | {rate(value)} | {value / rsa:.0%} | {value / floor:.0%} | {rsa / value:.2f} |")
emit("")
emit(f"Warm-cache verification runs at **{warm_ratio:.0%} of the raw RSA verify rate** (the verification "
     f"issue's target is ≥ 60%). What separates it from the floor: decoding ({us(decode['p50_us'])} µs), the "
     "chain-cache lookup (a hash of the certificates' lengths and last bytes, then a byte comparison with the "
     "stored copy), and building the verdict.")
emit("")

emit("## Decode cost vs purchase count")
emit("")
emit("Receipts minted in-process (ReceiptForge, the test PKI in `certs/`) from the description of "
     "`fixtures/valid-large-1200-purchases` with only the purchase count changed.")
emit("")
emit("| purchases | p50 µs | µs per purchase (above the 1-purchase receipt) | mallocs |")
emit("|---:|---:|---:|---:|")
for count, name in points:
    value = suites[name]["p50_us"]
    extra = "" if count == 1 else f"{(value - t1) / (count - 1):.3f}"
    emit(f"| {count:,} | {us(value)} | {extra} | {suites[name]['mallocs_p50']} |")
emit("")
emit(f"Linear: {us(intercept)} µs + {slope:.3f} µs × purchases fits 1 and 1,000 and predicts {us(predicted_100)} µs "
     f"for 100 ({(measured_100 / predicted_100 - 1):+.0%} measured). The allocation count does not grow with the "
     "number of purchases.")
emit("")

emit("## Allocation thresholds")
emit("")
rc = (read("thresholds.rc", "?") or "?").strip()
meaning = {"0": "equal to the checked-in thresholds", "2": "REGRESSION: more allocations than checked in",
           "4": "better than checked in (update the thresholds)"}.get(rc, "did not run cleanly")
emit(f"`benchmark thresholds check` against `Benchmarks/Thresholds` (mallocCountTotal only, p90): exit {rc}, "
     f"{meaning}.")
emit("")
thresholds_text = read("thresholds.txt", "")
summary = [line for line in thresholds_text.splitlines() if "baseline 'bench'" in line or "│" in line]
if summary:
    emit("```")
    emit("\n".join(summary[:40]))
    emit("```")
    emit("")

emit("## 2-thread scaling (verify-bench)")
emit("")
emit("package-benchmark measures one thread; `verify-bench` runs warm verification and raw RSA on 1 and 2 "
     "threads (best of 3). The 2-thread rows mean something only when the raw-RSA row itself scales: other "
     "processes on the machine take the second core otherwise.")
emit("")
verify_bench = (read("verify-bench.md", "") or "").strip()
scaling = re.search(r"OpenSSL raw RSA-\d+ verify, 1 / 2 threads \(throughput\) \| \| [^|]*\(×([\d.]+)\)", verify_bench)
if scaling and float(scaling.group(1)) < 1.8:
    emit(f"**In this run raw RSA itself scaled only ×{scaling.group(1)} on 2 threads: another process had the "
         "second core, so the 2-thread rows below say nothing about the verifier.**")
    emit("")
emit(verify_bench)
emit("")

emit("## Server load test")
emit("")
if loadtest:
    emit(f"`scripts/loadtest` with `LOADTEST_DURATION={env.get('loadtest_seconds')}` (the small run lasts that "
         "long, the large one a quarter of it, at least 10 s; each after a 5 s warm-up). wrk and the server share "
         "the 2 cores. `docs/load-test.md` keeps its own longer runs; scripts/bench puts it back.")
    emit("")
    emit("| run | receipt | requests | requests/s | p50 ms | p90 ms | p99 ms | max ms | errors | RSS start MiB | "
         "RSS end MiB | RSS max MiB |")
    emit("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in load_rows:
        emit(row)
    commands = [line for line in loadtest.splitlines() if line.startswith(("- build:", "- server:", "- load"))]
    emit("")
    for line in commands:
        emit(line)
else:
    emit("Skipped (`BENCH_LOADTEST_SECONDS=0`).")
emit("")

emit("## End to end")
emit("")
if e2e:
    emit("What users run, as whole processes: `scripts/bench-e2e` (stage 5 of scripts/bench). Ratios are to one "
         "core's RSA-2048 verify rate from `openssl speed`, measured in the same run.")
    emit("")
    emit((read("e2e.md", "") or "").strip())
else:
    emit("Skipped (`BENCH_E2E_SECONDS=0`).")
emit("")

emit("## Comparison with what a user would use instead")
emit("")
if compare:
    emit(f"Same machine, same receipts, one thread, {compare['seconds_per_measurement']:g} s per tool and receipt "
         "(after a short warm-up), measured by `scripts/bench-support/compare.py`. This package's rows are the "
         "suites above.")
    emit("")
    ours = {
        "small": {"verify": warm, "server": server_small},
        "large": {"verify": per_second("verify-warm-large-79KB-187iap"),
                  "server": per_second("server-path-large-79KB-187iap")},
    }
    emit("Each tool is set against the matching step here: verification alone against `verify-warm-*` (decode, "
         "signature, cached chain), a verifyReceipt-shaped request and response against `server-path-*`, "
         "ReceiptUtility (no verification at all) against `verify-warm-*` too.")
    emit("")
    emit("| tool | receipt | per second | accepted | compared with | this package, per second | × faster here |")
    emit("|---|---|---:|---|---|---:|---:|")
    for result in compare["results"]:
        mine = ours[result["receipt"]]
        label = f"{result['receipt']} ({result['bytes']:,} B)"
        for measurement in result["measurements"]:
            step = "server" if "endpoint" in measurement["tool"] else "verify"
            name = ("server-path-" if step == "server" else "verify-warm-") + (
                "small" + ("-6KB" if step == "server" else "") if result["receipt"] == "small"
                else "large-79KB-187iap")
            accepted = "yes" if measurement["accepted"] else "no: " + str(measurement.get("detail"))
            emit(f"| {measurement['tool']} | {label} | {measurement['per_second']:,.1f} | {accepted} | `{name}` | "
                 f"{mine[step]:,.0f} | {mine[step] / measurement['per_second']:,.0f} |")
    emit("")
    emit(f"apple-purchase-receipt-verifier's `Verifier` took {compare['verifier_start_seconds']:.2f} s to start "
         "(it compiles its WebAssembly module, or loads wasmtime's cache); that is outside the timings.")
    emit("")
    emit("What each one checks:")
    emit("")
    emit("- **`openssl smime -verify -attime <creation date>`** (a new process per receipt, as a server shelling "
         "out would run it): the PKCS#7 signature over the content and the certificate chain to the given root at "
         "that instant (with OpenSSL's default S/MIME-signing purpose, which Apple's chain passes). It does not check Apple's marker extensions (1.2.840.113635.100.6.11.1 on the leaf, "
         ".6.2.1 on the intermediate), does not parse the payload, and needs the caller to find the creation date "
         "for `-attime` (without it every pre-2023 Apple receipt fails: `certificate has expired`). The timing is "
         "dominated by process start and OpenSSL's DER decoding of the certificates.")
    emit("- **apple-purchase-receipt-verifier** (`Verifier.verify_receipt`, and `verify_receipt_endpoint` for the "
         "verifyReceipt-shaped request and response): a Rust core compiled to WebAssembly, run by wasmtime-py. "
         "It verifies the signature and the chain to Apple's pinned roots at the receipt's creation date, checks "
         "Apple's leaf and intermediate marker OIDs, and decodes the payload. By its own documentation it checks "
         "no bundle id, environment or device hash (the caller must), and produces no `latest_receipt_info`. A "
         "real offline verifier: the closest alternative.")
    emit("- **app-store-server-library `ReceiptUtility.extract_transaction_id_from_app_receipt`**: base64 + a "
         "pure-Python ASN.1 walk to the first transaction id. Its docstring says it: \"*NO validation* is "
         "performed on the receipt\" — no signature, no chain, nothing but the id to call the App Store Server "
         "API with. It is the fastest path Apple's own library offers, and it is slower than verifying here.")
else:
    emit("Skipped (`BENCH_COMPARE_SECONDS=0`).")
emit("")

emit("## Commands")
emit("")
emit("```")
emit(f"BENCH_LOADTEST_SECONDS={env.get('loadtest_seconds')} BENCH_COMPARE_SECONDS={env.get('compare_seconds')} "
     "scripts/bench")
emit("```")
emit("")
emit("which runs, from the repository root:")
emit("")
emit(f"- suites: `{env.get('suites_command', '').replace(work, '<tmp>')}` (stores baseline `bench` in `Benchmarks/.benchmarkBaselines`), then "
     "`… benchmark baseline read bench --format jmh` for this report and `… benchmark thresholds check bench "
     "--path $PWD/Benchmarks/Thresholds`")
emit(f"- 2-thread scaling: `{env.get('verify_bench_command')}`")
emit(f"- load test: `LOADTEST_DURATION={env.get('loadtest_seconds')} scripts/loadtest`")
emit(f"- comparison: `python3 -m venv {env.get('venv')}`, `pip install apple-purchase-receipt-verifier "
     "app-store-server-library`, `scripts/bench-support/compare.py --receipt small=… --receipt large=… --ca-pem "
     f"ROOT.pem --seconds {env.get('compare_seconds')}`")
emit(f"- end to end: `scripts/bench-e2e --seconds {env.get('e2e_seconds')}`")
emit("- JWS verification (issue 14): `scripts/bench-jws` (not part of `scripts/bench`; see \"JWS verification "
     "(issue 14)\" below)")
emit("- report: `scripts/bench-support/report.py`; thresholds after a deliberate change: "
     "`scripts/bench-support/update-thresholds` (mallocCountTotal from the stored baseline), then commit "
     "`Benchmarks/Thresholds`")
emit("")

previous = read("previous.md", "") or ""
marker = previous.find("\n<!-- analysis -->")
if marker >= 0:
    emit(previous[marker + 1:].rstrip("\n"))
    emit("")

print("\n".join(out))
