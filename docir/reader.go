package docir

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/docir/docir/address"
)

// Reader is what every transport calls: the local store (a workspace
// service, or a view of one generation of it), a peer, or the federation of
// them. Addresses arrive parsed: a malformed one never gets this far.
type Reader interface {
	// Resolve reads each address, in order: one Resolution per address,
	// a miss as data. An error means nothing could be read. maxBytes
	// bounds the reply the documents make (see Tally): a reader stops as
	// soon as the bodies it has gathered pass it, and answers
	// reply_too_large, instead of building a reply that would be refused
	// once built. maxBytes <= 0 means no bound.
	Resolve(ctx context.Context, addrs []address.Address, maxBytes int) (Resolved, error)
	// Search ranks documents for free text; hits never carry a body.
	Search(ctx context.Context, p SearchParams) (SearchResult, error)
	// Query filters documents by front matter and metadata; a bad
	// expression is an invalid_query error. Hits never carry a body.
	Query(ctx context.Context, p QueryParams) (SearchResult, error)
	// Context ranks documents like Search, with each one's outline and the
	// ordered addresses to read next within a token budget. No bodies.
	Context(ctx context.Context, p ContextParams) (ContextResult, error)
	// Status describes the store(s) behind the reader.
	Status(ctx context.Context) (Status, error)
	// Links reads the links leaving and reaching each address, in order:
	// one LinkResolution per address, a miss as data (as Resolve). No
	// bodies. maxBytes bounds the link sets gathered, as Resolve's bounds
	// its documents (<= 0: no bound).
	Links(ctx context.Context, addrs []address.Address, maxBytes int) (LinksResolved, error)
	// LinksPage reads one page of one address's link set: its links from
	// p.From (the outgoing, then the incoming), at most p.Limit (0: no
	// limit) and no more JSON than maxBytes (0: wire.MaxPageBytes; less
	// than 0: none), the set's More saying where the next page starts
	// when links remain; a link that alone passes the bound is
	// reply_too_large. One item, a miss as data. p.Generation, when not 0,
	// is the generation a cursor was cut from: a read of another one is
	// invalid_params. A federation pages its local store's sets only (see
	// federation.Reader.LinksPage).
	LinksPage(ctx context.Context, a address.Address, p Page, maxBytes int) (LinksResolved, error)
	// Check lists the broken links of the local store's generation (and
	// with p.External its external links). A federation answers for its
	// local store only.
	Check(ctx context.Context, p CheckParams) (CheckResult, error)
	// Changes lists what changed between two retained generations of the
	// local store (p.Since to p.Until; p.SinceReceipt is resolved by the
	// caller). A federation answers for its local store only.
	Changes(ctx context.Context, p ChangesParams) (ChangesResult, error)
}

// Resolution is the outcome of one address of a deep read.
type Resolution struct {
	Document *Document // nil when it did not resolve
	Reason   string    // a Reason* when Document is nil
	// Suggestions are addresses the store holds that a no_document miss
	// most likely meant; data for the caller, never read in its place.
	Suggestions []string
}

// Resolved is what a Reader made of a list of addresses: one Resolution
// per address, in request order, and the warnings of the stores that could
// not answer.
type Resolved struct {
	Items    []Resolution
	Warnings []string
}

// Get is a `doc_ids` read through r: the documents that resolved in request
// order and the addresses that did not, assembled once; at most maxBytes of
// documents and misses (Reader.Resolve; <= 0: no bound). A list of
// addresses whose reply must pass maxBytes even if none resolved is
// refused before anything is read (CheckReplyFloor).
func Get(ctx context.Context, r Reader, addrs []address.Address, maxBytes int) (GetResult, error) {
	if err := CheckReplyFloor(addrs, maxBytes); err != nil {
		return GetResult{}, err
	}
	res, err := r.Resolve(ctx, addrs, maxBytes)
	if err != nil {
		return GetResult{}, err
	}
	out := GetResult{Documents: []Document{}, Missing: []Missing{}, Warnings: res.Warnings}
	for i, item := range res.Items {
		if item.Document != nil {
			out.Documents = append(out.Documents, *item.Document)
		} else {
			out.Missing = append(out.Missing, Missing{Address: addrs[i].String(), Reason: item.Reason, Suggestions: item.Suggestions})
		}
	}
	return out, nil
}

// GetOne is a `doc_id` read through r: the document, or a not_found error
// whose message carries the warnings of the stores that could not answer.
// A document over maxBytes (<= 0: no bound) is reply_too_large.
func GetOne(ctx context.Context, r Reader, a address.Address, maxBytes int) (Document, error) {
	doc, _, err := GetOneWarned(ctx, r, a, maxBytes)
	return doc, err
}

// GetOneWarned is GetOne with the warnings of a read that found its
// document ("3 sections are headed …"): the doc_id reply is the document
// alone, so a caller with a place for them (the command line's stderr)
// asks for them.
func GetOneWarned(ctx context.Context, r Reader, a address.Address, maxBytes int) (Document, []string, error) {
	res, err := r.Resolve(ctx, []address.Address{a}, maxBytes)
	if err != nil {
		return Document{}, nil, err
	}
	if len(res.Items) != 1 {
		return Document{}, nil, Errorf(CodeInternal, "%s: a store answered %d resolutions for one address", a, len(res.Items))
	}
	if d := res.Items[0].Document; d != nil {
		return *d, res.Warnings, nil
	}
	warnings := res.Warnings
	if s := res.Items[0].Suggestions; len(s) > 0 {
		warnings = append([]string{"did you mean " + strings.Join(s, ", ") + "?"}, warnings...)
	}
	return Document{}, nil, NotFound(a, res.Items[0].Reason, warnings)
}

