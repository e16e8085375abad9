#!/usr/bin/env python3
"""Issue 22's "a search for a page's exact title returns it first, however
common its words", checked on a store: every title that only one page of
the store has (as docir titles it: front matter, else the first heading,
else the file's name; compared without case) is searched as typed, `docir
search --limit 10 -- TITLE`, and counted first when that page is the first
hit. Unlike knownitems.py's titles (front-matter titles of 4+ words), every
title counts, one word or many, from any corpus docir can index.

Usage: titles.py DOCIR_BINARY STORE_FOLDER [-v]
prints one line: the store, its pages, its unique titles and how many come
first; -v also lists each miss (the title, its page, the first three hits).
A store of more than 1,000 pages is checked on its first 1,000 by id (the
most `docir query` lists), each title asked of the whole store (`docir
query 'title:"TITLE"'`) whether another page has it; the line says so.
"""
import collections
import json
import os
import subprocess
import sys

from searches import hits_of


def alone(binary, store, title):
    """Whether one page only of the store has title (a title holding a quote
    cannot be asked, and is left out)."""
    if '"' in title:
        return False
    out = subprocess.run([binary, "query", f'title:"{title}"', "--limit", "2", "--format", "json"],
                         cwd=store, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"query title:{title!r}: {out.stderr.strip()}")
    return len(json.loads(out.stdout)["hits"]) == 1


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: titles.py DOCIR_BINARY STORE_FOLDER [-v]")
    binary, store = os.path.abspath(sys.argv[1]), sys.argv[2]
    verbose = "-v" in sys.argv[3:]
    out = subprocess.run([binary, "query", "path:*", "--limit", "1000", "--format", "json"],
                         cwd=store, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"query path:*: {out.stderr.strip()}")
    pages = json.loads(out.stdout)["hits"]
    count = collections.Counter(p["title"].strip().lower() for p in pages)
    rows = [{"query": p["title"].strip(), "id": p["id"]} for p in pages
            if p["title"].strip() and count[p["title"].strip().lower()] == 1]
    if len(pages) == 1000:
        rows = [r for r in rows if alone(binary, store, r["query"])]
    misses = []
    for r, hits in zip(rows, hits_of(binary, store, rows)):
        if not hits or hits[0]["id"] != r["id"]:
            misses.append((r, [h["id"] for h in hits[:3]]))
    first = len(rows) - len(misses)
    part = " (the first 1,000 pages by id)" if len(pages) == 1000 else ""
    # A title of punctuation alone (tldr's `!`, `[[`) is no query search reads.
    wordless = sum(1 for r, _ in misses if not any(c.isalnum() for c in r["query"]))
    print(f"{os.path.basename(os.path.normpath(store))} titles: {len(pages)} pages{part}, "
          f"{len(rows)} unique titles, {first} first ({100 * first / max(len(rows), 1):.1f}%)"
          + (f"; {wordless} of the misses hold no word" if wordless else ""))
    if verbose:
        for r, ids in misses:
            print(f"  {r['query']!r} | {r['id']} | first {ids}")


if __name__ == "__main__":
    main()
