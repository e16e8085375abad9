package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// MaxAddressList bounds what readAddresses reads: more input than this is
// refused rather than buffered without limit.
const MaxAddressList = 16 << 20 // bytes

// readAddresses reads the addresses a `get -` is fed, in order. The input is
// one of:
//   - address lines: one address per line; blank lines are skipped and
//     surrounding whitespace is trimmed;
//   - the JSON of `search` or `query` ({"hits": [...]}): each hit's
//     matched_section, else its id;
//   - the JSON of `context` ({"addresses": [...]});
//   - a JSON array of address strings or of hits (`search --jq '.hits'`);
//   - a stream of such JSON values, and of hits ({"matched_section",
//     "id"}: what `search --jq '.hits[]'` prints, one a line) and address
//     strings, in order;
//   - the text of `search` or `query` (a table headed ADDRESS SCORE ...):
//     the first column of each row;
//   - the text of `context` (headed READ NEXT): the addresses listed
//     under that head, up to the blank line, as its JSON's addresses.
//
// A UTF-8 byte-order mark before any of them is left out.
//
// Any malformed address fails the whole read with its *address.ParseError,
// so nothing is read for a batch with a typo in it. More addresses than a
// read within MaxGetBytes can answer (docir.MaxAddresses: each counts at
// least as a miss) fail it with reply_too_large before they are parsed,
// so that a list of tiny addresses is not held three times over for a
// read that would stop anyway.
func readAddresses(r io.Reader) ([]address.Address, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxAddressList+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxAddressList {
		return nil, docir.Errorf(docir.CodeUsage, "address list on stdin is over %d bytes (16 MiB): read the addresses in several calls", MaxAddressList)
	}
	// A byte-order mark (what some Windows shells put before piped text)
	// is not part of the first address or of the JSON.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	trimmed := bytes.TrimSpace(data)
	var raw []string
	switch {
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		if raw, err = addressesFromJSON(trimmed); err != nil {
			return nil, err
		}
	default:
		// The lines are views of one copy of the input.
		raw = addressesFromLines(strings.Split(string(data), "\n"))
	}
	if err := checkAddressCount(len(raw)); err != nil {
		return nil, err
	}
	return address.ParseAll(raw)
}

// checkAddressCount refuses n addresses when a read within MaxGetBytes
// cannot answer that many (docir.MaxAddresses), naming n.
func checkAddressCount(n int) error {
	if most := docir.MaxAddresses(MaxGetBytes); n > most {
		return docir.Errorf(docir.CodeReplyTooLarge,
			"stdin names %d addresses; a read answers at most %d within its %d-byte reply bound (each address counts its length and %d bytes even as a miss): send fewer addresses in several calls",
			n, most, MaxGetBytes, docir.MissBytes)
	}
	return nil
}

// The heads of the text that search, query and context print: no address
// line can look like them (an id holds no whitespace).
var (
	hitsHead    = lazyRegexp(`^ADDRESS\s+SCORE\s`)
	readNext    = lazyRegexp(`^READ NEXT\s+\d+ of \d+ tokens$`)
	noMatch     = lazyRegexp(`^no documents match `)
	ansiEscapes = lazyRegexp(`\x1b\[[0-9;]*m`)
)

// addressesFromLines reads the addresses of text input: the text of
// search, query or context (by its first line), else one address a line.
func addressesFromLines(lines []string) []string {
	var out []string
	first := -1
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansiEscapes().ReplaceAllString(l, ""), " \t\r")
		if first < 0 && strings.TrimSpace(lines[i]) != "" {
			first = i
		}
	}
	if first < 0 {
		return out
	}
	switch head := lines[first]; {
	case noMatch().MatchString(head):
		return out
	case readNext().MatchString(head):
		// The addresses to read next, one a row with its tokens, up to the
		// blank line before the hits table.
		for _, l := range lines[first+1:] {
			if l == "" {
				break
			}
			if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(l, "(") {
				out = append(out, f[0])
			}
		}
		return out
	case hitsHead().MatchString(head):
		// A row starts at the first column; a snippet is indented, and a
		// footer is in parentheses.
		for _, l := range lines[first+1:] {
			if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '(' {
				continue
			}
			out = append(out, strings.Fields(l)[0])
		}
		return out
	}
	out = lines[:0] // in place: each address is kept at or before its line
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// addressesFromJSON reads b as a stream of JSON values (most often one):
// each value's addresses, in order.
func addressesFromJSON(b []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var out []string
	for n := 1; ; n++ {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, docir.Errorf(docir.CodeUsage, "stdin: JSON value %d: %w", n, err)
		}
		got, err := addressesOfValue(v)
		if docir.CodeOf(err) == docir.CodeReplyTooLarge {
			return nil, err
		} else if err != nil {
			return nil, docir.Errorf(docir.CodeUsage, "stdin: JSON value %d: %w", n, err)
		}
		out = append(out, got...)
	}
}

// hit is what ReadAddresses reads of a hit.
type hit struct {
	ID             string `json:"id"`
	MatchedSection string `json:"matched_section"`
}

// address is the address a hit names: its matched section, else its id.
func (h hit) address(i int) (string, error) {
	switch {
	case h.MatchedSection != "":
		return h.MatchedSection, nil
	case h.ID != "":
		return h.ID, nil
	}
	return "", fmt.Errorf("hit %d has neither matched_section nor id", i)
}

// addressesOfValue reads one JSON value: an array of address strings or
// hits, an address string, the JSON of search, query or context, or one hit.
func addressesOfValue(v json.RawMessage) ([]string, error) {
	switch v[0] {
	case '[':
		return addressesOfArray(v)
	case '"':
		var s string
		err := json.Unmarshal(v, &s)
		return []string{s}, err
	case '{':
	default:
		return nil, fmt.Errorf("not an address, a hit, or the JSON of search, query or context: %.40s", v)
	}
	var l struct {
		Hits      *[]hit    `json:"hits"`
		Addresses *[]string `json:"addresses"`
		hit
	}
	if err := json.Unmarshal(v, &l); err != nil {
		return nil, fmt.Errorf("not the JSON of search, query or context: %w", err)
	}
	switch {
	case l.Addresses != nil:
		return *l.Addresses, nil
	case l.Hits != nil:
		out := make([]string, 0, len(*l.Hits))
		for i, h := range *l.Hits {
			a, err := h.address(i)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		return out, nil
	case l.MatchedSection != "" || l.ID != "":
		a, err := l.address(0)
		return []string{a}, err
	}
	return nil, fmt.Errorf("JSON object with neither %q nor %q (nor a hit's matched_section or id)", "hits", "addresses")
}

// addressesOfArray reads a JSON array of address strings, of hits (what
// `search --jq '.hits'` or '.hits[:3]' prints), or of both: each element's
// address, in order, as a stream of them would be read.
func addressesOfArray(v json.RawMessage) ([]string, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(v, &list); err != nil {
		return nil, err
	}
	if err := checkAddressCount(len(list)); err != nil {
		return nil, err // before each element is decoded
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		switch e[0] {
		case '"':
			var s string
			if err := json.Unmarshal(e, &s); err != nil {
				return nil, err
			}
			out = append(out, s)
		case '{':
			var h hit
			if err := json.Unmarshal(e, &h); err != nil {
				return nil, fmt.Errorf("array element %d is not a hit: %w", i, err)
			}
			a, err := h.address(i)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		default:
			return nil, fmt.Errorf("array element %d is neither an address string nor a hit: %.40s", i, e)
		}
	}
	return out, nil
}

// lazyRegexp compiles expr on first use: regexps at package level are
// compiled in every process, and most commands never read stdin.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
