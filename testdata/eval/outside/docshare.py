#!/usr/bin/env python3
"""Measures a ranking change without building it: each row's query is run as
`docir search --limit 40` in a store folder, and the hits are ranked again
with each document's score multiplied by a factor of the share c of the
query's words that its markdown file holds anywhere (docs/ranking.md, *A
document's share of the query's words*). Prints first / top 3 / MRR@10 for
the ranking as it is and for each factor (c, (1 + c)/2, c²); with
DOCSHARE_IDF=1 the share weighs each word by its idf over the store's files.

Rows are a topic set's (query, relevant), a known-item set's (query, path) or
an agent question set's (question, answer, also). Words are read crudely, as
runs of ASCII letters and digits, lower-cased, a final "s" off words of four
letters or more (not "ss"); link destinations, reference definitions and bare
URLs are left out of a file's words; a question's frame words (how, do, I,
the, …) are left out of its own. It is an estimate for deciding what to
build, not the figure of a build: measure the build with topics.py and the
agent bench.

Usage: docshare.py DOCIR_BINARY STORE_FOLDER SET.jsonl [-v]
-v lists the rows whose first hit changes under `× c`.
"""
import glob
import json
import math
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from topics import page

FRAME = set("how what which why when where who whom whose am is are was were be been do does did have has "
            "had can could shall should will would may might must i me my we us our you your it its there this "
            "that a an the in of to for on at with by from into about".split())


def words(text):
    out = []
    for w in re.findall(r"[A-Za-z0-9]+", text):
        w = w.lower()
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


def query_words(q):
    ws = words(q)
    if q.rstrip().endswith("?") or (ws and ws[0] in FRAME):
        ws = [w for w in ws if w not in FRAME] or ws
    return set(ws)


def file_words(path):
    try:
        with open(path, errors="replace") as f:
            t = f.read()
    except OSError:
        return set()
    t = re.sub(r"\]\([^)]*\)", "] ", t)
    t = re.sub(r"(?m)^\s*\[[^\]]+\]:\s*\S+.*$", "", t)
    t = re.sub(r"https?://\S+", " ", t)
    return set(words(t))


def relevant(r, store):
    if "question" in r:
        return [a.split("#")[0] for a in [r["answer"]] + (r.get("also") or [])]
    if "relevant" in r:
        return r["relevant"]
    p = r["path"][:-3]
    if store.rstrip("/").endswith("pages") and p.startswith("pages/"):
        p = p[len("pages/"):]
    return [p]


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: docshare.py DOCIR_BINARY STORE_FOLDER SET.jsonl [-v]")
    binary, store, path = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    verbose = "-v" in sys.argv[4:]
    with open(path) as f:
        rows = [json.loads(line) for line in f]

    def search(r):
        q = r.get("question") or r["query"]
        out = subprocess.run([binary, "search", "--limit", "40", "--", q], cwd=store, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"search {q!r}: {out.stderr.strip()}")
        return json.loads(out.stdout)["hits"]

    with ThreadPoolExecutor(2) as ex:
        hits_of = list(ex.map(search, rows))

    cache = {}

    def held(h):
        if h["path"] not in cache:
            cache[h["path"]] = file_words(os.path.join(store, h["path"]))
        return cache[h["path"]] | set(words(h["title"]))

    idf = None
    if os.environ.get("DOCSHARE_IDF"):
        files = [p for p in glob.glob(os.path.join(store, "**", "*.md"), recursive=True) if "/.docir/" not in p]
        df = {}
        for p in files:
            for w in file_words(p):
                df[w] = df.get(w, 0) + 1
        idf = lambda w: 1 + math.log(len(files) / (df.get(w, 0) + 1))

    def share(q, ws):
        if not q:
            return 1.0
        if idf:
            return sum(idf(w) for w in q & ws) / sum(idf(w) for w in q)
        return len(q & ws) / len(q)

    factors = {"as it is": lambda c: 1.0, "× c": lambda c: c, "× (1 + c)/2": lambda c: (1 + c) / 2, "× c²": lambda c: c * c}
    n = len(rows)
    for name, g in factors.items():
        first = top3 = 0
        mrr = 0.0
        for r, hits in zip(rows, hits_of):
            q = query_words(r.get("question") or r["query"])
            ranked = sorted(hits, key=lambda h: -h["score"] * g(share(q, held(h))))
            ids = [page(h["id"]) for h in ranked[:10]]
            rel = {page(x) for x in relevant(r, store)}
            k = next((i for i, x in enumerate(ids) if x in rel), None)
            first += k == 0
            top3 += k is not None and k < 3
            mrr += 1 / (k + 1) if k is not None else 0
        print(f"{os.path.basename(path)} {name:12s} first {first / n:.3f} ({first}), top 3 {top3 / n:.3f}, MRR@10 {mrr / n:.3f}")
    if verbose:
        for r, hits in zip(rows, hits_of):
            if not hits:
                continue
            q = query_words(r.get("question") or r["query"])
            after = max(hits, key=lambda h: h["score"] * share(q, held(h)))
            if after["id"] != hits[0]["id"]:
                print(f"  {(r.get('question') or r['query'])[:80]!r}: {hits[0]['id']} -> {after['id']} "
                      f"(c {share(q, held(after)):.2f}; relevant {relevant(r, store)[:1]})")


if __name__ == "__main__":
    main()
