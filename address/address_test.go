package address

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"
)

func TestParse(t *testing.T) {
	long := strings.Repeat("a", MaxIDLen)
	longHeading := strings.Repeat("é", (MaxLen-MaxIDLen-1)/2) // 254 bytes
	tests := []struct {
		in   string
		want Address
		err  error
	}{
		{in: "a", want: Address{ID: "a"}},
		{in: "text/0001-private-fields", want: Address{ID: "text/0001-private-fields"}},
		{in: "b#motivation", want: Address{ID: "b", Heading: "motivation"}},
		{in: "b#Guide-level explanation", want: Address{ID: "b", Heading: "Guide-level explanation"}},
		{in: "b# leading space", want: Address{ID: "b", Heading: " leading space"}},
		{in: "pages.ru/common/ls", want: Address{ID: "pages.ru/common/ls"}},
		{in: "zh/命令#示例", want: Address{ID: "zh/命令", Heading: "示例"}},
		{in: "a.b/.hidden", want: Address{ID: "a.b/.hidden"}},
		{in: "...", want: Address{ID: "..."}},
		{in: long, want: Address{ID: long}},

		{in: "", err: ErrEmpty},
		{in: long + "#" + longHeading, want: Address{ID: long, Heading: longHeading}},
		{in: long + "b", err: ErrTooLong},
		{in: "a#" + strings.Repeat("b", MaxLen-1), err: ErrTooLong},
		{in: "a#" + strings.Repeat("b", MaxLen-2), want: Address{ID: "a", Heading: strings.Repeat("b", MaxLen-2)}},
		{in: long + "b#x", err: ErrTooLong},
		{in: "a\xffb", err: ErrInvalidUTF8},
		{in: "a b", err: ErrSpaceInID},
		{in: " a", err: ErrSpaceInID},
		{in: "a\u00a0b", err: ErrSpaceInID},
		{in: "a\u3000b#x", err: ErrSpaceInID},
		{in: "a\tb", err: ErrControl},
		{in: "a\nb", err: ErrControl},
		{in: "a#x\ny", err: ErrControl},
		{in: "a#x\x7f", err: ErrControl},
		{in: "a#b#c", err: ErrManyHashes},
		{in: "a##", err: ErrManyHashes},
		{in: "a#", err: ErrEmptyHeading},
		{in: "#x", err: ErrEmptyID},
		{in: "#", err: ErrEmptyID},
		{in: "# comment", err: ErrEmptyID},
		{in: "/a", err: ErrLeadingSlash},
		{in: "https://site/a/b/#c", err: ErrURL},
		{in: "git+ssh://h/a", err: ErrURL},
		{in: "a/https://b", err: ErrBadSegment}, // no scheme before its first '/'
		{in: "a//b", err: ErrBadSegment},
		{in: "a/", err: ErrBadSegment},
		{in: "./a", err: ErrBadSegment},
		{in: "a/../b", err: ErrBadSegment},
		{in: "..", err: ErrBadSegment},
		{in: "a/.#x", err: ErrBadSegment},
		{in: "evil\u202Etxt.md", err: ErrBidi},
		{in: "a#\u2066x\u2069", err: ErrBidi},
		{in: "a\u200Eb", err: ErrBidi},
		{in: "a\u200Fb", err: ErrBidi},
		{in: "a\u202Ab", err: ErrBidi},
		{in: "a\u2068b", err: ErrBidi},
		{in: "a\u200Db", want: Address{ID: "a\u200Db"}}, // a joiner, not a control of direction
		// Normal form C: a decomposed name (macOS file systems') is the
		// composed one a keyboard types.
		{in: "cafe\u0301/re\u0301sume\u0301#E\u0301te\u0301", want: Address{ID: "caf\u00e9/r\u00e9sum\u00e9", Heading: "\u00c9t\u00e9"}},
		{in: "caf\u00e9", want: Address{ID: "caf\u00e9"}},
		{in: "\u095e", want: Address{ID: "\u092b\u093c"}}, // a composition exclusion decomposes
		{in: "A\u0300", want: Address{ID: "\u00c0"}},      // a mark composes with the ASCII letter before it
		{in: "عربي/صفحة#مقدمة", want: Address{ID: "عربي/صفحة", Heading: "مقدمة"}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, tt.err) {
				t.Errorf("Parse(%q) error = %v, want *ParseError wrapping %v", tt.in, err, tt.err)
				continue
			}
			if pe.Input != tt.in {
				t.Errorf("Parse(%q) ParseError.Input = %q", tt.in, pe.Input)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q) unexpected error: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
		if s := got.String(); s != norm.NFC.String(tt.in) {
			t.Errorf("Parse(%q).String() = %q", tt.in, s)
		}
	}
}

