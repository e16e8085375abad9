package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// build compiles docir from this module, the floor (a trivial Go program)
// and the probe into the work folder.
func (e *env) build() error {
	modDir, err := moduleRoot()
	if err != nil {
		return err
	}
	e.docir = filepath.Join(e.work, "docir")
	cmd := exec.Command("go", "build", "-o", e.docir, "./cmd/docir")
	cmd.Dir, cmd.Stderr = modDir, os.Stderr
	// As the README builds it: statically linked, no dynamic loader and
	// libc to map and relocate at every start (docs/performance.md).
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build docir: %w", err)
	}
	if e.o.anchor != "" {
		if e.anchor, err = copyAnchor(e.o.anchor, e.work); err != nil {
			return err
		}
	}
	e.floor = filepath.Join(e.work, "floor-bin")
	if err := buildMain(e.work, "floor", floorSource, e.floor); err != nil {
		return err
	}
	e.r.probe = filepath.Join(e.work, "probe-bin")
	return buildMain(e.work, "probe", probeSource, e.r.probe)
}

// copyAnchor copies the -anchor binary into the work folder, so that the
// two binaries timed against each other are both files written moments
// ago. A process's start maps its binary from the page cache, and how a
// file came into it matters: on this machine (Linux 6.18, ext4) a 34 MB
// docir written an hour earlier started its search at 192k 13–17%
// slower than a byte-identical copy just written (the same page faults,
// more time in each; 30 interleaved pairs, three times), and the anchor
// binary, a day old, 3% slower than its copy: as much as, or more than,
// the differences the -anchor rows are read for.
func copyAnchor(anchor, work string) (string, error) {
	out := filepath.Join(work, "docir-anchor")
	if err := copyFile(anchor, out, 0o755); err != nil {
		return "", fmt.Errorf("-anchor: %w", err)
	}
	return out, nil
}

// floorSource is the floor: the least a Go process can cost.
const floorSource = "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"floor\\n\") }\n"

// buildMain builds a one-file main package of its own module.
func buildMain(work, name, source, out string) error {
	dir := filepath.Join(work, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"go.mod":  "module " + name + "\n\ngo 1.21\n",
		"main.go": source,
	}
	for f, content := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
			return err
		}
	}
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir, cmd.Stderr = dir, os.Stderr
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", name, err)
	}
	return nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run docir-bench from inside the docir module")
	}
	return filepath.Dir(mod), nil
}
