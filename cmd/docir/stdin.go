package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"

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
//   - a JSON array of address strings.
//
// Any malformed address fails the whole read with its *address.ParseError,
// so nothing is read for a batch with a typo in it.
func readAddresses(r io.Reader) ([]address.Address, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxAddressList+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxAddressList {
		return nil, docir.Errorf(docir.CodeUsage, "address list on stdin is over %d bytes", MaxAddressList)
	}
	trimmed := bytes.TrimSpace(data)
	var raw []string
	switch {
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		if raw, err = addressesFromJSON(trimmed); err != nil {
			return nil, err
		}
	default:
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 4096), MaxAddressList)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line != "" {
				raw = append(raw, line)
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return address.ParseAll(raw)
}

// addressList is the union of the JSON shapes ReadAddresses accepts.
type addressList struct {
	Hits *[]struct {
		ID             string `json:"id"`
		MatchedSection string `json:"matched_section"`
	} `json:"hits"`
	Addresses *[]string `json:"addresses"`
}

func addressesFromJSON(b []byte) ([]string, error) {
	if b[0] == '[' {
		var list []string
		if err := json.Unmarshal(b, &list); err != nil {
			return nil, docir.Errorf(docir.CodeUsage, "stdin: a JSON array must hold address strings: %v", err)
		}
		return list, nil
	}
	var l addressList
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, docir.Errorf(docir.CodeUsage, "stdin: not the JSON of search, query or context: %v", err)
	}
	switch {
	case l.Addresses != nil:
		return *l.Addresses, nil
	case l.Hits != nil:
		out := make([]string, 0, len(*l.Hits))
		for i, h := range *l.Hits {
			switch {
			case h.MatchedSection != "":
				out = append(out, h.MatchedSection)
			case h.ID != "":
				out = append(out, h.ID)
			default:
				return nil, docir.Errorf(docir.CodeUsage, "stdin: hit %d has neither matched_section nor id", i)
			}
		}
		return out, nil
	}
	return nil, docir.Errorf(docir.CodeUsage, "stdin: JSON object with neither %q nor %q", "hits", "addresses")
}
