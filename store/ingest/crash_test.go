package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestKilledIndexNeverTearsAReader drives `docir index` as a subprocess
// and kills it (SIGKILL) at random points, at least 50 times, while reader
// goroutines run `docir get` of several documents. Every round rewrites
// every file with a new version number, so a generation holds one version
// throughout: every multi-document read must come whole from one
// generation (all documents report the same generation, and their bodies
// carry one version), and a generation number, once seen, always shows
// the same version.
func TestKilledIndexNeverTearsAReader(t *testing.T) {
	if testing.Short() {
		t.Skip("builds docir and kills it 50 times; skipped with -short")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "docir")
	build := exec.Command("go", "build", "-o", bin, "github.com/docir/docir/cmd/docir")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src, storeDir := filepath.Join(tmp, "src"), filepath.Join(tmp, "store")
	work, readWork := filepath.Join(tmp, "work"), filepath.Join(tmp, "read")
	for _, d := range []string{src, work, readWork} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Six documents the readers ask for, and filler that makes a refresh
	// long enough for kills to land in every stage of it.
	read := []string{"doc0", "doc1", "doc2", "doc3", "doc4", "doc5"}
	const filler = 100
	writeVersion := func(v int) {
		for _, id := range read {
			writeFile(t, src, id+".md", fmt.Sprintf("# %s\n\nversion %d\n\n## Part\n\nversion %d again\n", id, v, v))
		}
		for i := range filler {
			writeFile(t, src, fmt.Sprintf("filler/f%03d.md", i), fmt.Sprintf("# Filler %d\n\n%s version %d\n", i, strings.Repeat("words to index ", 40), v))
		}
	}
	index := func(ctx context.Context) *exec.Cmd {
		cmd := exec.CommandContext(ctx, bin, "--store", storeDir, "--format", "json", "index", src)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		return cmd
	}

	// Two generations; the second, an incremental refresh like the ones
	// killed below, is timed: kills are spread over 1.5 times as long at
	// first, then over a span that grows after a kill and shrinks after a
	// finished refresh.
	writeVersion(0)
	if out, err := index(context.Background()).CombinedOutput(); err != nil {
		t.Fatalf("first index: %v\n%s", err, out)
	}
	writeVersion(1)
	start := time.Now()
	if out, err := index(context.Background()).CombinedOutput(); err != nil {
		t.Fatalf("second index: %v\n%s", err, out)
	}
	span := max(time.Since(start)*3/2, 50*time.Millisecond)

	rd := &killReads{bin: bin, store: storeDir, dir: readWork, ids: read, seen: map[uint64]string{}}
	readOnce := rd.readOnce
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
					_ = readOnce()
				}
			}
		}()
	}

	const wantKills = 50
	kills, completed := killRefreshes(t, index, writeVersion, span, wantKills)
	close(stop)
	readers.Wait()

	// After all that, a refresh completes and serves the last version.
	final := 100000
	writeVersion(final)
	if out, err := index(context.Background()).CombinedOutput(); err != nil {
		t.Fatalf("final index: %v\n%s", err, out)
	}
	if v := readOnce(); v != fmt.Sprint(final) {
		t.Errorf("after the final refresh, a read shows version %q, want %d", v, final)
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	t.Logf("%d kills, %d completed refreshes, %d whole multi-document reads, %d generations seen", kills, completed, rd.reads, len(rd.seen))
	for _, f := range rd.failures {
		t.Error(f)
	}
	if kills < wantKills {
		t.Errorf("only %d kills in the time allowed; want %d", kills, wantKills)
	}
	if rd.reads < wantKills {
		t.Errorf("only %d reads succeeded", rd.reads)
	}
	if len(rd.seen) < 2 {
		t.Errorf("readers saw %d generations; the test read nothing new", len(rd.seen))
	}
}

// killReads reads the same documents of a store with `docir get`, again
// and again beside refreshes that are killed, and keeps what it saw: each
// generation's version, how many whole reads, and the first failures (a
// torn body, a read that mixes generations or versions, a generation that
// changed its version).
type killReads struct {
	bin, store, dir string   // the binary, the store, where it runs
	ids             []string // the documents every read asks for

	mu       sync.Mutex
	seen     map[uint64]string // generation → the version its bodies carry
	reads    int
	failures []string
}

// killVersionRE finds the version a body carries.
var killVersionRE = regexp.MustCompile(`version (\d+)`)

func (r *killReads) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.failures) < 10 {
		r.failures = append(r.failures, fmt.Sprintf(format, args...))
	}
}

// readOnce reads every document once and returns the version they carry,
// "" when the read failed.
func (r *killReads) readOnce() (version string) {
	cmd := exec.Command(r.bin, append([]string{"--store", r.store, "--format", "json", "get"}, r.ids...)...)
	cmd.Dir = r.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		r.fail("docir get: %v: %s", err, stderr.String())
		return
	}
	var reply struct {
		Documents []struct {
			ID         string `json:"id"`
			Generation uint64 `json:"generation"`
			Body       string `json:"body"`
		} `json:"documents"`
		Missing []any `json:"missing"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &reply); err != nil {
		r.fail("docir get printed %q: %v", stdout.String(), err)
		return
	}
	if len(reply.Documents) != len(r.ids) || len(reply.Missing) != 0 {
		r.fail("read %d documents, %d missing: %s", len(reply.Documents), len(reply.Missing), stdout.String())
		return
	}
	gen := reply.Documents[0].Generation
	for _, d := range reply.Documents {
		vs := killVersionRE.FindAllStringSubmatch(d.Body, -1)
		if len(vs) != 2 || vs[0][1] != vs[1][1] {
			r.fail("%s in generation %d has a torn body %q", d.ID, d.Generation, d.Body)
			return
		}
		if version == "" {
			version = vs[0][1]
		}
		if d.Generation != gen || vs[0][1] != version {
			r.fail("one read mixes generations or versions: %s is generation %d version %s, %s is generation %d version %s",
				reply.Documents[0].ID, gen, version, d.ID, d.Generation, vs[0][1])
			return
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads++
	if v, ok := r.seen[gen]; ok && v != version {
		r.failures = append(r.failures, fmt.Sprintf("generation %d showed version %s, then version %s", gen, v, version))
	}
	r.seen[gen] = version
	return version
}

// killRefreshes runs refreshes of new versions and kills each after a
// random delay within span (which shrinks after a refresh that finished and
// grows after a kill, so that kills land in every stage, the publish
// included), until wantKills kills or a deadline. It returns the kills and
// the refreshes that finished.
func killRefreshes(t *testing.T, index func(context.Context) *exec.Cmd, writeVersion func(int), span time.Duration, wantKills int) (kills, completed int) {
	t.Helper()
	// About 30 s on an idle two-core machine; the cap is for a loaded one.
	deadline := time.Now().Add(6 * time.Minute)
	for v := 2; kills < wantKills && time.Now().Before(deadline); v++ {
		writeVersion(v)
		cmd := index(context.Background())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rand.Int64N(int64(span)))
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("index of version %d: %v\n%s", v, err, out.String())
			}
			completed++
			span = span * 9 / 10
		case <-time.After(delay):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			if err := <-exited; err == nil {
				completed++ // it finished before the signal landed
			} else {
				kills++
			}
			// Kills and finished refreshes should take turns about
			// evenly, so that kills land around the publish too.
			span = span * 11 / 10
		}
	}
	return kills, completed
}
