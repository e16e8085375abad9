#!/usr/bin/env bash
# qmd-baseline.sh SET.jsonl CORPUS_DIR INDEX_NAME
#
# Measures qmd's BM25 search (`qmd search`, no LLM, no embeddings) on one topic set
# of this folder, as the baseline docir's search is compared against. See README.md.
#
#   SET.jsonl   rows {"query", "relevant": [id...], "best": "id" or "id#slug", "kind"}
#   CORPUS_DIR  the folder whose paths the ids are relative to (an id is a path below
#               it without ".md"), e.g. hugo-docs/, rfcs/ or tldr/pages/
#   INDEX_NAME  qmd index and collection name (created on first use)
#
# Environment:
#   QMD    the qmd command, e.g.
#          "env HOME=/tmp/q/home XDG_CACHE_HOME=/tmp/q/cache /tmp/q/node_modules/.bin/node
#           /tmp/q/node_modules/@tobilu/qmd/dist/cli/qmd.js"
#   DOCIR  a docir binary, used only for `docir index` and `docir get` to find the line
#          span of each best section (never `docir search`)
#   OUT    folder for the raw results (default: a temporary folder, printed)
#
# Prints one JSON object: rows, no_results (queries qmd returned nothing for), R@1, R@3,
# MRR@10 (a relevant page among qmd's top 10),
# best_page@1, and section figures derived from qmd's snippet line (qmd reports a file
# and the line its snippet starts at, not a section).
set -euo pipefail

if [ $# -ne 3 ]; then
	echo "usage: qmd-baseline.sh SET.jsonl CORPUS_DIR INDEX_NAME" >&2
	exit 2
fi
set_file=$(realpath "$1")
corpus=$(realpath "$2")
index=$3
: "${QMD:?set QMD to the qmd command (see the header of this script)}"
: "${DOCIR:?set DOCIR to a docir binary (see the header of this script)}"
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
echo "raw results in $out" >&2

# 1. Index the corpus with qmd (a collection named like the index).
collections=$($QMD --index "$index" collection list 2>/dev/null || true)
if ! grep -q "^$index " <<<"$collections"; then
	$QMD --index "$index" collection add "$corpus" --name "$index" >&2
fi

# 2. Run every query: top 10, mapped to ids (path below the collection, no ".md").
: >"$out/hits.jsonl"
while IFS= read -r row; do
	query=$(jq -r .query <<<"$row")
	hits=$($QMD --index "$index" search --json -n 10 "$query" 2>"$out/stderr.txt" || echo '[]')
	jq -c --argjson row "$row" --arg prefix "qmd://$index/" '
		{row: $row, hits: [.[] | {id: (.file | ltrimstr($prefix) | sub("\\?.*$"; "") | sub("\\.md$"; "")), line: .line}]}
	' <<<"$hits" >>"$out/hits.jsonl"
done <"$set_file"

# 3. Line span of every best section, from docir's own sections (docir get).
ws=$(mktemp -d)
(cd "$ws" && HOME="$ws" "$DOCIR" index "$corpus" >/dev/null 2>&1)
: >"$out/spans.jsonl"
jq -r 'select(.best | contains("#")) | .best' "$set_file" | sort -u | while IFS= read -r addr; do
	id=${addr%%#*}
	body=$(cd "$ws" && HOME="$ws" "$DOCIR" get "$addr" --format json | jq -r .body)
	jq -nc --rawfile f "$corpus/$id.md" --arg b "$body" --arg a "$addr" '
		(($f | split($b))[0] | split("\n") | length) as $start
		| {addr: $a, start: $start, end: ($start + ($b | split("\n") | length) - 1)}
	' >>"$out/spans.jsonl"
done
rm -rf "$ws"

# 4. Score.
jq -s --slurpfile spans "$out/spans.jsonl" '
	(reduce $spans[] as $s ({}; .[$s.addr] = $s)) as $span
	| map(
		.row as $r
		| [.hits[].id] as $ids
		| ([range(0; $ids | length) as $i | select(($r.relevant | index($ids[$i])) != null) | $i] | first // null) as $rank
		| ($r.best | split("#")[0]) as $bestdoc
		| {
			kind: $r.kind,
			empty: (($ids | length) == 0),
			r1: (if $rank == 0 then 1 else 0 end),
			r3: (if $rank != null and $rank < 3 then 1 else 0 end),
			rr: (if $rank == null then 0 else 1 / ($rank + 1) end),
			best1: (if ($ids[0] // "") == $bestdoc then 1 else 0 end),
			has_section: ($r.best | contains("#")),
			section1: (
				if ($r.best | contains("#")) and ($ids[0] // "") == $bestdoc then
					($span[$r.best]) as $s | (.hits[0].line) as $l
					| (if $s != null and $l >= $s.start and $l <= $s.end then 1 else 0 end)
				else 0 end)
		})
	| def figures: {rows: length,
		no_results: (map(select(.empty)) | length),
		"R@1": (map(.r1) | add / length * 1000 | round / 1000),
		"R@3": (map(.r3) | add / length * 1000 | round / 1000),
		"MRR@10": (map(.rr) | add / length * 1000 | round / 1000),
		"best_page@1": (map(.best1) | add / length * 1000 | round / 1000)};
	figures
	+ {section_rows: (map(select(.has_section)) | length),
	   "best_section@1_derived": (map(select(.has_section)) | if length == 0 then null
		else (map(.section1) | add / length * 1000 | round / 1000) end)}
	+ {by_kind: (group_by(.kind) | map({key: .[0].kind, value: figures}) | from_entries)}
' "$out/hits.jsonl"
