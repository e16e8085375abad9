package session

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store"
	"github.com/docir/docir/workspace"
)

// bigDocRequest asks for 300 copies of one 1.2 MB document: 360 MB of
// bodies if it were assembled before the reply bound refused it.
func bigDocRequest() []byte {
	ids := make([]string, 300)
	for i := range ids {
		ids[i] = "big"
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": wire.MethodGet, "params": map[string]any{"doc_ids": ids}})
	return b
}

// TestGetMemoryIsBoundedPerRequest: the server answers the 300-copy
// request (the shape that built 1.17 GB of reply from a 3.9 MB document
// before) with reply_too_large and its peak resident memory stays under
// 100 MB: bodies stop being gathered as soon as they pass the reply bound.
// The server runs in a child process (this test binary) so that its peak
// RSS is its own.
func TestGetMemoryIsBoundedPerRequest(t *testing.T) {
	if dir := os.Getenv("DOCIR_BOUND_HELPER"); dir != "" {
		boundHelper(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("indexes a 1.2 MB document and runs a child process")
	}
	root := t.TempDir()
	src, dir := filepath.Join(root, "src"), filepath.Join(root, "store")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# Big\n\n")
	for b.Len() < 1_200_000 {
		fmt.Fprintf(&b, "Line %d of a long document, with words to index.\n", b.Len())
	}
	if err := os.WriteFile(filepath.Join(src, "big.md"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(workspace.Config{Dir: dir, Sources: []store.Source{{Path: src}}})
	if _, err := ws.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	ws.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestGetMemoryIsBoundedPerRequest$", "-test.count=1")
	cmd.Env = append(os.Environ(), "DOCIR_BOUND_HELPER="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var reply string
	var hwm int
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "reply: "); ok {
			reply = v
		}
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			hwm, _ = strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
		}
	}
	if !strings.Contains(reply, `"code":"reply_too_large"`) || !strings.Contains(reply, "ask for fewer addresses") {
		t.Errorf("reply %.300s: want a reply_too_large error naming the remedy", reply)
	}
	if hwm == 0 {
		t.Fatalf("no VmHWM in the helper's output:\n%s", out)
	}
	t.Logf("peak RSS answering 300 copies of a 1.2 MB document: %d kB", hwm)
	if hwm > 100_000 {
		t.Errorf("peak RSS %d kB, want under 100 MB", hwm)
	}
}

// boundHelper is the child process: it serves the request and reports the
// reply and its own peak RSS.
func boundHelper(t *testing.T, dir string) {
	ws := workspace.New(workspace.Config{Dir: dir})
	defer ws.Close()
	e := New(Config{Reader: ws})
	reply := e.Handle(context.Background(), bigDocRequest())
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("reply: %s\n", reply)
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			fmt.Println(line)
		}
	}
}
