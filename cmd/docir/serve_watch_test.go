package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir/corpustest"
)

// eventually calls ok every 200 ms until it reports true, and fails the
// test after a minute: a watch test waits for what serve does in the
// background, never for a set time.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute: %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// served reports whether the session serves the document id.
func (p *mcpProcess) served(id int, doc string) bool {
	p.t.Helper()
	res := p.callTool(id, "get", `{"doc_ids":["`+doc+`"]}`)
	sc, _ := res["structuredContent"].(map[string]any)
	docs, _ := sc["documents"].([]any)
	return len(docs) == 1
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestServeWatchFollowsConfig: the refreshes of `serve --watch` read
// docir.yaml as it is now, so they keep what docir's own commands did to
// it while serve runs: a source removed stays removed, a source added is
// watched, an exclude added is kept. They read the sources fixed at
// start-up: the removed source came back, the new one was never watched,
// and its refreshes were refused ("would drop").
func TestServeWatchFollowsConfig(t *testing.T) {
	dir := t.TempDir()
	if err := corpustest.CopyTree("../../testdata/corpus", filepath.Join(dir, "docs")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "more", "more-one.md"), "# More one\n\nalpha\n")
	writeFile(t, filepath.Join(dir, "extra", "extra-one.md"), "# Extra one\n\nbeta\n")
	for _, src := range []string{"docs", "more"} {
		if r := runDocir(t, dir, nil, "index", src); r.code != 0 {
			t.Fatalf("docir index %s: %+v", src, r)
		}
	}
	p := startMCP(t, dir, nil, "--watch")
	p.handshake()
	id := 10
	next := func() int { id++; return id }

	// A: a source removed while serve runs stays removed.
	if r := runDocir(t, dir, nil, "sources", "--remove", "more"); r.code != 0 {
		t.Fatalf("docir sources --remove more: %+v", r)
	}
	writeFile(t, filepath.Join(dir, "docs", "zebra-a.md"), "# Zebra a\n\nstripes\n")
	eventually(t, "the watch refresh serves zebra-a", func() bool { return p.served(next(), "zebra-a") })
	if p.served(next(), "more-one") {
		t.Error("the watch refresh put the removed source back")
	}
	if r := runDocir(t, dir, nil, "index"); r.code != 0 {
		t.Errorf("docir index after the watch refresh: %+v", r)
	}

	// B: a source added while serve runs is watched, and refreshes go on.
	if r := runDocir(t, dir, nil, "index", "extra"); r.code != 0 {
		t.Fatalf("docir index extra: %+v", r)
	}
	writeFile(t, filepath.Join(dir, "extra", "extra-two.md"), "# Extra two\n\ngamma\n")
	eventually(t, "a file added to the new source is served", func() bool { return p.served(next(), "extra-two") })
	writeFile(t, filepath.Join(dir, "docs", "zebra-b.md"), "# Zebra b\n\nstripes\n")
	eventually(t, "zebra-b is served", func() bool { return p.served(next(), "zebra-b") })

	// C: an exclude added to docir.yaml is kept by the watch refreshes.
	f, err := os.OpenFile(filepath.Join(dir, "docir.yaml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("exclude: [adr/]\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if r := runDocir(t, dir, nil, "index"); r.code != 0 {
		t.Fatalf("docir index with the exclude: %+v", r)
	}
	writeFile(t, filepath.Join(dir, "docs", "zebra-c.md"), "# Zebra c\n\nstripes\n")
	eventually(t, "zebra-c is served", func() bool { return p.served(next(), "zebra-c") })
	if p.served(next(), "adr/0001-record-architecture-decisions") {
		t.Error("the watch refresh brought the excluded documents back")
	}
}

// TestServeFollowsAStorePublishedLater: a server that started with
// nothing to serve answers from the store another process publishes
// later, and --watch then follows the sources; one whose first index
// failed (two files claim one id) recovers, under --watch, once the
// sources are fixed. Both answered their start-up error for good.
func TestServeFollowsAStorePublishedLater(t *testing.T) {
	t.Run("empty folder", func(t *testing.T) {
		dir := t.TempDir()
		p := startMCP(t, dir, []string{"HOME=" + t.TempDir()}, "--watch")
		p.handshake()
		if res := p.callTool(10, "status", `{}`); res["isError"] != true {
			t.Fatalf("status with no store: %v", res)
		}
		if err := corpustest.CopyTree("../../testdata/corpus", filepath.Join(dir, "docs")); err != nil {
			t.Fatal(err)
		}
		if r := runDocir(t, dir, nil, "index", "docs"); r.code != 0 {
			t.Fatalf("docir index docs: %+v", r)
		}
		if res := p.callTool(11, "status", `{}`); res["isError"] == true {
			t.Fatalf("status after docir index: %v", res)
		}
		writeFile(t, filepath.Join(dir, "docs", "zebra-later.md"), "# Zebra later\n\nstripes\n")
		id := 20
		eventually(t, "--watch serves a file added after the store appeared", func() bool { id++; return p.served(id, "zebra-later") })
	})
	t.Run("clash at start", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "docir.yaml"), "sources:\n  - path: docs\n")
		writeFile(t, filepath.Join(dir, "docs", "one.md"), "---\nid: same\n---\n# One\n\nfirst\n")
		writeFile(t, filepath.Join(dir, "docs", "two.md"), "---\nid: same\n---\n# Two\n\nsecond\n")
		p := startMCP(t, dir, nil, "--watch")
		p.handshake()
		id := 10
		eventually(t, "the first index fails", func() bool {
			id++
			res := p.callTool(id, "status", `{}`)
			return res["isError"] == true && !strings.Contains(toolText(res), "indexing")
		})
		writeFile(t, filepath.Join(dir, "docs", "two.md"), "# Two\n\nsecond\n")
		eventually(t, "the fixed sources are served", func() bool { id++; return p.served(id, "two") })
	})
}

// TestServeWatchSourceDeletedAndBack: --watch watches a source folder
// again once it is back after being deleted; it stopped for good.
func TestServeWatchSourceDeletedAndBack(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := corpustest.CopyTree("../../testdata/corpus", docs); err != nil {
		t.Fatal(err)
	}
	if r := runDocir(t, dir, nil, "index", "docs"); r.code != 0 {
		t.Fatalf("docir index docs: %+v", r)
	}
	p := startMCP(t, dir, nil, "--watch")
	p.handshake()
	if err := os.RemoveAll(docs); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // let the watch see it gone (not asserted: either way it must recover)
	if err := corpustest.CopyTree("../../testdata/corpus", docs); err != nil {
		t.Fatal(err)
	}
	id := 10
	writeFile(t, filepath.Join(docs, "zebra-back.md"), "# Zebra back\n\nstripes\n")
	eventually(t, "a file added after the folder came back is served", func() bool { id++; return p.served(id, "zebra-back") })
	writeFile(t, filepath.Join(docs, "zebra-again.md"), "# Zebra again\n\nstripes\n")
	eventually(t, "a later file is served", func() bool { id++; return p.served(id, "zebra-again") })
}
