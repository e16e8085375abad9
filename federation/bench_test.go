package federation

import (
	"context"
	"fmt"
	"testing"

	"github.com/docir/docir/docir"
)

// benchFiles is a corpus of n small documents with two sections each.
func benchFiles(n int, word string) map[string]string {
	files := make(map[string]string, n)
	for i := range n {
		files[fmt.Sprintf("d%04d.md", i)] = fmt.Sprintf("# Doc %d\n\n%s retry budget %d\n\n## Usage\n\nrun it %d times\n\n## Notes\n\nmore %s\n", i, word, i, i, word)
	}
	return files
}

// BenchmarkGet measures a deep read of two addresses: both local (the
// peer is never asked), and one local one from a path peer (the peer's
// generation is opened and closed for the call).
func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	local := openLocal(b, makeStore(b, benchFiles(500, "alpha")))
	peerFiles := map[string]string{}
	for k, v := range benchFiles(500, "beta") {
		peerFiles["p/"+k] = v
	}
	fed := New(Config{Local: local, Peers: []*Peer{pathPeerOf(b, "peer", makeStore(b, peerFiles))}})
	for _, bc := range []struct {
		name string
		r    docir.Reader
		addr []string
	}{
		{"local-only", local, []string{"d0001", "d0002#usage"}},
		{"federated-all-local", fed, []string{"d0001", "d0002#usage"}},
		{"federated-one-from-peer", fed, []string{"d0001", "p/d0002#usage"}},
	} {
		addrs := mustParseAll(b, bc.addr...)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := docir.Get(ctx, bc.r, addrs, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearch measures a search of the local store alone and of the
// local store with one path peer (asked in parallel, merged by RRF).
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	local := openLocal(b, makeStore(b, benchFiles(500, "alpha")))
	fed := New(Config{Local: local, Peers: []*Peer{pathPeerOf(b, "peer", makeStore(b, benchFiles(500, "beta")))}})
	p := docir.SearchParams{Query: "retry budget", Limit: 10}
	for _, bc := range []struct {
		name string
		r    docir.Reader
	}{{"local-only", local}, {"federated-1-peer", fed}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.r.Search(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
