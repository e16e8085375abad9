package main

import (
	"strings"
	"testing"
)

// TestConfigLists: lists of words (front_matter, exclude, a source's
// exclude) pass the config check; anything else in them is refused with
// the line and key; a second YAML document is refused with its line.
func TestConfigLists(t *testing.T) {
	for _, tt := range []struct {
		yaml, err string // err "" when the file passes
	}{
		{"front_matter: [title, tags]\n", ""},
		{"exclude: [_common/, '*.draft.md']\n", ""},
		{"sources:\n  - path: docs\n    exclude:\n      - vendor/\n      - '!vendor/keep.md'\n", ""},
		{"front_matter: [[title]]\n", "t.yaml:1: front_matter[0]: want a single value"},
		{"exclude: _common/\n", "t.yaml:1: exclude: want a list"},
		{"sources:\n  - path: docs\n    exclude: {a: b}\n", "t.yaml:3: sources[0].exclude: want a list"},
		{"sources:\n  - path: docs\n    exlude: [a]\n", `t.yaml:3: sources[0]: unknown key "exlude" (did you mean "exclude"?)`},
		// One document: what follows a second "---" is refused, not dropped.
		{"---\nsources: [{path: docs}]\n", ""},
		{"sources: [{path: docs}]\n---\n# only a comment\n", ""},
		{"name: x\n---\nsources:\n  - path: docs\n", "line 3: a second YAML document"},
		{"---\nsources: [{path: docs}]\n---\nsorces: [{path: /}]\nbogus: [\n", "line 5: did not find expected node content"},
	} {
		err := checkConfigFile("t.yaml", []byte(tt.yaml))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%q: %v", tt.yaml, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%q: error %v, want one saying %q", tt.yaml, err, tt.err)
		}
	}
}
