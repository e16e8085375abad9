package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestLockConfigCancelledWait: a wait for the config lock that its context
// ends leaves no lock behind and touches no other file: once the holder
// lets go, the config lock is free (the waiter, granted it meanwhile,
// closed its folder), and a lock the process took on another file since
// (whose descriptor may have the number the waiter's had) is still held.
// serve cancels such waits; the waiter once unlocked the bare number.
func TestLockConfigCancelledWait(t *testing.T) {
	dir := t.TempDir()
	other, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := lockConfig(ctx, filepath.Join(dir, "docir.yaml"), func(string) {}); err == nil {
		t.Fatal("took the lock another holds")
	}
	held, err := os.OpenFile(filepath.Join(t.TempDir(), "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	probe := func(path string) bool { // whether path's lock is free now
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			return false
		}
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return true
	}
	for deadline := time.Now().Add(time.Minute); !probe(dir); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the config lock stays held after the cancelled wait")
		}
	}
	if probe(held.Name()) {
		t.Error("a lock the process holds on another file was let go by the cancelled wait")
	}
}
