package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"go.yaml.in/yaml/v3"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/workspace"
)

// lockSources takes the lock on the source list of the config lc writes
// (configFileToWrite), then reads that list again from the file: what
// another docir index or docir sources wrote while this one started is
// the list it adds to or removes from. Every command that writes the list
// holds the lock from that read until its refresh has published, so two
// of them never both edit the list they read before the other wrote it
// (one folder's documents silently removed), and a refresh never starts
// from a list older than the store's (a spurious "would drop").
//
// The lock is a flock on the config's folder: nothing is created there.
// notify is told once when the lock is held by another process and this
// one waits; the wait ends early, with ctx's error, when ctx ends.
func (lc *loadedConfig) lockSources(ctx context.Context, notify func(string)) (unlock func(), err error) {
	file := lc.configFileToWrite()
	unlock, err = lockConfig(ctx, file, notify)
	if err != nil {
		return nil, err
	}
	if err := lc.rereadSources(file); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// lockConfig takes the lock lockSources takes on the source list of the
// config file (a flock on its folder), without reading anything.
func lockConfig(ctx context.Context, file string, notify func(string)) (unlock func(), err error) {
	dir, err := os.Open(filepath.Dir(file))
	if err != nil {
		return nil, docir.Errorf(docir.CodeConfig, "config %s: %w", file, err)
	}
	fd := int(dir.Fd())
	if syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		notify(fmt.Sprintf("docir: waiting for another docir changing the sources of %s to finish", file))
		if err := flockCtx(ctx, dir); err != nil {
			return nil, err // flockCtx closes dir
		}
	}
	return func() {
		_ = syscall.Flock(fd, syscall.LOCK_UN)
		dir.Close()
	}, nil
}

// flockCtx waits for the exclusive flock on f, or for ctx to end; on an
// error f is closed. When ctx ends first, f is the waiting goroutine's:
// it closes f (letting go of a lock granted meanwhile) once the wait is
// over. It once unlocked the bare descriptor number after the caller had
// closed f, when the number could be another file's by then (in serve,
// the store's lock: two writers).
func flockCtx(ctx context.Context, f *os.File) error {
	fd := int(f.Fd())
	got := make(chan error, 1)
	go func() { got <- syscall.Flock(fd, syscall.LOCK_EX) }()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return fmt.Errorf("lock the config's folder: %w", err)
		}
		return nil
	case <-ctx.Done():
		go func() {
			<-got
			f.Close()
		}()
		return ctx.Err()
	}
}

// rereadSources sets lc's sources to those of file as it is now (the
// caller holds lockSources): a file created since lc was loaded becomes
// lc's config file. A file that is gone leaves lc as it was.
func (lc *loadedConfig) rereadSources(file string) error {
	data, err := workspace.ReadFile(file, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return docir.Errorf(docir.CodeConfig, "config: %w", err)
	}
	if err := checkConfigFile(file, data); err != nil {
		return err
	}
	var now struct {
		Sources []SourceConfig `yaml:"sources"`
	}
	if err := yaml.Unmarshal(data, &now); err != nil {
		return docir.Errorf(docir.CodeConfig, "config %s: %w", file, err)
	}
	lc.File, lc.Sources = file, now.Sources
	return lc.validate()
}
