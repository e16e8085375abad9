package links

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"testing"
)

// mkdocsCases are headings and the anchors Python-Markdown 3.4.1's toc
// gives them in one document, in order (taken from that library, run on
// these headings).
var mkdocsCases = []struct{ heading, anchor string }{
	{"HEAD / Branch Tracking", "head-branch-tracking"},
	{"How often does Argo CD check for changes to my Git or Helm repository ?", "how-often-does-argo-cd-check-for-changes-to-my-git-or-helm-repository"},
	{"Café", "cafe"},
	{"Examples", "examples"},
	{"Examples", "examples_1"},
	{"Examples_1", "examples_2"},
	{"", "_1"},
	{"Automated builds & tests", "automated-builds-tests"},
	{"-foo-", "-foo-"},
	{"x_9", "x_9"},
	{"x_9", "x_10"},
	{"  a\tb  ", "a-b"},
	{"Ünïcödé ÆØ", "unicode"},
	{"日本語", "_2"},
	{"a\x1cb", "a-b_1"},
}

func TestMkDocsAnchors(t *testing.T) {
	var headings, want []string
	for _, c := range mkdocsCases {
		headings, want = append(headings, c.heading), append(want, c.anchor)
	}
	if got := MkDocsAnchors(headings); !slices.Equal(got, want) {
		t.Errorf("MkDocsAnchors:\n got %q\nwant %q", got, want)
	}
}

// TestMkDocsAnchorsAsPythonMarkdown holds MkDocsAnchors to Python-Markdown
// itself (Debian's python3-markdown) on headings of every kind the rule
// reads differently from GitHub's; it skips where no python3 on the PATH
// (or /usr/bin/python3) can import markdown.
func TestMkDocsAnchorsAsPythonMarkdown(t *testing.T) {
	const script = `import json, sys
from markdown.extensions.toc import slugify, unique
ids = set()
print(json.dumps([unique(slugify(h, "-"), ids) for h in json.load(sys.stdin)]))`
	var python string
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(p); err == nil && exec.Command(path, "-c", "import markdown.extensions.toc").Run() == nil {
			python = path
			break
		}
	}
	if python == "" {
		t.Skip("no python3 with the markdown package (Debian: python3-markdown); MkDocsAnchors is checked against its pinned cases only")
	}
	headings := []string{
		"Getting started", "Getting Started", "getting-started", "Getting  started", "Getting - started",
		"What's new in 2.0?", "C++ & Go", "a_b_c", "a__b", "__init__", "tab\there", "line\nbreak",
		"Ünïcödé", "ﬁ ligature", "Ⅻ roman", "½ half", "x²", "Москва", "日本語 heading", "emoji 🎉 party",
		"trailing -", "- leading", "--", "", " ", "x_1", "x", "x", "x_1", "x_01", "y_", "_", "__", "_1",
		"a\u00a0b", "a\u2003b", "a\x1fb", "v1.2.3", "100%", "#hash", "Kubernetes (k8s) / RBAC",
		"n_99", "n_99", "n_0099", "big_99999999999999999999", "big_99999999999999999999", "z_00", "z_00",
	}
	for _, c := range mkdocsCases {
		headings = append(headings, c.heading)
	}
	want := runOracle(t, exec.Command(python, "-c", script), headings)
	got := MkDocsAnchors(headings)
	for i := range headings {
		if got[i] != want[i] {
			t.Errorf("heading %q: anchor %q, Python-Markdown %q", headings[i], got[i], want[i])
		}
	}
}

// FuzzMkDocsAnchors: whatever the headings, each anchor is made of
// lower-case ASCII letters, digits, '_' and '-', none is empty, no two are
// the same, and a heading's anchor depends only on the headings before it.
func FuzzMkDocsAnchors(f *testing.F) {
	for _, c := range mkdocsCases {
		f.Add(c.heading, "Examples")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		hs := []string{a, b, a, b + "_1", ""}
		got := MkDocsAnchors(hs)
		seen := map[string]bool{}
		for i, id := range got {
			if id == "" || seen[id] {
				t.Fatalf("anchor %d of %q: %q (empty or repeated): %q", i, hs, id, got)
			}
			seen[id] = true
			for _, r := range id {
				if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
					t.Fatalf("anchor %q of %q holds %q", id, hs[i], r)
				}
			}
		}
		if first := MkDocsAnchors(hs[:2]); !slices.Equal(first, got[:2]) {
			t.Fatalf("anchors of %q: %q alone, %q in a longer document", hs[:2], first, got[:2])
		}
	})
}

// runOracle runs cmd, a program that reads a JSON list of headings on its
// stdin and prints the JSON list of their anchors, on headings.
func runOracle(t *testing.T, cmd *exec.Cmd, headings []string) []string {
	t.Helper()
	in, err := json.Marshal(headings)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(headings) {
		t.Fatalf("%s printed %q for %d headings: %v", cmd.Path, out, len(headings), err)
	}
	return want
}
