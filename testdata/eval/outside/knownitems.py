#!/usr/bin/env python3
"""Known-item query sets for a corpus that is not in ../shared, built the way
../shared/eval/README.md describes its own:

  spans   ten consecutive words of one section's prose (inline code, link
          targets and emphasis markers removed), words that occur together in
          no other section of the corpus -> that document and section;
  titles  a page's front-matter title, unique in the corpus, of 4+ words -> the page;
  descs   a page's front-matter description, unique in the corpus -> the page.

Usage: knownitems.py ROOT OUT_PREFIX [SEED]
writes OUT_PREFIX.spans.jsonl (250 rows), OUT_PREFIX.titles.jsonl (every
such title) and OUT_PREFIX.descs.jsonl (250 rows); paths are relative to ROOT.
Standard library only; the same ROOT and SEED give the same rows.
"""
import collections
import json
import os
import random
import re
import sys


def front_matter(text):
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    if not m:
        return {}, text
    d = {}
    for line in m.group(1).split("\n"):
        mm = re.match(r"^(title|description):\s*(.*)$", line)
        if mm:
            v = mm.group(2).strip()
            if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
                v = v[1:-1]
            d[mm.group(1)] = v
    return d, text[m.end():]


def slug(h, seen):
    """GitHub's anchor of a heading as rendered (docir's address.Slug): a
    {#id} attribute is the id; otherwise a link as its text, lower case,
    emphasis and code markers dropped (an underscore inside a word is kept), punctuation other than - and _ dropped, spaces to -,
    a repeat gets -1, -2."""
    m = re.search(r"\{#([^}\s]+)\}\s*$", h)
    if m:
        return m.group(1)
    h = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", h)  # a link reads as its text
    h = re.sub(r"(\*\*|__|`)", "", h)
    h = re.sub(r"(?<!\w)([*_])(?=\S)(.+?)(?<=\S)\1(?!\w)", r"\2", h)  # _emphasis_, *emphasis*
    s = h.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s).replace(" ", "-")
    n = seen[s]
    seen[s] += 1
    return s if n == 0 else f"{s}-{n}"


def prose(line):
    line = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", line)
    line = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", line)
    line = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", line)
    line = re.sub(r"`[^`]*`", " ", line)
    line = re.sub(r"<[^>]+>", " ", line)
    line = re.sub(r"[*_]{1,3}", "", line)
    return line


def sections_of(body):
    """(slug, heading, paragraphs of words) per section; the lead has slug None.
    Code fences, tables, quotes, list items and reference definitions are not
    prose for this purpose."""
    seen = collections.Counter()
    cur, paras, words, fence, out = (None, None), [], [], False, []

    def flush():
        if words:
            paras.append(list(words))
            words.clear()

    for line in body.split("\n"):
        if re.match(r"^\s*(```|~~~)", line):
            fence = not fence
            flush()
            continue
        if fence:
            continue
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            flush()
            out.append((cur, paras))
            paras = []
            cur = (slug(m.group(2), seen), m.group(2))
            continue
        if (not line.strip() or line.lstrip().startswith(("|", ">", "[", "<!--"))
                or re.match(r"^\s*([-*+]|\d+\.)\s", line)):
            flush()
            continue
        words.extend(prose(line).split())
    flush()
    out.append((cur, paras))
    return out


def norm(ws):
    return " ".join(re.sub(r"[^\w]", "", w.lower()) for w in ws)


def main():
    root, out = sys.argv[1], sys.argv[2]
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    docs = sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, fs in os.walk(root) for f in fs if f.endswith(".md"))
    paragraphs = []  # (path, slug, heading, words)
    titles, descs = collections.defaultdict(list), collections.defaultdict(list)
    for p in docs:
        with open(os.path.join(root, p), encoding="utf-8", errors="replace") as f:
            meta, body = front_matter(f.read())
        if meta.get("title"):
            titles[meta["title"]].append(p)
        if meta.get("description"):
            descs[meta["description"]].append(p)
        for (sl, h), ps in sections_of(body):
            paragraphs += [(p, sl, h, para) for para in ps if len(para) >= 12]
    text = collections.defaultdict(str)
    for p, sl, h, para in paragraphs:
        text[(p, sl)] += " " + norm(para) + " "
    spans = []
    cand = list(paragraphs)
    rnd.shuffle(cand)
    for p, sl, h, para in cand:
        if len(spans) >= 250:
            break
        i = rnd.randrange(0, len(para) - 10)
        span = para[i:i + 10]
        n = " " + norm(span) + " "
        if sl is None or sum(1 for v in text.values() if n in v) != 1:
            continue
        spans.append({"kind": "section", "query": " ".join(span), "path": p, "heading": h, "slug": sl})

    def unique(d, kind, min_words):
        return [{"kind": kind, "query": q, "path": ps[0]} for q, ps in sorted(d.items())
                if len(ps) == 1 and len(q.split()) >= min_words]

    t, ds = unique(titles, "title", 4), unique(descs, "doc", 1)
    rnd.shuffle(ds)
    for name, rows in (("spans", spans), ("titles", t), ("descs", ds[:250])):
        with open(f"{out}.{name}.jsonl", "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
    print(f"{len(spans)} spans, {len(t)} titles, {min(len(ds), 250)} descriptions")


if __name__ == "__main__":
    main()
