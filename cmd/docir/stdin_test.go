package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

func TestReadAddresses(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		code     docir.Code
	}{
		{"lines", "a\n  b#Motivation  \n\n c#x\r\n", []string{"a", "b#Motivation", "c#x"}, ""},
		{"empty", "", []string{}, ""},
		{"lines after a byte-order mark", "\ufeffa\nb\n", []string{"a", "b"}, ""},
		{"json after a byte-order mark", "\ufeff{\"addresses\":[\"a#x\"]}", []string{"a#x"}, ""},
		{"search text after a byte-order mark", "\ufeffADDRESS  SCORE  TITLE\na#b      1.000  A\n", []string{"a#b"}, ""},
		{"search json", `{"query":"q","hits":[{"id":"a","matched_section":"a#x"},{"id":"b","matched_section":""}],"total":2}`, []string{"a#x", "b"}, ""},
		{"context json", `{"query":"q","hits":[{"id":"z"}],"addresses":["a#x","b"]}`, []string{"a#x", "b"}, ""},
		{"array", `["a", "b#c"]`, []string{"a", "b#c"}, ""},
		{"search text", "ADDRESS                      SCORE  STORE  TITLE\nrunbooks/disk-full#mitigate  0.692  local  Disk full\n    Mitigate Delete rotated logs\nadr/x                        0.100  local  X\n", []string{"runbooks/disk-full#mitigate", "adr/x"}, ""},
		{"query text with a footer", "ADDRESS  SCORE  TITLE\na        1.000  A\n    kind: adr\n(1 of 34 documents; -n for more)\n", []string{"a"}, ""},
		{"search text, coloured", "ADDRESS  SCORE  TITLE\na#b      1.000  A\n    \x1b[1mword\x1b[0m here\n", []string{"a#b"}, ""},
		{"no match", "no documents match \"zz\"\n", []string{}, ""},
		{"context text", "READ NEXT  108 of 150 tokens\nrunbooks/windows-crlf        68\nrunbooks/disk-full#mitigate  40\n\nADDRESS                       SCORE  TOKENS  TITLE\nrunbooks/windows-crlf#checks  0.599      68  Index\n  runbooks/windows-crlf#steps   16    Steps\n", []string{"runbooks/windows-crlf", "runbooks/disk-full#mitigate"}, ""},
		{"context text, nothing fits", "READ NEXT  0 of 10 tokens\n(nothing fits the budget)\n\nADDRESS  SCORE  TOKENS  TITLE\na        1.000     900  A\n", []string{}, ""},
		{"a header-like line is not a header", "ADDRESS\n", []string{"ADDRESS"}, ""},
		{"malformed line", "a\nb c\n", nil, docir.CodeMalformedAddress},
		{"malformed in json", `{"addresses":["a#"]}`, nil, docir.CodeMalformedAddress},
		{"bad json", `{"hits": 3}`, nil, docir.CodeUsage},
		{"unknown object", `{"documents": []}`, nil, docir.CodeUsage},
		{"hit without address", `{"hits":[{"title":"x"}]}`, nil, docir.CodeUsage},
		// A stream of JSON values: search --jq '.hits[]' prints one hit a line.
		{"hits, one a line", "{\"id\":\"a\",\"matched_section\":\"a#x\",\"score\":2}\n{\"id\":\"b\",\"matched_section\":\"\"}\n", []string{"a#x", "b"}, ""},
		{"a stream of results and strings", `{"addresses":["a"]} ["b"] "c#d" {"hits":[{"id":"e"}]}`, []string{"a", "b", "c#d", "e"}, ""},
		{"a hit without address in a stream", `{"id":"a"} {"title":"x"}`, nil, docir.CodeUsage},
		{"a number in a stream", `["a"] 3`, nil, docir.CodeUsage},
		{"a broken stream", `{"id":"a"} {`, nil, docir.CodeUsage},
		// An array of hits: search --jq '.hits' (or '.hits[:3]') prints one.
		{"an array of hits", `[{"id":"a","matched_section":"a#x","score":2},{"id":"b","matched_section":""}]`, []string{"a#x", "b"}, ""},
		{"an array of hits and strings", "[\n  {\"id\": \"a\"},\n  \"b#c\"\n]\n", []string{"a", "b#c"}, ""},
		{"an empty array", `[]`, []string{}, ""},
		{"an array with a hit without address", `[{"id":"a"},{"title":"x"}]`, nil, docir.CodeUsage},
		{"an array with a number", `["a", 3]`, nil, docir.CodeUsage},
		{"an array of arrays", `[["a"]]`, nil, docir.CodeUsage},
		{"an array with a bad hit", `[{"id":3}]`, nil, docir.CodeUsage},
		// A comment line is no address: the id before its '#' is empty.
		{"a comment line", "# addresses\na\n", nil, docir.CodeMalformedAddress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAddresses(strings.NewReader(tt.in))
			if tt.code != "" {
				if docir.CodeOf(err) != tt.code {
					t.Fatalf("error %v has code %q, want %q", err, docir.CodeOf(err), tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			strs := []string{}
			for _, a := range got {
				strs = append(strs, a.String())
			}
			if diff := cmp.Diff(tt.want, strs); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzReadAddresses: any input either fails with a usage, address or
// reply_too_large error, or yields addresses that each round-trip through
// address.Parse.
func FuzzReadAddresses(f *testing.F) {
	for _, s := range []string{"a\nb#c\n", `{"hits":[{"id":"a","matched_section":"a#b"}]}`, `{"addresses":["x"]}`, `["a"]`, "{", `{"id":"a"} "b"`, `[{"id":"a","matched_section":"a#b"},"c"]`, "a b", "ADDRESS  SCORE  TITLE\na  1  A\n    snip\n(1 of 2)\n", "READ NEXT  1 of 2 tokens\na  1\n\nADDRESS  SCORE\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := readAddresses(strings.NewReader(string(in)))
		if err != nil {
			var pe *address.ParseError
			if c := docir.CodeOf(err); c != docir.CodeUsage && c != docir.CodeReplyTooLarge && !errors.As(err, &pe) {
				t.Fatalf("unexpected error class: %v", err)
			}
			return
		}
		for _, a := range got {
			if b, err := address.Parse(a.String()); err != nil || b != a {
				t.Fatalf("address %q does not round-trip", a)
			}
		}
	})
}

// A "# comment" line on stdin fails the read, and the error says why: the
// address has no id, not an empty path segment.
func TestReadAddressesCommentLine(t *testing.T) {
	_, err := readAddresses(strings.NewReader("# CI fixture\nrunbooks/disk-full\n"))
	if !errors.Is(err, address.ErrEmptyID) {
		t.Fatalf("error %v, want address.ErrEmptyID", err)
	}
	if want := `malformed address "# CI fixture": empty document id: an address cannot start with '#'`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// TestReadAddressesRefusesMoreThanAReadAnswers: a list on stdin of more
// addresses than a read within MaxGetBytes can answer, each counted at
// least as a miss (docir.MaxAddresses), is refused with reply_too_large
// naming how many were given, before they are parsed, as lines and as a
// JSON array; one fewer is read. (8 million one-letter lines read, parsed
// and resolved to misses took 3.3 GB.)
func TestReadAddressesRefusesMoreThanAReadAnswers(t *testing.T) {
	most := docir.MaxAddresses(MaxGetBytes)
	lines := strings.Repeat("b\n", most+1)
	array := "[" + strings.Repeat(`"b",`, most) + `"b"]`
	for name, in := range map[string]string{"lines": lines, "array": array} {
		_, err := readAddresses(strings.NewReader(in))
		if docir.CodeOf(err) != docir.CodeReplyTooLarge || !strings.Contains(err.Error(), fmt.Sprintf("stdin names %d addresses", most+1)) {
			t.Errorf("%s: %d addresses: %v; want reply_too_large naming them", name, most+1, err)
		}
	}
	got, err := readAddresses(strings.NewReader(lines[2:]))
	if err != nil || len(got) != most {
		t.Errorf("%d addresses: %d read, %v", most, len(got), err)
	}
}
