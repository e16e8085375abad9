package links

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// blackfridayCases are headings of one document and the anchors Hugo's
// blackfriday autoHeadingIDType gives them, in order (its
// SanitizedAnchorName and idFactory, read from Hugo's source; the first
// three are anchors the Kubernetes docs link to).
var blackfridayCases = []struct{ heading, anchor string }{
	{"kubernetes.io/arch", "kubernetes-io-arch"},
	{"What's next", "what-s-next"},
	{"Configure IPv4/IPv6 dual-stack", "configure-ipv4-ipv6-dual-stack"},
	{"Examples", "examples"},
	{"Examples", "examples-1"},
	{"examples-1", "examples-1-1"},
	{"  -- Trim --  ", "trim"},
	{"snake_case words", "snake-case-words"},
	{"Café Ünïcode", "café-ünïcode"},
	{"x² ½", "x²-½"},
	{"🎉 ---", "heading"},
	{"", "heading-1"},
}

func TestBlackfridayAnchors(t *testing.T) {
	var headings, want []string
	for _, c := range blackfridayCases {
		headings, want = append(headings, c.heading), append(want, c.anchor)
	}
	if got := BlackfridayAnchors(headings); !slices.Equal(got, want) {
		t.Errorf("BlackfridayAnchors:\n got %q\nwant %q", got, want)
	}
}

// FuzzBlackfridayAnchors: whatever the headings, no anchor is empty, none
// opens or ends with '-' or holds "--" (but a count's "-"), no two are the
// same, every rune is a lower-case letter, a number or '-', and a
// heading's anchor depends only on the headings before it.
func FuzzBlackfridayAnchors(f *testing.F) {
	for _, c := range blackfridayCases {
		f.Add(c.heading, "Examples")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		hs := []string{a, b, a, b + "-1", ""}
		got := BlackfridayAnchors(hs)
		seen := map[string]bool{}
		for i, id := range got {
			if id == "" || seen[id] || strings.HasPrefix(id, "-") || strings.HasSuffix(id, "-") || strings.Contains(id, "--") {
				t.Fatalf("anchor %d of %q: %q: %q", i, hs, id, got)
			}
			seen[id] = true
			for _, r := range id {
				if r != '-' && !unicode.IsLetter(r) && !unicode.IsNumber(r) || unicode.ToLower(r) != r {
					t.Fatalf("anchor %q of %q holds %q", id, hs[i], r)
				}
			}
		}
		if first := BlackfridayAnchors(hs[:2]); !slices.Equal(first, got[:2]) {
			t.Fatalf("anchors of %q: %q alone, %q in a longer document", hs[:2], first, got[:2])
		}
	})
}
