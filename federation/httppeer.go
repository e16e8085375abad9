package federation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// MaxReply bounds the bytes read of one HTTP peer reply. `docir serve`
// never sends a reply over 1 MiB; anything past this bound is garbage.
const MaxReply = 8 << 20

// httpPeer speaks JSON-RPC 2.0 to a `docir serve --http` endpoint: one
// request frame per POST, one response frame in the reply body.
type httpPeer struct {
	url      string
	token    string
	tokenEnv string
	client   *http.Client
	nextID   atomic.Int64
	instance string // what wire.HeaderPeer carries; set by New
}

var _ docir.Reader = (*httpPeer)(nil)

func newHTTPPeer(c PeerConfig) (*httpPeer, error) {
	u, err := endpoint(c.URL)
	if err != nil {
		return nil, err
	}
	// A transport of its own, so closing the federation closes the
	// peer's idle connections and leaves no goroutine behind.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	// A redirect is not followed: it is the peer's answer (a status other
	// than 200, so the peer fails). Followed, the POST would turn into a
	// GET to wherever the peer points, with the bearer token when that is
	// another port of the same host, and that reply would pass as the
	// peer's.
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &httpPeer{url: u.String(), token: c.Token, tokenEnv: c.TokenEnv,
		client: &http.Client{Transport: tr, CheckRedirect: noRedirect}}, nil
}

func (h *httpPeer) closeIdle() { h.client.CloseIdleConnections() }

