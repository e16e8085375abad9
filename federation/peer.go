package federation

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace"
)

// Peer is one declared peer, ready to be asked.
type Peer struct {
	Name     string
	Kind     string // KindPath or KindURL
	Location string // the folder or the url, as configured
	Timeout  time.Duration

	r      docir.Reader // what answers; nil when broken is set
	broken error        // why the peer cannot be asked at all
	close  func()
}

// OpenPeers turns checked peer configs into peers, in declaration order.
// It opens nothing and dials nothing: a peer that is down at start-up is
// found out, and reported as data, when a read asks it.
func OpenPeers(cfgs []PeerConfig) ([]*Peer, error) {
	if err := Check(cfgs); err != nil {
		return nil, err
	}
	out := make([]*Peer, len(cfgs))
	for i, c := range cfgs {
		p := &Peer{Name: c.Name, Kind: c.kind(), Location: c.location(), Timeout: c.timeout()}
		switch {
		case c.Path != "":
			p.r = &pathPeer{dir: c.Path, stemming: c.Stemming}
		case c.TokenEnv != "" && c.Token == "":
			p.broken = fmt.Errorf("environment variable %s (its token_env) is not set", c.TokenEnv)
		case BadHeaderValue(c.Token):
			// net/http would refuse the request, and the peer would
			// read as unreachable; the token is what is wrong.
			p.broken = fmt.Errorf("the token in $%s is not a valid HTTP header value (a trailing newline or another control character?)", c.TokenEnv)
		default:
			hp, err := newHTTPPeer(c)
			if err != nil {
				return nil, docir.Errorf(docir.CodeConfig, "%s: %w", entry(i, c.Name), err)
			}
			p.r, p.close = hp, hp.closeIdle
		}
		out[i] = p
	}
	return out, nil
}

// BadHeaderValue reports whether s holds a character an HTTP header value
// may not (RFC 9110: control characters other than tab): a bearer token
// with one can never be sent, by a peer's client or to a server.
func BadHeaderValue(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return (r < 0x20 && r != '\t') || r == 0x7f })
}

// NewPeer makes a peer of any reader: a federation, a test double, or a
// store opened some other way. Timeout 0 means DefaultTimeout.
func NewPeer(name, kind, location string, timeout time.Duration, r docir.Reader) *Peer {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Peer{Name: name, Kind: kind, Location: location, Timeout: timeout, r: r}
}

// PeerError is how a peer failed one call: the peer, and why.
type PeerError struct {
	Peer string
	Err  error
}

func (e *PeerError) Error() string { return "peer " + e.Peer + ": " + e.Err.Error() }
func (e *PeerError) Unwrap() error { return e.Err }

// errTimeout is the cause of a peer call that ran out of its time.
var errTimeout = errors.New("timed out")

// call runs fn against the peer within the peer's timeout, and, when ctx
// has a deadline (a served read's), ends it ReplyMargin before that
// deadline, so the read still answers with what did resolve: a peer
// timeout longer than what was left of the read made the read fail whole
// (context deadline exceeded), its local documents lost. Either way
// running out of time is the peer's timeout, reported as data. It returns
// when fn does or when the time is up, whichever is first: a peer that
// ignores its context cannot hold the read past the timeout (its goroutine
// ends when it returns; its answer is dropped). A cancelled parent context
// (the client left, Ctrl-C) is returned as is, so the caller can tell an
// interrupted read, which stops, from a failed peer.
func call[T any](ctx context.Context, p *Peer, fn func(context.Context, docir.Reader) (T, error)) (T, error) {
	var zero T
	if p.broken != nil {
		return zero, &PeerError{Peer: p.Name, Err: p.broken}
	}
	if err := cancelled(ctx); err != nil {
		return zero, err
	}
	timeout, timedOut := p.Timeout, fmt.Errorf("%w after %s", errTimeout, p.Timeout)
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl) - ReplyMargin; left < timeout {
			if left <= 0 {
				return zero, &PeerError{Peer: p.Name, Err: fmt.Errorf("%w: not asked, the read's own deadline was near (its timeout is %s)", errTimeout, p.Timeout)}
			}
			timeout = left
			timedOut = fmt.Errorf("%w after %s, what the read's own deadline left it (its timeout is %s)",
				errTimeout, left.Round(time.Millisecond), p.Timeout)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := fn(cctx, p.r)
		done <- outcome{v, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-cctx.Done():
		o.err = cctx.Err()
	}
	if err := cancelled(ctx); err != nil {
		return zero, err
	}
	if o.err != nil {
		if errors.Is(o.err, context.DeadlineExceeded) || cctx.Err() != nil {
			o.err = timedOut
		}
		return zero, &PeerError{Peer: p.Name, Err: o.err}
	}
	return o.v, nil
}

