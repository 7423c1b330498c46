#!/usr/bin/env python3
"""Writes mint requests for COUNT distinct receipts into a folder, for the end-to-end benchmarks.

  mint-corpus.py COUNT PURCHASES REQUEST_DIR

Each request is fixtures/descriptions/valid-sha256.json (one chain: the test leaf, intermediate and root)
with PURCHASES in-app records cycled from that description's own, every transaction id distinct across the
whole corpus, and no "expected" section. `mint-receipt --output-dir DIR REQUEST_DIR/*.json` then mints them;
with 14 purchases each receipt is about 6 KB, like the real `tpi-weeka-sandbox-g5-2025`.
"""

import copy
import json
import os
import sys

count, purchases, folder = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(root, "fixtures", "descriptions", "valid-sha256.json"), encoding="utf-8") as handle:
    template = json.load(handle)
template.pop("expected", None)
records = template["receipt"]["inAppPurchases"]
os.makedirs(folder, exist_ok=True)
for index in range(count):
    request = copy.deepcopy(template)
    receipt = request["receipt"]
    receipt["inAppPurchases"] = []
    for slot in range(purchases):
        record = copy.deepcopy(records[slot % len(records)])
        # Undocumented extra attributes make a record half as large again as Apple's; real ones carry none.
        record.pop("extraAttributes", None)
        identifier = str(3_000_000_000_000_000 + index * 1000 + slot)
        record["transactionID"] = identifier
        record["originalTransactionID"] = identifier
        receipt["inAppPurchases"].append(record)
    with open(os.path.join(folder, f"corpus-{index:05d}.json"), "w", encoding="utf-8") as handle:
        json.dump(request, handle)
