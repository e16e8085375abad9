package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckListsPastTheReplyBound: docir check on the command line lists
// a report larger than serve's 1 MiB reply (it is bounded as get is, at
// MaxGetBytes): 9,000 broken links, some 1.3 MB of JSON.
func TestCheckListsPastTheReplyBound(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("# Many\n\n")
	for i := range 9000 {
		fmt.Fprintf(&b, "[a](missing-page-number-%d.md)\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "many.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runDocir(t, dir, nil, "index", "--format", "json", "."); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	r := runDocir(t, dir, nil, "check", "--format", "json")
	var res struct {
		Broken []json.RawMessage `json:"broken"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); r.code != 1 || err != nil || len(res.Broken) != 9000 || len(r.stdout) < 1<<20 {
		t.Fatalf("check: exit %d, %d broken listed in %d bytes (%v), stderr %.300s", r.code, len(res.Broken), len(r.stdout), err, r.stderr)
	}
}

// TestLinksListsPastTheReplyBound: docir links on the command line lists a
// page's incoming links past serve's 1 MiB reply (it is bounded as get is,
// at MaxGetBytes): 22,500 links into one page, where serve stops after
// some 9,000.
func TestLinksListsPastTheReplyBound(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("hub.md", "# Hub\n\n## Section\n\ntext\n")
	for p := range 25 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Page %d\n\n", p)
		for i := range 900 {
			fmt.Fprintf(&b, "[link %d](hub.md#section)\n", i)
		}
		write(fmt.Sprintf("page%02d.md", p), b.String())
	}
	if r := runDocir(t, dir, nil, "index", "--format", "json", "."); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	r := runDocir(t, dir, nil, "links", "--format", "json", "hub")
	var res struct {
		Links struct {
			Incoming []json.RawMessage `json:"incoming"`
		} `json:"links"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); r.code != 0 || err != nil || len(res.Links.Incoming) != 22500 || len(r.stdout) < 2<<20 {
		t.Fatalf("links: exit %d, %d incoming in %d bytes (%v), stderr %.300s", r.code, len(res.Links.Incoming), len(r.stdout), err, r.stderr)
	}
}