func TestParseErrorMessage(t *testing.T) {
	_, err := Parse("a b#c")
	want := `malformed address "a b#c": whitespace in document id; did you mean "a-b#c"?`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
	_, err = Parse(strings.Repeat("x", 600))
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("long input should be cut in the message, got %d bytes", len(err.Error()))
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Motivation", "motivation"},
		{"Guide-level explanation", "guide-level-explanation"},
		{"Reference-level explanation", "reference-level-explanation"},
		{"Drawbacks & alternatives", "drawbacks--alternatives"},
		{"What's new?", "whats-new"},
		{"`impl Trait` in argument position", "impl-trait-in-argument-position"},
		{"snake_case_name", "snake_case_name"},
		{"  Spaced  out ", "--spaced--out-"},
		{"Привет, мир", "привет-мир"},
		{"例子", "例子"},
		{"उदाहरण", "उदाहरण"},
		{"1.2.3 Release", "123-release"},
		{"C++ & C#", "c--c"},
		{"!!!", "section"},
		{"E\u0301te\u0301 2024", "\u00e9t\u00e9-2024"}, // normal form C: the composed é of a typed address
		{"", "section"},
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestLongSlugs: a slug is cut to MaxSlugLen at a character boundary, so
// that every section address ingest makes, repeats included, parses with
// the longest id; a slug spelled whole (as GitHub makes it) slugs to the
// cut one.
func TestLongSlugs(t *testing.T) {
	heading := strings.Repeat("Слово ", 200) // 2,400 bytes
	slug := Slug(heading)
	if len(slug) > MaxSlugLen || !utf8.ValidString(slug) || !strings.HasPrefix(strings.Repeat("слово-", 200), slug) {
		t.Fatalf("Slug of a 2,400-byte heading: %d bytes %q", len(slug), slug)
	}
	if got := Slug(strings.Repeat("слово-", 200)); got != slug {
		t.Errorf("the whole slug slugs to %q, want the cut %q", got, slug)
	}
	var s Slugger
	id := strings.Repeat("d", MaxIDLen)
	for i := range 12 {
		next := s.Next(heading)
		if _, err := Parse(id + "#" + next); err != nil {
			t.Fatalf("repeat %d: %v", i, err)
		}
	}
	if got := s.Take(strings.Repeat("x", MaxLen-2)); len(got) > MaxSlugLen {
		t.Errorf("Take kept a %d-byte id", len(got))
	}
}

func TestSluggerRepeats(t *testing.T) {
	var s Slugger
	in := []string{"Examples", "Examples", "Examples-1", "Examples", "Other", "examples"}
	want := []string{"examples", "examples-1", "examples-1-1", "examples-2", "other", "examples-3"}
	var got []string
	for _, h := range in {
		got = append(got, s.Next(h))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("slugs mismatch (-want +got):\n%s", diff)
	}
}

// TestSluggerTake: an author's id is the slug as written (case kept); a
// repeat gets -1 like a repeated heading; headings after it skip it.
func TestSluggerTake(t *testing.T) {
	var s Slugger
	got := []string{s.Next("Setup"), s.Take("metadata-schema"), s.Next("Metadata schema"), s.Take("metadata-schema"), s.Take("Setup"), s.Take("setup")}
	want := []string{"setup", "metadata-schema", "metadata-schema-1", "metadata-schema-2", "Setup", "setup-1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("slugs mismatch (-want +got):\n%s", diff)
	}
}

// FuzzParse holds the round trip: whatever Parse accepts prints back to the
// same text (in normal form C) and parses again to the same value; nothing
// panics; a heading's Unemphasized text is it less some '_', once for all.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"a", "b#motivation", "a/b/c#Guide-level explanation", "#", "a#b#c", "/a", "a//b", "a b", "zh/命令#示例", "a\x00", "..", "a\u202Eb", "a#\u2067x", "./a/b.md", "https://h/a/#b", "a/.md/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Input != s {
				t.Fatalf("Parse(%q) error %v is not a *ParseError for the input", s, err)
			}
			if pe.Hint != "" {
				if _, err := Parse(pe.Hint); err != nil || pe.Hint == s {
					t.Fatalf("Parse(%q) hints %q, which does not parse (%v) or is the input", s, pe.Hint, err)
				}
			}
			return
		}
		if a.ID == "" || !utf8.ValidString(s) || strings.ContainsFunc(s, isBidiControl) {
			t.Fatalf("Parse(%q) accepted a bad address: %+v", s, a)
		}
		if got := a.String(); got != norm.NFC.String(s) {
			t.Fatalf("Parse(%q).String() = %q, not the input in normal form C", s, got)
		}
		b, err := Parse(a.String())
		if err != nil || b != a {
			t.Fatalf("second Parse(%q) = %+v, %v; want %+v", a.String(), b, err, a)
		}
		_ = Slug(a.Heading)
		// Unemphasized only takes '_' off, and what it leaves has no
		// delimiter left to take.
		if u := Unemphasized(a.Heading); len(u) > len(a.Heading) || Unemphasized(u) != u ||
			strings.ReplaceAll(u, "_", "") != strings.ReplaceAll(a.Heading, "_", "") {
			t.Fatalf("Unemphasized(%q) = %q", a.Heading, u)
		}
	})
}

