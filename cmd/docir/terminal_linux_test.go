package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal: its master, to read what is written,
// and its slave, to be a process's stdout.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close() })
	return master, slave
}

// TestCorpusTextOnARealTerminal runs docir with stdout a pseudo-terminal,
// through a pager that filters nothing (DOCIR_PAGER="cat -"): docir must
// know it writes to a terminal while the pager holds stdout, so a file's
// control sequences are shown, and the query's words are still bold.
func TestCorpusTextOnARealTerminal(t *testing.T) {
	bin, err := exec.LookPath("docir")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hostile.md"), []byte(hostileBody), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(t.TempDir(), "s")
	if r := runDocir(t, dir, nil, "--store", store, "index", "."); r.code != 0 {
		t.Fatalf("index: %+v", r)
	}
	for _, args := range [][]string{{"get", "hostile"}, {"search", "retry", "budget"}, {"context", "retry", "budget"}} {
		master, slave := openPTY(t)
		cmd := exec.Command(bin, append([]string{"--store", store}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "DOCIR_PAGER=cat -", "NO_COLOR=", "TERM=xterm")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = slave, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		slave.Close()
		read := make(chan []byte)
		go func() { b, _ := io.ReadAll(master); read <- b }() // ends in EIO once docir and the pager exit
		if err := cmd.Wait(); err != nil {
			t.Fatalf("docir %q: %v: %s", args, err, stderr.String())
		}
		// The terminal writes each LF as CRLF (ONLCR): a file's CRLF
		// arrives as CR CR LF, which is as harmless as the CRLF was.
		out := strings.ReplaceAll(string(<-read), "\r\r\n", "\r\n")
		if at, r, ok := rawOnTerminal(out, true); ok {
			t.Errorf("docir %q through a pager: %U at byte %d reaches the terminal:\n%q", args, r, at, out)
		}
		if !strings.Contains(out, `\x1b`) {
			t.Errorf("docir %q: the escapes are not shown:\n%q", args, out)
		}
		if args[0] != "get" && !strings.Contains(out, "\x1b[1m") {
			t.Errorf("docir %q through a pager: no bold, so docir did not see the terminal:\n%q", args, out)
		}
	}
}
