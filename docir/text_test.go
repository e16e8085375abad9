package docir

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"", 4, ""},
		{"abcd", 4, "abcd"},
		{"abcde", 4, "abcd…"},
		{"ab€cd", 3, "ab…"}, // € is 3 bytes: not cut inside it
		{"ab€cd", 5, "ab€…"},
		{"€€", 1, "…"},
		{"abc", 0, "…"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Clip(tt.s, tt.n)); diff != "" {
			t.Errorf("Clip(%q, %d) (-want +got):\n%s", tt.s, tt.n, diff)
		}
	}
}

// FuzzClip: a clip is valid UTF-8 when its input is, at most n bytes and
// "…", and a prefix of the input.
func FuzzClip(f *testing.F) {
	f.Add("ab€cd", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<10 {
			return
		}
		got := Clip(s, n)
		body, cut := strings.CutSuffix(got, "…")
		if len(s) <= n {
			if got != s {
				t.Fatalf("Clip(%q, %d) = %q, want it whole", s, n, got)
			}
			return
		}
		if !cut || len(body) > n || !strings.HasPrefix(s, body) {
			t.Fatalf("Clip(%q, %d) = %q", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Clip(%q, %d) = %q: cut inside a rune", s, n, got)
		}
	})
}

func TestEditDistance(t *testing.T) {
	long := strings.Repeat("a", 70) // past the stack buffers
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 3, 0},
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 3}, // over the limit: limit+1
		{"sources", "soruces", 3, 2},
		{"abc", "", 5, 3},
		{"", "abc", 5, 3},
		{long, long + "b", 3, 1},
		{long, strings.Repeat("b", 70), 4, 5},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, EditDistance(tt.a, tt.b, tt.limit)); diff != "" {
			t.Errorf("EditDistance(%q, %q, %d) (-want +got):\n%s", tt.a, tt.b, tt.limit, diff)
		}
	}
}

// TestPrintableAndTerminalText pins what each escapes: messages every
// control and format character, corpus text on a terminal only what can
// drive the terminal or reorder the line, keeping the joiners scripts and
// emoji are written with.
func TestPrintableAndTerminalText(t *testing.T) {
	tests := []struct {
		in, printable, terminal string
	}{
		{"plain\ttext\n", "plain\ttext\n", "plain\ttext\n"},
		{"\x1b]0;title\a", `\x1b]0;title\a`, `\x1b]0;title\a`},
		{"a\rb\u009bc\x7f", `a\rb\u009bc\x7f`, `a\rb\u009bc\x7f`},
		{"abc\u202eevil\u2066x\u2069", `abc\u202eevil\u2066x\u2069`, `abc\u202eevil\u2066x\u2069`},
		{"bad \x9b byte", `bad \ufffd byte`, `bad \ufffd byte`},
		{"می\u200cخواهم", `می\u200cخواهم`, "می\u200cخواهم"},
		{"👩\u200d💻 soft\u00adhyphen", `👩\u200d💻 soft\u00adhyphen`, "👩\u200d💻 soft\u00adhyphen"},
	}
	for _, tt := range tests {
		if got := Printable(tt.in, true); got != tt.printable {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.printable)
		}
		if got := TerminalText(tt.in, true); got != tt.terminal {
			t.Errorf("TerminalText(%q) = %q, want %q", tt.in, got, tt.terminal)
		}
	}
	if got := TerminalText("a\r\nb\rc\r\n", true); got != "a\r\nb\\rc\r\n" {
		t.Errorf("CRLF lines: %q", got)
	}
	if got := TerminalText("a\r\nb", false); got != `a\r\nb` {
		t.Errorf("CRLF in one line: %q", got)
	}
	if got := TerminalText("a\tb\nc", false); got != `a\tb\nc` {
		t.Errorf("one line: %q", got)
	}
}
