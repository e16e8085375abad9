package workspace

import (
	"context"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// Reader is what every transport calls: the local Service, or the
// federation of it with declared peers. Addresses arrive parsed; a
// malformed one never gets this far.
type Reader interface {
	// Get is a `doc_ids` read: documents in request order, misses as data.
	Get(ctx context.Context, addrs []address.Address) (docir.GetResult, error)
	// GetOne is a `doc_id` read: the document, or a not_found error.
	GetOne(ctx context.Context, a address.Address) (docir.Document, error)
	// Search ranks documents for free text; hits never carry a body.
	Search(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error)
	// Query filters documents by front matter and metadata; a bad
	// expression is an invalid_query error. Hits never carry a body.
	Query(ctx context.Context, p docir.QueryParams) (docir.SearchResult, error)
	// Context ranks documents like Search, with each one's outline and the
	// ordered addresses to read next within a token budget. No bodies.
	Context(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error)
	// Status describes the store(s) behind the reader.
	Status(ctx context.Context) (docir.Status, error)
}

var _ Reader = (*Service)(nil)

// Get reads addrs from the local store.
func (s *Service) Get(ctx context.Context, addrs []address.Address) (docir.GetResult, error) {
	res, err := s.Resolve(ctx, addrs)
	if err != nil {
		return docir.GetResult{}, err
	}
	return Assemble(addrs, res), nil
}

// GetOne reads one address from the local store.
func (s *Service) GetOne(ctx context.Context, a address.Address) (docir.Document, error) {
	res, err := s.Resolve(ctx, []address.Address{a})
	if err != nil {
		return docir.Document{}, err
	}
	if res[0].Document == nil {
		return docir.Document{}, NotFound(a, res[0].Reason)
	}
	return *res[0].Document, nil
}

// ParseAll parses every address, failing on the first malformed one, so
// that a batch with a typo reads nothing.
func ParseAll(raw []string) ([]address.Address, error) {
	out := make([]address.Address, len(raw))
	for i, s := range raw {
		a, err := address.Parse(s)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}
