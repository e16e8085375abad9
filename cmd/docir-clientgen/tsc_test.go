package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTypeScript compiles the committed docs/clients/docir.ts with
// `tsc --strict` (TypeScript from npm, pinned by testdata/ts's lock file
// and installed once into the user's cache folder), together with
// testdata/ts/usage.ts, which uses the types as a client would and expects
// misuse to fail to compile; then runs the compiled usage with node. It
// skips, with a message, when node or npm is not on PATH.
func TestTypeScript(t *testing.T) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping the TypeScript check: %s is not on PATH (it needs Node.js and npm)", tool)
		}
	}
	tsc := typescript(t)
	dir := t.TempDir()
	for src, dst := range map[string]string{
		filepath.Join(clientDir, TSFile): TSFile,
		"testdata/ts/usage.ts":           "usage.ts",
		"testdata/ts/package.json":       "package.json",
	} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"--strict", "--target", "es2022", "--module", "nodenext", "--moduleResolution", "nodenext", "--lib", "es2022,dom"}
	noEmit := exec.CommandContext(ctx, "node", append([]string{tsc, "--noEmit"}, append(args, TSFile)...)...)
	noEmit.Dir = dir
	if out, err := noEmit.CombinedOutput(); err != nil {
		t.Fatalf("tsc --strict --noEmit docir.ts: %v\n%s", err, out)
	}
	build := exec.CommandContext(ctx, "node", append([]string{tsc, "--outDir", "out"}, append(args, TSFile, "usage.ts")...)...)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("tsc --strict docir.ts usage.ts: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "out", "package.json"), []byte(`{"type":"module"}`), 0o644)
	run := exec.CommandContext(ctx, "node", filepath.Join("out", "usage.js"))
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("node usage.js: %v\n%s", err, out)
	}
}

// typescript returns the path of tsc's script, installing the pinned
// TypeScript with npm ci into the cache folder once per lock file.
func typescript(t *testing.T) string {
	t.Helper()
	lock, err := os.ReadFile("testdata/ts/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := os.ReadFile("testdata/ts/package.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(append(append([]byte{}, pkg...), lock...))
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	root := filepath.Join(cache, "docir-test")
	dir := filepath.Join(root, "typescript-"+hex.EncodeToString(sum[:])[:16])
	tsc := filepath.Join(dir, "node_modules", "typescript", "bin", "tsc")
	if _, err := os.Stat(tsc); err == nil {
		return tsc
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(root, "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644)
	os.WriteFile(filepath.Join(tmp, "package-lock.json"), lock, 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	npm := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	npm.Dir = tmp
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm ci of testdata/ts (TypeScript) failed: %v\n%s", err, out)
	}
	// Another test process may have installed it meanwhile; either copy is whole.
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		if _, serr := os.Stat(tsc); serr != nil {
			t.Fatal(err)
		}
	}
	return tsc
}
