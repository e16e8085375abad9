#!/usr/bin/env python3
"""Runs a topic-query set (rows as ../README.md describes: query, relevant,
best, kind) as `docir search --limit 10` in a store folder and prints the
figures the README names: a relevant page first (R@1), one in the top 3
(R@3), MRR@10, and the best section first (the top hit's matched_section is
the row's `best`, or its document when `best` is a page).

Ids are compared with a bundle's trailing /index or /_index taken off.

Usage: topics.py DOCIR_BINARY STORE_FOLDER SET.jsonl [-v]
-v also lists each row whose first hit is not relevant: the rank of the
first relevant page (None: not in the top 10), the query, the first three
hits and the first two relevant pages.
"""
import os

from searches import arguments, hits_of


def page(address):
    """An id or address with a bundle's trailing /index or /_index taken off
    (DESIGN.md: a bundle's index has its folder's id; the sets name the file)."""
    doc, sep, slug = address.partition("#")
    for tail in ("/_index", "/index"):
        if doc.endswith(tail):
            doc = doc[: -len(tail)]
    return doc + sep + slug


def main():
    binary, store, path, rows, verbose = arguments()

    def judged(r, hits):
        ids = [page(h["id"]) for h in hits]
        relevant = {page(x) for x in r["relevant"]}
        rank = next((i for i, x in enumerate(ids) if x in relevant), None)
        best = False
        if hits:
            b = page(r["best"])
            best = page(hits[0]["matched_section"]) == b if "#" in b else ids[0] == b
        return r, rank, best, ids

    res = [judged(r, h) for r, h in zip(rows, hits_of(binary, store, rows))]
    n = len(rows)
    first = sum(1 for _, k, _, _ in res if k == 0)
    top3 = sum(1 for _, k, _, _ in res if k is not None and k < 3)
    mrr = sum(1 / (k + 1) for _, k, _, _ in res if k is not None) / n
    best = sum(1 for _, _, b, _ in res if b)
    print(f"{os.path.basename(path)}: {n} rows, R@1 {first / n:.2f} ({first}), R@3 {top3 / n:.2f} ({top3}), "
          f"MRR@10 {mrr:.3f}, best section first {best / n:.2f} ({best})")
    if verbose:
        for r, k, _, ids in res:
            if k != 0:
                print(f"  {k} {r['query']!r} | first {ids[:3]} | relevant {r['relevant'][:2]}")


if __name__ == "__main__":
    main()
