#!/usr/bin/env python3
"""Runs a known-item set (knownitems.py's rows) as `docir search --limit 10`
in a store folder and prints recall@1, recall@10, MRR@10 and, for span rows,
section accuracy@1 (the top hit's matched_section is the row's section).

Usage: measure.py DOCIR_BINARY STORE_FOLDER SET.jsonl [-v]
-v also lists each miss: its rank (None: not in the top 10), whether the
section was right, the query, what was wanted and what came first.
"""

from searches import arguments, hits_of


def main():
    binary, store, path, rows, verbose = arguments()

    def judged(r, hits):
        rank = next((i for i, h in enumerate(hits) if h["path"] == r["path"]), None)
        section = None
        if rank == 0 and "slug" in r:
            section = hits[0]["matched_section"] == hits[0]["id"] + "#" + r["slug"]
        return r, rank, section, hits[0]["matched_section"] if hits else ""

    res = [judged(r, h) for r, h in zip(rows, hits_of(binary, store, rows))]
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
