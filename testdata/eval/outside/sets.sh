#!/usr/bin/env bash
# sets.sh DOCIR CORPORA STORES [-v]
#
# Indexes every corpus it finds and runs every search set on it with DOCIR, one line per set
# (measure.py for known items, topics.py for topic queries, titles.py for every page's own
# title on every store; -v lists each miss):
#
#   CORPORA/hugo-docs, CORPORA/rfcs, CORPORA/tldr    ../shared/corpora/*.tar.gz unpacked
#   CORPORA/ps, CORPORA/kep, ...                     corpora.sh CORPORA (the outside corpora)
#
# A store is made once per corpus in STORES/NAME (remove STORES to index again, say after a
# change to the markdown rules or the store format); known-item sets of the outside corpora
# are built with knownitems.py into STORES/sets. A corpus that is absent is skipped.
set -euo pipefail

if [ $# -lt 3 ]; then
	echo "usage: sets.sh DOCIR CORPORA STORES [-v]" >&2
	exit 2
fi
docir=$(realpath "$1")
corpora=$(realpath "$2")
stores=$(realpath -m "$3")
verbose=${4:-}
here=$(dirname "$(realpath "$0")")
eval_dir=$(dirname "$here")
shared=${DOCIR_SHARED:-$(realpath -m "$eval_dir/../../../shared")}/eval

store() { # NAME FOLDER: the store of FOLDER, indexed on first use
	local s=$stores/$1
	if [ ! -d "$s" ]; then
		mkdir -p "$s"
		(cd "$s" && "$docir" index "$2" >/dev/null 2>&1) || { echo "$1: docir index $2 failed" >&2; rm -rf "$s"; return 1; }
	fi
	echo "$s"
}

known() { # NAME FOLDER SET...: known-item sets
	local name=$1 folder=$2
	shift 2
	[ -d "$folder" ] || return 0
	local s
	s=$(store "$name" "$folder")
	for set in "$@"; do
		[ -s "$set" ] && python3 "$here/measure.py" "$docir" "$s" "$set" $verbose
	done
	return 0
}

topics() { # NAME FOLDER SET
	[ -d "$2" ] || return 0
	local s
	s=$(store "$1" "$2")
	python3 "$here/topics.py" "$docir" "$s" "$3" $verbose
}

known hugo "$corpora/hugo-docs" "$shared/hugo-docs.jsonl"
known rfcs "$corpora/rfcs" "$shared/rust-rfcs.sections.jsonl"
known tldr "$corpora/tldr" "$shared/tldr-pages.docs.jsonl"
topics hugo "$corpora/hugo-docs" "$eval_dir/hugo-topics.jsonl"
topics rfcs "$corpora/rfcs" "$eval_dir/rfc-topics.jsonl"
topics tldren "$corpora/tldr/pages" "$eval_dir/tldr-topics.jsonl"

# The outside corpora: known items built from the pages (the same seed gives the same rows),
# then their topic sets.
mkdir -p "$stores/sets"
for name in ps kep argo eips swift; do
	[ -d "$corpora/$name" ] || continue
	[ -s "$stores/sets/$name.spans.jsonl" ] || python3 "$here/knownitems.py" "$corpora/$name" "$stores/sets/$name" >/dev/null
	known "$name" "$corpora/$name" "$stores/sets/$name".{spans,titles,descs}.jsonl
done
for set in "$here"/*-topics.jsonl; do
	name=$(basename "$set" -topics.jsonl)
	[ "$name" = eips ] || [ -d "$corpora/$name" ] || continue
	topics "$name" "$corpora/$name" "$set"
done

# Every page's own title, on every store made above (titles.py): is the page first?
for s in "$stores"/*/; do
	[ "$(basename "$s")" = sets ] || python3 "$here/titles.py" "$docir" "$s" $verbose
done
