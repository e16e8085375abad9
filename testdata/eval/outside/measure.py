#!/usr/bin/env python3
"""Runs a known-item set (knownitems.py's rows) as `docir search --limit 10`
in a store folder and prints recall@1, recall@10, MRR@10 and, for span rows,
section accuracy@1 (the top hit's matched_section is the row's section).

Usage: measure.py DOCIR_BINARY STORE_FOLDER SET.jsonl [-v]
-v also lists each miss: its rank (None: not in the top 10), whether the
section was right, the query, what was wanted and what came first.
"""
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def main():
    binary, store, path = sys.argv[1], sys.argv[2], sys.argv[3]
    # The searches run in the store folder: a relative path is this one's.
    binary = os.path.abspath(binary) if os.path.exists(binary) else shutil.which(binary) or binary
    verbose = "-v" in sys.argv[4:]
    with open(path) as f:
        rows = [json.loads(line) for line in f]

    def one(r):
        out = subprocess.run([binary, "search", "--limit", "10", "--", r["query"]],
                             cwd=store, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"search {r['query']!r}: {out.stderr.strip()}")
        hits = json.loads(out.stdout)["hits"]
        rank = next((i for i, h in enumerate(hits) if h["path"] == r["path"]), None)
        section = None
        if rank == 0 and "slug" in r:
            section = hits[0]["matched_section"] == hits[0]["id"] + "#" + r["slug"]
        return r, rank, section, hits[0]["matched_section"] if hits else ""

    with ThreadPoolExecutor(2) as ex:
        res = list(ex.map(one, rows))
    n = len(rows)
    r1 = sum(1 for _, k, _, _ in res if k == 0)
    r10 = sum(1 for _, k, _, _ in res if k is not None)
    mrr = sum(1 / (k + 1) for _, k, _, _ in res if k is not None) / n
    line = f"{path.split('/')[-1]}: {n} rows, recall@1 {r1 / n:.3f} ({r1}), recall@10 {r10 / n:.3f}, MRR@10 {mrr:.3f}"
    if any("slug" in r for r in rows):
        sec = sum(1 for _, _, s, _ in res if s)
        line += f", section accuracy@1 {sec / n:.3f} ({sec})"
    print(line)
    if verbose:
        for r, k, s, top in res:
            if k != 0 or s is False:
                print(" ", k, s, r["query"][:90], "| want", r["path"], r.get("slug", ""), "| got", top)


if __name__ == "__main__":
    main()
