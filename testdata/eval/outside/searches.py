"""What measure.py and topics.py share: each row's query run as
`docir search --limit 10` in a store folder, two at a time."""
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def arguments():
    """DOCIR_BINARY STORE_FOLDER SET.jsonl [-v] from the command line: the
    binary, the store folder, the set's path, its rows, and whether -v was
    given."""
    if len(sys.argv) < 4:
        sys.exit(f"usage: {os.path.basename(sys.argv[0])} DOCIR_BINARY STORE_FOLDER SET.jsonl [-v]")
    binary, store, path = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(path) as f:
        rows = [json.loads(line) for line in f]
    return binary, store, path, rows, "-v" in sys.argv[4:]


def hits_of(binary, store, rows):
    """The hits of `docir search --limit 10 -- row["query"]` for each row, in
    order; the searches run in the store folder. Exits on a failed search."""
    # A relative binary path is this folder's, not the store's.
    binary = os.path.abspath(binary) if os.path.exists(binary) else shutil.which(binary) or binary

    def one(r):
        try:
            out = subprocess.run([binary, "search", "--limit", "10", "--", r["query"]],
                                 cwd=store, capture_output=True, text=True)
        except OSError as e:
            sys.exit(f"{binary}: {e.strerror}")
        if out.returncode != 0:
            sys.exit(f"search {r['query']!r}: {out.stderr.strip()}")
        return json.loads(out.stdout)["hits"]

    with ThreadPoolExecutor(2) as ex:
        return list(ex.map(one, rows))