// NotFound is the error of a single-address read that found nothing; the
// warnings of stores that could not answer are part of its message.
func NotFound(a address.Address, reason string, warnings []string) error {
	what := "no document " + a.ID
	switch reason {
	case ReasonNoSection:
		what = "document " + a.ID + " has no section " + a.Heading
	case ReasonUnavailable:
		what = "no store that might hold " + a.ID + " could answer"
	}
	msg := fmt.Sprintf("%s: %s (%s)", a, what, reason)
	if len(warnings) > 0 {
		msg += "; " + strings.Join(warnings, "; ")
	}
	return &Error{Code: CodeNotFound, Message: msg, Err: errors.New(reason)}
}

// Tally counts the bytes a deep read has gathered against its bound (the
// maxBytes of Reader.Resolve): its documents (Add) and its misses
// (AddMiss), so that a read of many addresses that resolve to nothing is
// bounded as one of many documents is. The zero Tally is unbounded.
type Tally struct {
	Bound, Bytes int
}

// MissBytes is what a Tally counts for one miss besides its address and
// suggestions: its JSON, `{"address":"","reason":"no_document"}` and a
// comma, rounded up. It is less than the 128 bytes Add counts for a
// document besides its strings, so an address counts at least its length
// and MissBytes however it resolves (CheckReplyFloor).
const MissBytes = 48

// AddMiss counts one miss (address addr, its reason and suggestions), the
// read of address number done of total, and reports reply_too_large once
// the total passes the bound.
func (t *Tally) AddMiss(addr, reason string, suggestions []string, done, total int) error {
	n := len(addr) + len(reason) + MissBytes
	for _, s := range suggestions {
		n += len(s) + 3 // its quotes and comma
	}
	if !t.add(n) {
		return nil
	}
	return Errorf(CodeReplyTooLarge,
		"the addresses asked for pass the %d-byte reply bound at address %d of %d (%s is missing: %s; each miss counts its address and %d bytes); ask for fewer addresses in several calls",
		t.Bound, done, total, addr, reason, MissBytes)
}

// MaxAddresses is the most addresses a read bounded by maxBytes (> 0) can
// answer: a Tally counts each at least one byte of id and MissBytes. A
// caller gathering addresses (a list on stdin) can refuse more before it
// parses them.
func MaxAddresses(maxBytes int) int { return maxBytes / (1 + MissBytes) }

// CheckReplyFloor refuses, with reply_too_large naming how many addresses
// were given, a read of addrs whose reply passes maxBytes (<= 0: no bound)
// whatever the store holds: a Tally counts each address at least its
// length and MissBytes (a miss without suggestions; a document counts
// more), so such a read would stop with reply_too_large anyway, after
// holding a resolution per address. It allocates nothing.
func CheckReplyFloor(addrs []address.Address, maxBytes int) error {
	if maxBytes <= 0 {
		return nil
	}
	floor := 0
	for i, a := range addrs {
		floor += len(a.ID) + MissBytes
		if a.HasHeading() {
			floor += 1 + len(a.Heading)
		}
		if floor > maxBytes {
			return Errorf(CodeReplyTooLarge,
				"%d addresses cannot be answered within the %d-byte reply bound: the first %d alone pass it even if none resolves (each counts its length and %d bytes, as a miss); ask for fewer addresses in several calls",
				len(addrs), maxBytes, i+1, MissBytes)
		}
	}
	return nil
}

// Add counts one document, the read of address number done of total, and
// reports reply_too_large once the total passes the bound, naming the
// address that passed it and what to ask instead.
func (t *Tally) Add(d *Document, done, total int) error {
	if !t.add(len(d.Body) + len(d.Title) + len(d.Address) + len(d.ID) + len(d.Path) + 128) {
		return nil
	}
	return Errorf(CodeReplyTooLarge,
		"the documents asked for pass the %d-byte reply bound at address %d of %d (%s is %d bytes); ask for fewer addresses, or for sections (id#heading), in several calls",
		t.Bound, done, total, d.Address, len(d.Body))
}

// add counts n bytes and reports whether the total has passed the bound.
func (t *Tally) add(n int) bool {
	t.Bytes += n
	return t.Bound > 0 && t.Bytes > t.Bound
}

// ReadLog records the documents that reads read, so that a caller can
// check afterwards that their source files did not change under them (the
// read batch's source authentication). It is a value the caller hands to
// the reader that records into it (workspace.View.Recording) and to the
// check, never a context value. It is safe for concurrent use.
type ReadLog struct {
	mu  sync.Mutex
	ids map[string]bool
}

// Add records that document id was read. A nil log records nothing.
func (l *ReadLog) Add(id string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids == nil {
		l.ids = map[string]bool{}
	}
	l.ids[id] = true
}

// IDs lists the documents read, sorted.
func (l *ReadLog) IDs() []string {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Sorted(maps.Keys(l.ids))
}
