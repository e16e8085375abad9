package fulltext

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEachFlag: an option is a "-" at the start or after a space or
// punctuation, then an ASCII letter; its key is the word lower-cased, up
// to the first byte that is not a letter, digit, "-" or "_".
func TestEachFlag(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"### -Depth\n\nUse `-Depth 3` or (-la).", []string{"depth", "depth", "la"}},
		{"pwsh -File script.ps1 -ExecutionPolicy Bypass", []string{"file", "executionpolicy"}},
		{"-v at the start, -no-color-, -x_y.", []string{"v", "no-color", "x_y"}},
		{"kube-scheduler --force a - b -1 x-y é-z a_-b", nil},
		{"", nil},
		{"-", nil},
	} {
		var got []string
		eachFlag([]byte(tt.text), func(k string) { got = append(got, k) })
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.text, d)
		}
	}
	for w, want := range map[string]string{"Depth": "depth", "Depth,": "depth", "no-color-": "no-color", "1x": "", "": "", "é": "", "x__": "x"} {
		if got := flagKey(w); got != want {
			t.Errorf("flagKey(%q) = %q, want %q", w, got, want)
		}
	}
}

// FuzzEachFlag: any text; every key is non-empty, starts with a lower-case
// ASCII letter, holds only lower-case letters, digits, "-" and "_", and is
// written in the text after a "-" (up to case).
func FuzzEachFlag(f *testing.F) {
	for _, s := range []string{"### -Depth", "tar -xvf a.tar", "a--b -c-", "\xff-x", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		eachFlag([]byte(text), func(k string) {
			if k == "" || k[0] < 'a' || k[0] > 'z' {
				t.Fatalf("%q: key %q", text, k)
			}
			for i := 0; i < len(k); i++ {
				c := k[i]
				if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
					t.Fatalf("%q: key %q holds %q", text, k, c)
				}
			}
			if !strings.Contains(strings.ToLower(text), "-"+k) {
				t.Fatalf("%q: key %q is not written in it", text, k)
			}
		})
	})
}
