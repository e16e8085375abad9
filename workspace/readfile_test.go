package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestReadFileRefusesWhatIsNotAFile: a named file is read through its
// links; a link to /dev/zero, a FIFO or a folder is refused unread, a
// file over the bound is refused naming the bound, and a missing file is
// still fs.ErrNotExist.
func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.yaml")
	if err := os.WriteFile(real, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	zero := filepath.Join(dir, "zero.yaml")
	fifo := filepath.Join(dir, "fifo")
	if err := errors.Join(os.Symlink(real, link), os.Symlink("/dev/zero", zero), syscall.Mkfifo(fifo, 0o644)); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(link, 100); err != nil || string(data) != "name: x\n" {
		t.Errorf("ReadFile(a link to a file) = %q, %v", data, err)
	}
	if data, err := ReadFile(real, 8); err != nil || len(data) != 8 {
		t.Errorf("ReadFile(a file of exactly the bound) = %q, %v", data, err)
	}
	for _, tt := range []struct{ path, want string }{
		{zero, "is a device, not a regular file"},
		{fifo, "is a FIFO, not a regular file"},
		{dir, "is a folder, not a regular file"},
		{real, "over the 7-byte cap"},
	} {
		_, err := ReadFile(tt.path, 7)
		if err == nil || !strings.Contains(err.Error(), tt.path) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadFile(%s) = %v; want an error naming it, %q", tt.path, err, tt.want)
		}
	}
	// A pipe's path (/dev/stdin, <(cat f): a link to "pipe:[N]", which no
	// folder holds) is a FIFO too, not a missing file.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	piped := "/proc/self/fd/" + strconv.Itoa(int(r.Fd()))
	if _, err := ReadFile(piped, 7); err == nil || !strings.Contains(err.Error(), "is a FIFO, not a regular file") {
		t.Errorf("ReadFile(%s, a pipe) = %v; want a FIFO", piped, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 7); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(a missing file) = %v; want fs.ErrNotExist", err)
	}
}
