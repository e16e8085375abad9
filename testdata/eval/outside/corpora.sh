#!/usr/bin/env bash
# corpora.sh DEST [NAME...]
#
# Extracts the outside corpora that ../README.md lists, each at the commit its sets were
# written on, as DEST/NAME: the markdown files only, laid out so that an id of the sets is a
# path below DEST/NAME (index that folder). With no NAME, every corpus below.
#
# Each corpus is read from a git directory holding its commit: $MIRROR/OWNER+REPO/repo when
# MIRROR is set and that folder exists (the layout the maintainers' `fetch` tool leaves),
# else a blobless clone from GitHub into DEST/.git/OWNER+REPO. Only the markdown blobs are
# read, so a snapshot whose large files are missing still serves.
set -euo pipefail

# name  owner/repo  commit  path in the repository  leading path parts dropped
corpora='
ps          MicrosoftDocs/PowerShell-Docs         27138b21b41de3e2b43cfcac4a56861ca419d5eb reference/docs-conceptual 0
ps          MicrosoftDocs/PowerShell-Docs         27138b21b41de3e2b43cfcac4a56861ca419d5eb reference/7.6             0
kep         kubernetes/enhancements               64765b4b02389318f2113119dd9e491479f978a0 keps                      0
argo        argoproj/argo-cd                      37ee0097cf851bc2dd7665fc081bbce61a7e836e docs                      0
vue         vuejs/docs                            01e098a9                                 src                       0
redis       redis/redis-doc                       1044224                                  docs                      0
redis       redis/redis-doc                       1044224                                  commands                  0
vscode      Moazzem-Hossain-pixel/vscode-docs     5c7fbb33                                 docs                      1
helm        helm/helm-www                         227f41447a683545325e87aedf10c67096d11004 docs                      0
traefik     traefik/traefik                       fd5a576df2e8aeb0bfc8a96b6ef6e60a61f7ec0a docs/content              0
cargo       rust-lang/cargo                       af373f761aa4e42b093c2e453078fd73c8ce54dd doc/book/src              0
goreleaser  goreleaser/goreleaser                 5bc053e067e127f0167cf6b9f1e3998734e4603d www/docs                  0
electron    electron/electron                     96f3996d8d3ce6e2fcfb86326fc4b953b53936fb docs                      1
docker      Codennnn/translated-docker-docs       1178d3fa664cb27f72458c0008c9e77d562ca5a0 content                   1
node        Njeru254/OpenAI                       babe6d7c84b9cefe0b9bf9f1929d19c80cc30c7e doc/api                   0
svelte      sveltejs/svelte                       15720b16a5ef33e3e1f4301c77b94ec375070e73 documentation/docs        -svelte
svelte      sveltejs/kit                          aa810a04146b98b77592f7b384347140d29ff599 documentation/docs        -kit
istio       Aias00/istio.io                       d05e3aafda7314c4819579c36d2a546230a8f9ee content/en/docs           3
eips        ethereum/EIPs                         f767a1e8078e17c9b381a91d35a09492189ede1b EIPS                      0
swift       apple/swift-evolution                 a4e4e8cf4f6ae98737bd45e023e18a2f299a700f proposals                 0
obsidian    obsidianmd/obsidian-help              fa179e91e86eaff5859226cc045c81000d64e3cd en                        1
prometheus  prometheus/prometheus                 d15adb9ad7e5d9fbde3a9a8f30200593a5a14d86 .                         0
'

if [ $# -lt 1 ]; then
	echo "usage: corpora.sh DEST [NAME...]   (names: $(awk 'NF {print $1}' <<<"$corpora" | sort -u | tr '\n' ' '))" >&2
	exit 2
fi
dest=$(realpath -m "$1")
shift
want=" $* "

gitdir() { # owner/repo: a git directory that holds its history
	local slug=${1/\//+}
	if [ -n "${MIRROR:-}" ] && [ -d "$MIRROR/$slug/repo" ]; then
		echo "$MIRROR/$slug/repo"
		return
	fi
	local dir=$dest/.git/$slug
	if [ ! -d "$dir" ]; then
		git clone -q --bare --filter=blob:none "https://github.com/$1" "$dir" >&2
	fi
	echo "$dir"
}

while read -r name repo commit path strip; do
	[ -n "$name" ] || continue
	if [ "$want" != "  " ] && [[ $want != *" $name "* ]]; then
		continue
	fi
	dir=$(gitdir "$repo")
	out=$dest/$name
	# A negative strip is a folder to put the tree under (Svelte's two repositories).
	if [[ $strip == -* ]]; then
		out=$out/${strip#-}
		strip=0
	fi
	mkdir -p "$out"
	git -C "$dir" ls-tree -r -z --name-only "$commit" -- "$path" |
		grep -z '\.md$' |
		xargs -0 git -C "$dir" archive "$commit" -- |
		tar -x -C "$out" --strip-components="$strip"
	echo "$name: $(find "$dest/$name" -name '*.md' | wc -l) markdown files in $dest/$name" >&2
done <<<"$corpora"