// TestParseHint: an address written as a file's path or a page's URL is
// malformed, and the error says which address it most likely meant; an
// input no repair makes an address has no hint.
func TestParseHint(t *testing.T) {
	for in, want := range map[string]string{
		"templates/menu/":                            "templates/menu",
		"./templates/menu.md":                        "templates/menu",
		"/templates/menu/":                           "templates/menu",
		"/a/b.md#usage":                              "a/b#usage",
		"https://gohugo.io/templates/menu/#overview": "templates/menu#overview",
		"a#":                  "",
		"..":                  "",
		"https://example.com": "",
		"a b/":                "a-b", // a file's name with a space: its id has '-'
		"Linking notes and files/Embed files.md#Embed a note": "Linking-notes-and-files/Embed-files#Embed a note",
		// A relative link copied from a page: its leading "../" taken off,
		// as many as it has; the rest must be an address.
		"../trace/api.md#span": "trace/api#span",
		"../../../a/b.md":      "a/b",
		".././../a/b/":         "a/b",
		"../":                  "",
		"../..":                "",
		"../a/../b":            "",
		// A heading path (Obsidian's): its last heading's section.
		"B/Target-Note#Foo bar#Sub": "B/Target-Note#Sub",
		"a#b#":                      "",
	} {
		_, err := Parse(in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("Parse(%q) = %v, want a *ParseError", in, err)
		}
		if pe.Hint != want {
			t.Errorf("Parse(%q) hint %q, want %q", in, pe.Hint, want)
		}
		if want != "" && !strings.HasSuffix(err.Error(), "; did you mean "+quote(want)+"?") {
			t.Errorf("Parse(%q) error %q does not name the hint", in, err)
		}
	}
}

func TestParseAll(t *testing.T) {
	got, err := ParseAll([]string{"a", "b#Motivation"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Address{{ID: "a"}, {ID: "b", Heading: "Motivation"}}; !slices.Equal(got, want) {
		t.Errorf("ParseAll = %v, want %v", got, want)
	}
	if _, err := ParseAll([]string{"a", "b c", "d#"}); !errors.Is(err, ErrSpaceInID) {
		t.Errorf("ParseAll with a malformed second address: %v, want the first malformed one's error", err)
	}
	if got, err := ParseAll(nil); err != nil || len(got) != 0 {
		t.Errorf("ParseAll(nil) = %v, %v", got, err)
	}
}

func TestUnemphasized(t *testing.T) {
	for in, want := range map[string]string{
		"Event: 'activate' _macOS_": "Event: 'activate' macOS",
		"_Readonly_":                "Readonly",
		"snake_case":                "snake_case",
		"__init__ x":                "init x",
		"a __b__ c_d_":              "a b c_d",
		"_":                         "",
		"no underscore":             "no underscore",
		"é_ü _ü_":                   "é_ü ü",
	} {
		if got := Unemphasized(in); got != want {
			t.Errorf("Unemphasized(%q) = %q, want %q", in, got, want)
		}
	}
}
