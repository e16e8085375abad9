package main

import (
	"errors"
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
		{"search json", `{"query":"q","hits":[{"id":"a","matched_section":"a#x"},{"id":"b","matched_section":""}],"total":2}`, []string{"a#x", "b"}, ""},
		{"context json", `{"query":"q","hits":[{"id":"z"}],"addresses":["a#x","b"]}`, []string{"a#x", "b"}, ""},
		{"array", `["a", "b#c"]`, []string{"a", "b#c"}, ""},
		{"malformed line", "a\nb c\n", nil, docir.CodeMalformedAddress},
		{"malformed in json", `{"addresses":["a#"]}`, nil, docir.CodeMalformedAddress},
		{"bad json", `{"hits": 3}`, nil, docir.CodeUsage},
		{"unknown object", `{"documents": []}`, nil, docir.CodeUsage},
		{"hit without address", `{"hits":[{"title":"x"}]}`, nil, docir.CodeUsage},
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

// FuzzReadAddresses: any input either fails with a usage or address error,
// or yields addresses that each round-trip through address.Parse.
func FuzzReadAddresses(f *testing.F) {
	for _, s := range []string{"a\nb#c\n", `{"hits":[{"id":"a","matched_section":"a#b"}]}`, `{"addresses":["x"]}`, `["a"]`, "{", "a b"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := readAddresses(strings.NewReader(string(in)))
		if err != nil {
			var pe *address.ParseError
			if docir.CodeOf(err) != docir.CodeUsage && !errors.As(err, &pe) {
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
