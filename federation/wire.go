package federation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store/ingest"
)

// The replies of an HTTP peer are outside input. This file decodes them
// (JSON-RPC 2.0 framing, then each method's result) and checks every reply
// of every store against what was asked before the federation uses it.

// errGarbage marks a reply that is not what a docir peer answers.
var errGarbage = errors.New("answered garbage")

func garbage(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errGarbage, fmt.Sprintf(format, args...))
}

// rpcRequest is one JSON-RPC 2.0 request frame.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"` // wire.Version
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// validCode: what a stable code looks like (a lower-case letter, then up
// to 63 lower-case letters and '_'); anything else from a peer is not
// passed on as a code.
func validCode(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

// decodeResponse reads a JSON-RPC 2.0 response (wire.Response, the
// frame `docir serve` writes) to the request numbered id: the raw result,
// or the peer's error as a *docir.Error carrying the code the peer gave (in
// error.data.code). Anything else is garbage.
func decodeResponse(body []byte, id int64) (json.RawMessage, error) {
	var r wire.Response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, garbage("not a JSON-RPC response: %v", err)
	}
	if r.JSONRPC != wire.Version {
		return nil, garbage("jsonrpc is %q, want %q", peerText(r.JSONRPC), wire.Version)
	}
	if got := string(bytes.TrimSpace(r.ID)); got != strconv.FormatInt(id, 10) {
		return nil, garbage("reply id %s, want %d", peerText(orNull(got)), id)
	}
	hasResult := len(r.Result) > 0 && string(r.Result) != "null"
	switch {
	case r.Error != nil && hasResult:
		return nil, garbage("both result and error")
	case r.Error != nil:
		if r.Error.Code == 0 {
			return nil, garbage("an error without a code")
		}
		code := docir.CodeUnavailable
		if c := r.Error.StableCode(); validCode(string(c)) {
			code = c
		}
		return nil, &docir.Error{Code: code, Message: fmt.Sprintf("answered error %d (%s): %s", r.Error.Code, code, oneLine(docir.Clip(r.Error.Message, 300)))}
	case !hasResult:
		return nil, garbage("neither result nor error")
	}
	return r.Result, nil
}

// oneLine is text a peer supplied (its warning, its error message) made
// one line of a warning (docir.Printable): a peer cannot start a line of
// its own on stderr (a forged "docir: error: ...") or drive a terminal.
func oneLine(s string) string { return docir.Printable(s, false) }

// maxPeerText bounds what peerText shows of a value a peer sent.
const maxPeerText = 64

// peerText is a value a peer sent where it has no business (its reply's
// id, its jsonrpc version) as an error quotes it: one line, at most
// maxPeerText bytes and "…".
func peerText(s string) string { return docir.Clip(oneLine(s), maxPeerText) }

func orNull(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// wireGetResult is a GetResult as read: absent lists are told apart from
// empty ones.
type wireGetResult struct {
	Documents *[]docir.Document `json:"documents"`
	Missing   *[]docir.Missing  `json:"missing"`
	Warnings  []string          `json:"warnings"`
}

func decodeGetResult(raw json.RawMessage) (docir.GetResult, error) {
	var w wireGetResult
	if err := json.Unmarshal(raw, &w); err != nil {
		return docir.GetResult{}, garbage("get result: %v", err)
	}
	if w.Documents == nil || w.Missing == nil {
		return docir.GetResult{}, garbage("get result without documents or missing")
	}
	return docir.GetResult{Documents: *w.Documents, Missing: *w.Missing, Warnings: w.Warnings}, nil
}

// wireSearchResult is a SearchResult as read.
type wireSearchResult struct {
	Query    string              `json:"query"`
	Hits     *[]docir.Hit        `json:"hits"`
	Total    int                 `json:"total"`
	Stores   []docir.StoreStatus `json:"stores"`
	Warnings []string            `json:"warnings"`
}

func decodeSearchResult(raw json.RawMessage) (docir.SearchResult, error) {
	var w wireSearchResult
	if err := json.Unmarshal(raw, &w); err != nil {
		return docir.SearchResult{}, garbage("search result: %v", err)
	}
	if w.Hits == nil {
		return docir.SearchResult{}, garbage("search result without hits")
	}
	return docir.SearchResult{Query: w.Query, Hits: *w.Hits, Total: w.Total, Stores: w.Stores, Warnings: w.Warnings}, nil
}

// wireContextResult is a ContextResult as read.
type wireContextResult struct {
	Query      string              `json:"query"`
	Budget     int                 `json:"budget"`
	Hits       *[]docir.ContextHit `json:"hits"`
	Addresses  *[]string           `json:"addresses"`
	Tokens     int                 `json:"tokens"`
	Warnings   []string            `json:"warnings"`
	Generation uint64              `json:"generation"`
}

func decodeContextResult(raw json.RawMessage) (docir.ContextResult, error) {
	var w wireContextResult
	if err := json.Unmarshal(raw, &w); err != nil {
		return docir.ContextResult{}, garbage("context result: %v", err)
	}
	if w.Hits == nil || w.Addresses == nil {
		return docir.ContextResult{}, garbage("context result without hits or addresses")
	}
	return docir.ContextResult{Query: w.Query, Budget: w.Budget, Hits: *w.Hits, Addresses: *w.Addresses,
		Tokens: w.Tokens, Warnings: w.Warnings, Generation: w.Generation}, nil
}

func decodeStatus(raw json.RawMessage) (docir.Status, error) {
	var st docir.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		return docir.Status{}, garbage("status: %v", err)
	}
	if st.Documents < 0 {
		return docir.Status{}, garbage("status with %d documents", st.Documents)
	}
	return st, nil
}

