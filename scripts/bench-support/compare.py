#!/usr/bin/env python3
"""What a user would use instead of this package, measured on the same receipts and machine.

Run by scripts/bench inside a throwaway virtualenv holding the two PyPI packages measured here:

  compare.py --receipt small=PATH --receipt large=PATH --ca-pem ROOT.pem --seconds 5 > compare.json

For each receipt it measures, one after the other on one thread:
  - `openssl smime -verify` (a new process per receipt, as a server that shells out would run it), with the
    chain checked at the receipt's creation date (`-attime`), since Apple's leaf certificates have expired;
  - apple-purchase-receipt-verifier: `Verifier.verify_receipt(base64)` and `verify_receipt_endpoint(body)`
    (the verifyReceipt-shaped request and response), one `Verifier` made before timing;
  - app-store-server-library: `ReceiptUtility.extract_transaction_id_from_app_receipt(base64)`.
Each result says what the tool checked and whether it accepted the receipt. Output: one JSON object.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
from importlib import metadata


def rate(call, seconds):
    """Calls `call` repeatedly for about `seconds` (after a short warm-up); returns calls per second."""
    warmup_end = time.perf_counter() + min(0.5, seconds / 10)
    while time.perf_counter() < warmup_end:
        call()
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        call()
        count += 1
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start), count


def measure_openssl(path, ca_pem, attime, seconds):
    command = [
        "openssl", "smime", "-verify", "-inform", "DER", "-in", path, "-CAfile", ca_pem,
        "-attime", str(attime), "-out", os.devnull,
    ]
    accepted = subprocess.run(command, capture_output=True).returncode == 0
    per_second, count = rate(lambda: subprocess.run(command, capture_output=True), seconds)
    return {
        "tool": "openssl smime -verify (process per receipt)",
        "command": " ".join(command).replace(path, "RECEIPT").replace(ca_pem, "ROOT.pem"),
        "accepted": accepted,
        "per_second": per_second,
        "calls": count,
    }


def measure_aprv(verifier, environment, b64, seconds):
    result = verifier.verify_receipt(b64)
    verify_rate, verify_count = rate(lambda: verifier.verify_receipt(b64), seconds)
    body = json.dumps({"receipt-data": b64})
    answer = json.loads(verifier.verify_receipt_endpoint(environment, body))
    endpoint_rate, endpoint_count = rate(lambda: verifier.verify_receipt_endpoint(environment, body), seconds)
    return [
        {
            "tool": "apple-purchase-receipt-verifier verify_receipt",
            "accepted": bool(result.verified),
            "detail": None if result.verified else f"{result.failure.reason}: {result.failure.message}",
            "purchases": len(result.payload.in_app) if result.verified else None,
            "per_second": verify_rate,
            "calls": verify_count,
        },
        {
            "tool": "apple-purchase-receipt-verifier verify_receipt_endpoint",
            "accepted": answer.get("status") == 0,
            "detail": f"status {answer.get('status')}",
            "per_second": endpoint_rate,
            "calls": endpoint_count,
        },
    ]


def measure_receipt_utility(utility, b64, seconds):
    transaction = utility.extract_transaction_id_from_app_receipt(b64)
    per_second, count = rate(lambda: utility.extract_transaction_id_from_app_receipt(b64), seconds)
    return {
        "tool": "app-store-server-library ReceiptUtility.extract_transaction_id_from_app_receipt",
        "accepted": transaction is not None,
        "detail": f"transaction id {transaction}",
        "per_second": per_second,
        "calls": count,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--receipt", action="append", required=True, help="NAME=PATH of a DER receipt")
    parser.add_argument("--ca-pem", required=True, help="the root the chains end at, PEM (for openssl)")
    parser.add_argument("--extra-root-der", help="a root to add to the Python verifier's pinned roots (fixtures)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    arguments = parser.parse_args()

    from apple_purchase_receipt_verifier import Config, Environment, Verifier
    from appstoreserverlibrary.receipt_utility import ReceiptUtility

    started = time.perf_counter()
    if arguments.extra_root_der:
        # Config(roots=…) replaces the three pinned Apple roots, so they are not kept here: fixtures chain to
        # the project's test root only.
        with open(arguments.extra_root_der, "rb") as handle:
            verifier = Verifier(Config(roots=[handle.read()]))
    else:
        verifier = Verifier(Config())
    verifier_start_seconds = time.perf_counter() - started
    utility = ReceiptUtility()

    results = []
    for entry in arguments.receipt:
        name, path = entry.split("=", 1)
        with open(path, "rb") as handle:
            der = handle.read()
        b64 = base64.b64encode(der).decode("ascii")
        decoded = verifier.verify_receipt(b64)
        if not decoded.verified or decoded.payload.receipt_creation_date_ms is None:
            print(f"compare: {name}: the Python verifier did not accept it ({decoded.failure}); "
                  "no creation date for openssl -attime", file=sys.stderr)
            attime = int(time.time())
        else:
            attime = decoded.payload.receipt_creation_date_ms // 1000
        environment = decoded.payload.environment if decoded.verified and decoded.payload.environment else (
            Environment.SANDBOX)
        measurements = [measure_openssl(path, arguments.ca_pem, attime, arguments.seconds)]
        measurements += measure_aprv(verifier, environment, b64, arguments.seconds)
        measurements.append(measure_receipt_utility(utility, b64, arguments.seconds))
        for measurement in measurements:
            print(f"compare: {name}: {measurement['tool']}: {measurement['per_second']:.1f}/s "
                  f"(accepted: {measurement['accepted']})", file=sys.stderr)
        results.append({"receipt": name, "path": path, "bytes": len(der), "attime": attime,
                        "measurements": measurements})

    versions = {package: metadata.version(package) for package in (
        "apple-purchase-receipt-verifier", "app-store-server-library", "wasmtime", "asn1")}
    openssl_version = subprocess.run(["openssl", "version"], capture_output=True, text=True).stdout.strip()
    json.dump({
        "python": sys.version.split()[0],
        "openssl_cli": openssl_version,
        "packages": versions,
        "verifier_start_seconds": verifier_start_seconds,
        "seconds_per_measurement": arguments.seconds,
        "results": results,
    }, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
