package links

import "testing"

func TestUnnumbered(t *testing.T) {
	for in, want := range map[string]string{
		"20-load.md":        "load.md",
		"01_intro":          "intro",
		"3.setup":           "setup",
		"2024-01-05-post":   "01-05-post", // one prefix: the date's year
		"20-":               "20-",
		"20":                "20",
		"v1-api":            "v1-api",
		"go1.21":            "go1.21",
		"0003-retry-budget": "retry-budget",
		"":                  "",
	} {
		if got := Unnumbered(in); got != want {
			t.Errorf("Unnumbered(%q) = %q, want %q", in, got, want)
		}
	}
	if got := UnnumberedPath("kit/20-core-concepts/20-load.md"); got != "kit/core-concepts/load.md" {
		t.Errorf("UnnumberedPath = %q", got)
	}
}