// account checks a store's reply to a `doc_ids` read of asked (distinct
// addresses) and returns what it said about each, in the order asked:
// every address asked is answered exactly once, as a document or as a miss
// with a known reason, and nothing else is answered.
func account(asked []address.Address, res docir.GetResult) ([]docir.Resolution, error) {
	found := make([]accounted[docir.Document], len(res.Documents))
	for i := range res.Documents {
		d := &res.Documents[i]
		if d.ID == "" {
			return nil, garbage("document %q without an id", d.Address)
		}
		if d.Section != nil && d.Section.Slug == "" {
			return nil, garbage("document %q names a section without a slug", d.Address)
		}
		// The document must be the one asked for: a store answers an
		// address by its exact id (suggestions are never applied) or, for
		// the id of a bundle's page ("a/b/_index"), by its folder's ("a/b");
		// and with a section exactly when the address names one. (An
		// address that does not parse, or was not asked, is refused by
		// accountAll.)
		if a, err := address.Parse(d.Address); err == nil {
			folder, bundle := ingest.BundleFolder(a.ID)
			switch {
			case d.ID != a.ID && !(bundle && folder != "" && d.ID == folder):
				return nil, garbage("document %q has id %q, not the id asked", d.Address, d.ID)
			case a.Heading == "" && d.Section != nil:
				return nil, garbage("document %q names a section, but the address names none", d.Address)
			case a.Heading != "" && d.Section == nil:
				return nil, garbage("document %q names no section", d.Address)
			}
		}
		found[i] = accounted[docir.Document]{address: d.Address, value: d}
	}
	items, err := accountAll(asked, found, res.Missing)
	if err != nil {
		return nil, err
	}
	out := make([]docir.Resolution, len(items))
	for i, an := range items {
		out[i] = docir.Resolution{Document: an.Value, Reason: an.Reason, Suggestions: an.Suggestions}
	}
	return out, nil
}

// checkHits checks a store's skeleton hits: each names a document, once
// (a store ranks a document once; a document listed again would add to
// its fused score once a listing), its matched_section is an address
// of that document that `get` accepts, and its also lists addresses, no
// more than a search may ask for.
func checkHits(hits []docir.Hit) error {
	at := make(map[string]int, len(hits))
	for i, h := range hits {
		if j, again := at[h.ID]; again {
			return garbage("hit %d: document %q is ranked again (hit %d)", i, h.ID, j)
		}
		at[h.ID] = i
		a, err := address.Parse(h.MatchedSection)
		if err != nil {
			return garbage("hit %d: matched_section: %v", i, err)
		}
		if h.ID == "" || a.ID != h.ID {
			return garbage("hit %d: matched_section %q is not an address of document %q", i, h.MatchedSection, h.ID)
		}
		if math.IsNaN(h.Score) || math.IsInf(h.Score, 0) {
			return garbage("hit %d: score %v", i, h.Score)
		}
		if len(h.Also) > docir.MaxLimit {
			return garbage("hit %d: also lists %d sections, over %d", i, len(h.Also), docir.MaxLimit)
		}
		for j, s := range h.Also {
			if _, err := address.Parse(s); err != nil {
				return garbage("hit %d: also %d: %v", i, j, err)
			}
		}
	}
	return nil
}