// ReplyMargin is how long before the deadline of a read's context its
// peer calls end: what the read does once its peers are in (merging their
// answers, then encoding a reply of at most 1 MiB, wire.MaxReplyBytes,
// about 2 ms measured) must be done by that deadline, or a served read is
// answered with an error and its documents are lost. A second is hundreds
// of times that, and short beside the 1 min 45 s `docir serve --http`
// gives a request.
const ReplyMargin = time.Second

// cancelled is ctx's error when ctx was cancelled (the client left, or
// Ctrl-C): the read stops. A deadline that passed is not: the peers it
// cut short have timed out, and the read answers with what resolved.
func cancelled(ctx context.Context) error {
	if err := ctx.Err(); errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// pathPeer reads another store folder on disk. Every call opens the peer's
// current generation afresh through a read-only service (AutoIndex off, no
// sources: a peer is never indexed from here) and closes it after, so a
// re-indexed peer is seen at once and a deleted one fails at once.
type pathPeer struct {
	dir      string
	stemming string // PeerConfig.Stemming
}

var _ docir.Reader = (*pathPeer)(nil)

// with opens the peer's store for one call: the configured folder, or,
// when that holds no store, the `.docir` store inside it (so a peer may name
// another project's folder as well as its store folder).
func (p *pathPeer) with(ctx context.Context, fn func(*workspace.Service) error) error {
	info, err := os.Stat(p.dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return docir.Errorf(docir.CodeUnavailable, "folder %s does not exist", p.dir)
	case err != nil:
		return err
	case !info.IsDir():
		return docir.Errorf(docir.CodeUnavailable, "%s is not a folder", p.dir)
	}
	for _, dir := range []string{p.dir, filepath.Join(p.dir, ".docir")} {
		svc := workspace.New(workspace.Config{Dir: dir, Stemming: p.stemming})
		err := errors.Join(fn(svc), svc.Close())
		if docir.CodeOf(err) == docir.CodeNoStore {
			continue // no store here: the store may be inside it
		}
		return err
	}
	return docir.Errorf(docir.CodeUnavailable, "no docir store in %s (never indexed, or removed)", p.dir)
}

func (p *pathPeer) Resolve(ctx context.Context, addrs []address.Address, maxBytes int) (res docir.Resolved, err error) {
	err = p.with(ctx, func(s *workspace.Service) error {
		res, err = s.Resolve(ctx, addrs, maxBytes)
		return err
	})
	return res, err
}

func (p *pathPeer) Search(ctx context.Context, q docir.SearchParams) (res docir.SearchResult, err error) {
	err = p.with(ctx, func(s *workspace.Service) error {
		res, err = s.Search(ctx, q)
		return err
	})
	return res, err
}

func (p *pathPeer) Query(ctx context.Context, q docir.QueryParams) (res docir.SearchResult, err error) {
	err = p.with(ctx, func(s *workspace.Service) error {
		res, err = s.Query(ctx, q)
		return err
	})
	return res, err
}

func (p *pathPeer) Context(ctx context.Context, q docir.ContextParams) (res docir.ContextResult, err error) {
	err = p.with(ctx, func(s *workspace.Service) error {
		res, err = s.Context(ctx, q)
		return err
	})
	return res, err
}

func (p *pathPeer) Status(ctx context.Context) (st docir.Status, err error) {
	err = p.with(ctx, func(s *workspace.Service) error {
		st, err = s.Status(ctx)
		return err
	})
	return st, err
}
