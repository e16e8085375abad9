// Package corpustest finds the shared real corpora and evaluation sets
// (../shared beside the repository, or $DOCIR_SHARED) and unpacks a corpus
// into a temporary folder for a test or benchmark. When the shared folder
// is absent, tests skip with a message saying so; CI always has it.
//
// It is imported only by tests, benchmarks and the bench command.
package corpustest

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Known corpora: tarball names under corpora/.
const (
	RustRFCs  = "rust-rfcs.tar.gz"  // unpacks to rfcs/
	TLDRPages = "tldr-pages.tar.gz" // unpacks to tldr/pages*/
	HugoDocs  = "hugo-docs.tar.gz"  // unpacks to hugo-docs/
)

// ModuleRoot is the folder of docir's go.mod (this file is
// <root>/docir/corpustest/corpustest.go), where testdata/ is.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// SharedDir returns the shared folder: $DOCIR_SHARED, else the first
// "shared" folder found beside the module root or above it.
func SharedDir() (string, error) {
	if d := os.Getenv("DOCIR_SHARED"); d != "" {
		return d, nil
	}
	dir := ModuleRoot()
	for {
		p := filepath.Join(filepath.Dir(dir), "shared")
		if st, err := os.Stat(filepath.Join(p, "corpora")); err == nil && st.IsDir() {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("corpustest: no shared folder (../shared with corpora/) found; set DOCIR_SHARED")
		}
		dir = parent
	}
}

// Shared returns the shared folder or skips the test.
func Shared(tb testing.TB) string {
	tb.Helper()
	d, err := SharedDir()
	if err != nil {
		tb.Skipf("skipping: needs the shared corpora: %v", err)
	}
	return d
}

// Unpack extracts the named corpus tarball into a new temporary folder of
// tb's and returns that folder. Paths inside are kept as in the tarball.
func Unpack(tb testing.TB, name string) string {
	tb.Helper()
	dst := tb.TempDir()
	if err := UnpackTo(filepath.Join(Shared(tb), "corpora", name), dst); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// UnpackTo extracts the tarball at src into dst, refusing entries that would
// land outside dst.
func UnpackTo(src, dst string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		target := filepath.Join(dst, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(target, filepath.Clean(dst)+string(filepath.Separator)) {
			return fmt.Errorf("%s: entry %q escapes the folder", src, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		}
	}
}

// CopyTree copies the files of src to dst, leaving out anything hidden
// and what the README's commands leave in a fixture folder when a reader
// tries them there (a .docir store, the docir.yaml `docir index .`
// writes, the task.receipt of `docir bind > task.receipt`; no fixture
// has either file of its own), so each test starts from the fixture's
// files alone.
func CopyTree(src, dst string) error { return copyTree(src, dst, false) }

// WriteFiles writes files (a slash-separated path below dir -> its text)
// under dir, making the folders they need: a small project a test builds
// in place.
func WriteFiles(dir string, files map[string]string) error {
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// leftByReadme names the files the README's commands write into the
// folder they run in (see CopyTree).
var leftByReadme = map[string]bool{"docir.yaml": true, "task.receipt": true}

// CopyAll copies everything under src to dst, hidden files included, each
// file and folder with its mode: a store (.docir) with its config and
// sources, for a test that runs many refreshes from one state. Hard links
// become copies.
func CopyAll(src, dst string) error { return copyTree(src, dst, true) }

func copyTree(src, dst string, all bool) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !all && p != src && (strings.HasPrefix(d.Name(), ".") || !d.IsDir() && leftByReadme[d.Name()]) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		dirMode, fileMode := os.FileMode(0o755), os.FileMode(0o644)
		if all {
			info, err := d.Info()
			if err != nil {
				return err
			}
			dirMode, fileMode = info.Mode().Perm(), info.Mode().Perm()
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), dirMode)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, fileMode)
	})
}

// ReadJSONL reads a JSON-lines file (an evaluation set) into rows of T,
// skipping blank lines; any error fails the test.
func ReadJSONL[T any](tb testing.TB, path string) []T {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var rows []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r T
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("%s:%d: %v", path, n, err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return rows
}

// SkipHeavy skips a test that indexes a large shared corpus to check or
// measure ranking: under -short, and under the race detector (the plain
// run enforces what it checks, and under -race it would take many times
// as long).
func SkipHeavy(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("skipping: indexes a shared corpus (-short)")
	}
	if RaceEnabled {
		tb.Skip("skipping under -race: checks ranking; the plain test run enforces it")
	}
}
