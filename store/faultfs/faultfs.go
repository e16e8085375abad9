// Package faultfs holds the file operations through which a refresh changes
// a store (every rename, unlink, fsync, link and mkdir of package store and
// package ingest), names the reads of its sources (folders and files),
// and is the seam that lets a
// test make any of them fail or crash the process at a chosen point: Set
// installs a Hook that each operation consults first. With no hook set (every
// docir binary but a test's) an operation costs one atomic load more than
// the os call it wraps.
//
// A test sets a hook in its own process, or builds docir with the build tag
// docir_faults, which reads a hook from the environment (env.go) so that a
// test can kill a real `docir index` at its Nth rename, unlink or fsync.
package faultfs

import (
	"os"
	"sync/atomic"
)

// Op is a kind of file operation.
type Op uint8

const (
	OpRename  Op = iota + 1 // rename(2): a publish, a prune, an atomic file write
	OpRemove                // unlink(2) or rmdir(2), of a file or a whole tree
	OpSync                  // fsync(2) of a file or a folder
	OpLink                  // link(2)
	OpMkdir                 // mkdir(2)
	OpReadDir               // listing a folder: of the sources, or the store's
	OpRead                  // reading a source file
)

var opNames = [...]string{OpRename: "rename", OpRemove: "remove", OpSync: "sync", OpLink: "link", OpMkdir: "mkdir", OpReadDir: "readdir", OpRead: "read"}

func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "op?"
}

// A Hook is called before each operation with its kind and the path it
// acts on (for a rename, the new name). An error it returns is the
// operation's: the operation is not done.
type Hook func(op Op, path string) error

var hook atomic.Pointer[Hook]

// Set installs h (nil removes the hook) and returns a function that puts
// back the hook that was there before. Tests that set a hook must not run
// in parallel with other refreshes.
func Set(h Hook) (restore func()) {
	var p *Hook
	if h != nil {
		p = &h
	}
	old := hook.Swap(p)
	return func() { hook.Store(old) }
}

// Check consults the hook about an operation on path.
func Check(op Op, path string) error {
	if h := hook.Load(); h != nil {
		return (*h)(op, path)
	}
	return nil
}

// Rename is os.Rename.
func Rename(from, to string) error {
	if err := Check(OpRename, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return os.Rename(from, to)
}

// Remove is os.Remove.
func Remove(name string) error {
	if err := Check(OpRemove, name); err != nil {
		return &os.PathError{Op: "remove", Path: name, Err: err}
	}
	return os.Remove(name)
}

// RemoveAll is os.RemoveAll: one operation for the whole tree.
func RemoveAll(name string) error {
	if err := Check(OpRemove, name); err != nil {
		return &os.PathError{Op: "remove", Path: name, Err: err}
	}
	return os.RemoveAll(name)
}

// SyncFile is f.Sync.
func SyncFile(f *os.File) error {
	if err := Check(OpSync, f.Name()); err != nil {
		return &os.PathError{Op: "sync", Path: f.Name(), Err: err}
	}
	return f.Sync()
}

// SyncDir fsyncs the folder dir, so that the names in it are on disk.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return SyncFile(d)
}

// Link is os.Link.
func Link(from, to string) error {
	if err := Check(OpLink, to); err != nil {
		return &os.LinkError{Op: "link", Old: from, New: to, Err: err}
	}
	return os.Link(from, to)
}

// Mkdir is os.Mkdir.
func Mkdir(name string, perm os.FileMode) error {
	if err := Check(OpMkdir, name); err != nil {
		return &os.PathError{Op: "mkdir", Path: name, Err: err}
	}
	return os.Mkdir(name, perm)
}

// MkdirAll is os.MkdirAll: one operation, whatever it creates.
func MkdirAll(name string, perm os.FileMode) error {
	if err := Check(OpMkdir, name); err != nil {
		return &os.PathError{Op: "mkdir", Path: name, Err: err}
	}
	return os.MkdirAll(name, perm)
}