// rpc posts one request and returns the raw result. The context bounds the
// whole exchange, reading the reply included.
func (h *httpPeer) rpc(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := h.nextID.Add(1)
	frame, err := json.Marshal(rpcRequest{JSONRPC: wire.Version, ID: id, Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, bytes.NewReader(frame))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	if h.instance != "" {
		req.Header.Set(wire.HeaderPeer, h.instance)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("unreachable: %w", unwrapURLError(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxReply+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("reading the reply: %w", err)
	}
	if len(body) > MaxReply {
		return nil, garbage("reply over %d bytes", MaxReply)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		hint := "it wants a bearer token; set token_env"
		if h.tokenEnv != "" {
			hint = "check the token in $" + h.tokenEnv
		}
		return nil, fmt.Errorf("refused: HTTP %d (%s)", resp.StatusCode, hint)
	case resp.StatusCode == http.StatusForbidden:
		// docir serve answers 403 for a Host or Origin it does not take
		// (a loopback listener asked by another name), never for a token
		// (401): the body says which, and the token is not the fix.
		return nil, fmt.Errorf("refused: HTTP 403: %s", docir.Clip(oneLine(strings.TrimSpace(string(body))), 200)) // oneLine escapes
	case resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") != "":
		return nil, fmt.Errorf("HTTP %d: redirects to %s; redirects are not followed: set the peer's url to where the server answers",
			resp.StatusCode, oneLine(docir.Clip(resp.Header.Get("Location"), 200)))
	case resp.StatusCode != http.StatusOK:
		// A JSON-RPC error may ride on a non-200 status; say it if so.
		if _, rerr := decodeResponse(body, id); rerr != nil && !errors.Is(rerr, errGarbage) {
			return nil, fmt.Errorf("HTTP %d: %w", resp.StatusCode, rerr)
		}
		return nil, fmt.Errorf("HTTP %d: %q", resp.StatusCode, docir.Clip(string(body), 120))
	}
	return decodeResponse(body, id)
}

// unwrapURLError drops the "Post \"url\": " prefix net/http puts before
// the cause; the warning names the peer already.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

func addrStrings(addrs []address.Address) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = a.String()
	}
	return out
}

// Resolve asks the peer for addrs in `doc_ids` calls of at most
// docir.MaxBatch addresses (inBatches) and reads its replies per address.
// The peer bounds each reply by its own session's bound; maxBytes is the
// caller's, which the federation counts.
func (h *httpPeer) Resolve(ctx context.Context, addrs []address.Address, _ int) (docir.Resolved, error) {
	items, warnings, err := inBatches(addrs, func(batch []address.Address) ([]docir.Resolution, []string, error) {
		raw, err := h.rpc(ctx, wire.MethodGet, docir.GetParams{DocIDs: addrStrings(batch)})
		if err != nil {
			return nil, nil, err
		}
		res, err := decodeGetResult(raw)
		if err != nil {
			return nil, nil, err
		}
		items, err := account(batch, res)
		return items, res.Warnings, err
	}, docir.Resolution{Reason: docir.ReasonUnavailable})
	if err != nil {
		return docir.Resolved{}, err
	}
	return docir.Resolved{Items: items, Warnings: warnings}, nil
}

// inBatches asks for addrs in runs that `docir serve` takes in one
// doc_ids call — at most docir.MaxBatch addresses (its max_doc_ids) and a
// request within its frame bound (batchBytes of addresses) — one run
// after the other, and joins the answers in the order of addrs. A run
// whose reply would pass the peer's reply bound (reply_too_large) is
// asked again in halves, down to one address; an address whose own reply
// is too large (a document over the peer's 1 MiB) is answered tooLarge
// (unavailable), with a warning that says why, and the others keep their
// answers: before, that one address failed the whole peer, and every
// address of it, answered or not, was unavailable. A warning several runs
// give is kept once. Any other failure of a run fails the whole: the
// federation then counts every address the peer was asked as unavailable.
func inBatches[T any](addrs []address.Address, ask func([]address.Address) ([]T, []string, error), tooLarge T) ([]T, []string, error) {
	out := make([]T, 0, len(addrs))
	var warnings []string
	seen := map[string]bool{}
	warn := func(w string) {
		if !seen[w] {
			seen[w] = true
			warnings = append(warnings, w)
		}
	}
	var run func([]address.Address) error
	run = func(batch []address.Address) error {
		items, ws, err := ask(batch)
		if docir.CodeOf(err) == docir.CodeReplyTooLarge {
			if len(batch) == 1 {
				out = append(out, tooLarge)
				warn(fmt.Sprintf("%s: unavailable: its reply alone is too large: %v", batch[0], err))
				return nil
			}
			half := len(batch) / 2
			if err := run(batch[:half]); err != nil {
				return err
			}
			return run(batch[half:])
		}
		if err != nil {
			return err
		}
		out = append(out, items...)
		for _, w := range ws {
			warn(w)
		}
		return nil
	}
	for len(addrs) > 0 {
		n, size := 0, 0
		for n < len(addrs) && n < docir.MaxBatch {
			b, _ := json.Marshal(addrs[n].String())
			if n > 0 && size+len(b)+1 > batchBytes {
				break
			}
			size += len(b) + 1
			n++
		}
		if err := run(addrs[:n]); err != nil {
			return nil, nil, err
		}
		addrs = addrs[n:]
	}
	return out, warnings, nil
}

// batchBytes bounds the addresses of one doc_ids call, as JSON: a peer's
// frame bound (wire.MaxFrameBytes) less room for the rest of the request
// (its envelope, the method, a selector).
const batchBytes = wire.MaxFrameBytes - 4<<10

func (h *httpPeer) Search(ctx context.Context, p docir.SearchParams) (docir.SearchResult, error) {
	raw, err := h.rpc(ctx, wire.MethodSearch, p)
	if err != nil {
		return docir.SearchResult{}, err
	}
	return decodeSearchResult(raw)
}

func (h *httpPeer) Query(ctx context.Context, p docir.QueryParams) (docir.SearchResult, error) {
	raw, err := h.rpc(ctx, wire.MethodQuery, p)
	if err != nil {
		return docir.SearchResult{}, err
	}
	return decodeSearchResult(raw)
}

func (h *httpPeer) Context(ctx context.Context, p docir.ContextParams) (docir.ContextResult, error) {
	raw, err := h.rpc(ctx, wire.MethodContext, p)
	if err != nil {
		return docir.ContextResult{}, err
	}
	return decodeContextResult(raw)
}

func (h *httpPeer) Status(ctx context.Context) (docir.Status, error) {
	raw, err := h.rpc(ctx, wire.MethodStatus, struct{}{})
	if err != nil {
		return docir.Status{}, err
	}
	return decodeStatus(raw)
}
