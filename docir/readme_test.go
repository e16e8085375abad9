package docir_test

import (
	"bytes"
	"debug/elf"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeInner is set in the environment of the commands TestReadmeCommands
// runs, so that the test command it runs in the copy does not start this
// test again.
const readmeInner = "DOCIR_README_TEST_INNER"

// TestReadmeCommands runs the README's "Try it" code blocks as a new user
// would, in a copy of the tree (the files a clone has, with a bin/ that an
// earlier build left): the build-and-read block twice (any number of times),
// then the test block, then the install block (GOBIN a temporary folder on
// PATH). The test block is `go test ./...`; it is run on the
// one package that checks the tree itself (./docir, where a bin/ once failed
// TestReadmeLayout), not on every package a second time.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short mode: builds docir in a copy of the tree")
	}
	if os.Getenv(readmeInner) != "" {
		t.Skip("skipping: already inside the README's test command")
	}
	for _, tool := range []string{"go", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping: %s is not on PATH", tool)
		}
	}
	root := moduleRoot(t)
	try := readmeSection(t, root, "Try it")
	blocks := shBlocks(t, try)
	if len(blocks) != 2 {
		t.Fatalf("%d sh blocks under \"## Try it\", want 2 (build and read; test)", len(blocks))
	}
	build, test := blocks[0], blocks[1]
	if strings.TrimSpace(test) != "go test ./..." {
		t.Fatalf("the README's test command is %q; this test runs `go test ./...` narrowed to ./docir", test)
	}

	dir := filepath.Join(t.TempDir(), "docir")
	if err := copySourceTree(root, dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "docir-old"), []byte("an earlier build\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(script string, env ...string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(append(os.Environ(), readmeInner+"=1"), env...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", strings.TrimSpace(script), err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	for i := range 2 {
		out := run(build)
		for _, want := range []string{"<!-- docir: runbooks/retry-budget#decision |", "<!-- docir: runbooks/disk-full |", "- `runbooks/nope`: no_document"} {
			if !strings.Contains(out, want) {
				t.Errorf("run %d of the build-and-read block: no %q in its output:\n%s", i+1, want, out)
			}
		}
	}
	// The build is static (README, "Install": no dynamic loader to map at
	// every start).
	if f, err := elf.Open(filepath.Join(dir, "bin", "docir")); err == nil {
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("the README's build command built a dynamically linked docir (it has an ELF interpreter); it should be static")
			}
		}
		f.Close()
	}
	run(strings.Replace(test, "./...", "./docir", 1))

	// The install block, with GOBIN a new folder put on PATH: docir
	// version runs the installed binary.
	install := shBlocks(t, readmeSection(t, root, "Install"))
	if len(install) != 1 {
		t.Fatalf("%d sh blocks under \"## Install\", want 1", len(install))
	}
	bin := t.TempDir()
	out := run(install[0], "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := os.Stat(filepath.Join(bin, "docir")); err != nil {
		t.Errorf("the install block put no docir in GOBIN: %v", err)
	}
	if !regexp.MustCompile(`^docir \S+.* \(go1\.\S+ \S+/\S+\)\n$`).MatchString(out) {
		t.Errorf("docir version after the install block printed %q", out)
	}
}

// shBlocks are the bodies of the ```sh code blocks in text.
func shBlocks(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// copySourceTree copies the tree at root to dst as a clone would hold it:
// without .git, stores (.docir) and what root/.gitignore ignores.
func copySourceTree(root, dst string) error {
	ignore, err := rootIgnore(root)
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return os.MkdirAll(dst, 0o755)
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if d.Name() == ".git" || d.Name() == ".docir" || ignore.Match(parts, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return nil
	})
}
