#!/usr/bin/env bash
# agents.sh CORPORA OUT [NAME...]
#
# Runs `docir-bench -agent` (built from this checkout, as the bench builds docir from it) on
# the Hugo docs and on each outside agent set whose corpus is in CORPORA/NAME (corpora.sh
# CORPORA), writing each report to OUT/NAME.txt and one summary line per set to stdout: found,
# found by the first get, calls per question and bytes read ÷ the answer files, for the
# context → get flow. With NAMEs, only those sets (hugo is the shared Hugo docs).
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: agents.sh CORPORA OUT [NAME...]" >&2
	exit 2
fi
corpora=$(realpath "$1")
out=$(realpath -m "$2")
shift 2
here=$(dirname "$(realpath "$0")")
root=$(git -C "$here" rev-parse --show-toplevel)
mkdir -p "$out"
bench=$out/docir-bench
(cd "$root" && go build -o "$bench" ./cmd/docir-bench)

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	names=(hugo)
	for set in "$here"/*-agent.jsonl; do
		names+=("$(basename "$set" -agent.jsonl)")
	done
fi

# The column of the context → get flow (the second) of a row of the report.
column() { grep -m1 -E "^\| (\*\*)?$1(\*\*)? \|" "$2" | awk -F'|' '{gsub(/^ +| +$|\*/, "", $4); print $4}'; }

for name in "${names[@]}"; do
	if [ "$name" = hugo ]; then
		args=(-agent)
	elif [ -d "$corpora/$name" ]; then
		args=(-agent -agent-corpus "$corpora/$name" -questions "$here/$name-agent.jsonl")
	else
		continue
	fi
	report=$out/$name.txt
	(cd "$root" && "$bench" "${args[@]}") >"$report" 2>&1 || { echo "$name: failed, see $report" >&2; continue; }
	echo "$name: found $(column found "$report"), first get $(column 'found by the first get' "$report"), calls $(column 'calls per question' "$report"), $(column 'bytes read ÷ answer files' "$report") the answer files"
done
