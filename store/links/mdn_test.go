package links

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// mdnCases are headings of one document and the anchors MDN's renderer
// (rari: anchorize, then post_process_html's numbering) gives them, in
// order; the first two are anchors MDN's pages link to.
var mdnCases = []struct{ heading, anchor string }{
	{"SignificantDigits/FractionDigits default values", "significantdigitsfractiondigits_default_values"},
	{"Formal syntax", "formal_syntax"},
	{"Result", "result"},
	{"Result", "result_2"},
	{"Result", "result_3"},
	{"result_3", "result_4"},
	{"Using <code>ref()</code> in `setup()`", "using_coderefcode_in_setup"},
	{"  Spaces   and\ttabs  ", "spaces_and\ttabs"},
	{"What's new?", "whats_new"},
	{"Ünïcode ΣΑΣ", "ünïcode_σας"},
	{"a_b-c.d!", "a_b-c.d!"},
	{"(*)", "sect"},
	{"", "sect_2"},
	{"x_", "x_"},
	{"x_", "x_1"},
}

func TestMDNAnchors(t *testing.T) {
	var headings, want []string
	for _, c := range mdnCases {
		headings, want = append(headings, c.heading), append(want, c.anchor)
	}
	if got := MDNAnchors(headings); !slices.Equal(got, want) {
		t.Errorf("MDNAnchors:\n got %q\nwant %q", got, want)
	}
	// Past rari's count a repeat keeps the id it has (it leads to the
	// first), and so does a counter too long to be a number.
	many := make([]string, 667)
	for i := range many {
		many[i] = "Step"
	}
	got := MDNAnchors(many)
	if got[1] != "step_2" || got[664] != "step_665" || got[665] != "step" || got[666] != "step" {
		t.Errorf("667 headings Step: %q … %q", got[:3], got[663:])
	}
	if got := MDNAnchors([]string{"v_99999999999999999999", "v_99999999999999999999"}); got[1] != "v_1" {
		t.Errorf("a counter too long to parse: %q, want v_1 second", got)
	}
}

// pastCount reports whether a repeat of id is past rari's count: id ends
// in '_' and a number of 665 or more.
func pastCount(id string) bool {
	i := strings.LastIndexByte(id, '_')
	n, err := strconv.Atoi(id[i+1:])
	return i >= 0 && allDigits(id[i+1:]) && err == nil && n >= 665
}

// FuzzMDNAnchors: whatever the headings, no anchor is empty or holds a
// character rari drops or an upper-case ASCII letter or a space, a
// repeated heading's anchor differs from the first's (below rari's count),
// and a heading's anchor depends only on the headings before it.
func FuzzMDNAnchors(f *testing.F) {
	for _, c := range mdnCases {
		f.Add(c.heading, "Result")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		hs := []string{a, b, a, b + "_2", ""}
		got := MDNAnchors(hs)
		for i, id := range got {
			if id == "" || strings.ContainsAny(id, "*<>\"$#%&+,/:;=?@[]^`{|}~')(\\ ") || strings.ToLower(id) != id && strings.ContainsAny(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
				t.Fatalf("anchor %d of %q: %q", i, hs, id)
			}
		}
		if got[2] == got[0] && !pastCount(got[0]) {
			t.Fatalf("a repeated heading %q has the first's anchor %q", a, got[0])
		}
		if first := MDNAnchors(hs[:2]); !slices.Equal(first, got[:2]) {
			t.Fatalf("anchors of %q: %q alone, %q in a longer document", hs[:2], first, got[:2])
		}
	})
}
