package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/docir"
)

// TestReadCurrentHostile: a store declared as a peer is outside input. A
// CURRENT that links to /dev/zero, is a FIFO, or holds 200 KB of garbage
// is refused at once with store_format, and the message quotes at most a
// short head of it (a peer's store once made serve read /dev/zero without
// end, and a long garbage CURRENT was quoted whole into a warning).
func TestReadCurrentHostile(t *testing.T) {
	cases := map[string]func(path string) error{
		"link to /dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"garbage":           func(p string) error { return os.WriteFile(p, []byte(strings.Repeat("garbage ", 25000)), 0o644) },
		"over the bound": func(p string) error {
			return os.WriteFile(p, []byte(`{"format":1,"generation":1}`+strings.Repeat(" ", maxSmallFile)), 0o644)
		},
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		delete(cases, "link to /dev/zero")
	}
	for name, make := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := make(filepath.Join(dir, currentFile)); err != nil {
				t.Fatal(err)
			}
			_, err := readCurrent(dir)
			if docir.CodeOf(err) != docir.CodeStoreFormat {
				t.Fatalf("readCurrent: %v (code %q), want store_format", err, docir.CodeOf(err))
			}
			if len(err.Error()) > 400 {
				t.Errorf("the error is %d bytes long: %.200s…", len(err.Error()), err)
			}
			if err := os.WriteFile(filepath.Join(dir, identityFile), []byte(strings.Repeat("x", 3*maxSmallFile)), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Identity(dir); docir.CodeOf(err) != docir.CodeStoreFormat || len(err.Error()) > 400 {
				t.Errorf("Identity: %v", err)
			}
		})
	}
}

// A store of a higher format than this docir reads was made by a newer
// docir, maybe another team's: the error says to upgrade, not to remove
// it. An older format is rebuilt, as before.
func TestFormatAdvice(t *testing.T) {
	for _, c := range []struct {
		format    int
		want, not string
	}{
		{FormatVersion + 1, "upgrade docir", "remove the folder"},
		{FormatVersion - 1, "remove the folder and index again", "upgrade"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, currentFile), fmt.Appendf(nil, `{"format":%d,"generation":1}`, c.format), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir)
		if docir.CodeOf(err) != docir.CodeStoreFormat || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), c.not) {
			t.Errorf("format %d: %v; want a store_format error saying %q, not %q", c.format, err, c.want, c.not)
		}
	}
}
