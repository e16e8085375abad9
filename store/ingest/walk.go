package ingest

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// walk lists the *.md files under every root, with their size and mtime,
// sorted by root (in the order given) and path. Hidden folders (.git,
// .docir, ...) are skipped, but not hidden files: a file named "..md" is a
// page about "." whose path gives no valid id, and the user is told so.
// Symbolic links to files are followed; links to folders are not, so a walk
// cannot loop. An unreadable folder or file below a root is a warning; an
// unreadable root is an error.
//
// On a no-op refresh of a large corpus the walk is most of the time, so
// folders are read on several goroutines and each file is stat'ed relative
// to its open folder (fstatat), not by its full path.
func walk(sources []store.Source) ([]*file, []string, error) {
	w := &walker{}
	for i, src := range sources {
		root, err := os.Open(src.Path)
		if err != nil {
			return nil, nil, docir.Errorf(docir.CodeSource, "source %s: %w", src.Path, err)
		}
		root.Close()
		w.queue = append(w.queue, dirJob{root: i, src: src, path: src.Path})
	}
	w.cond = sync.NewCond(&w.mu)
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.work()
		}()
	}
	wg.Wait()

	slices.SortFunc(w.files, func(a, b rootedFile) int {
		return cmp.Or(cmp.Compare(a.root, b.root), strings.Compare(a.f.rel, b.f.rel))
	})
	files := make([]*file, len(w.files))
	for i, rf := range w.files {
		files[i] = rf.f
	}
	slices.Sort(w.warnings)
	return files, w.warnings, nil
}

type dirJob struct {
	root int // index of the source
	src  store.Source
	path string
}

type rootedFile struct {
	root int
	f    *file
}

// walker is a pool of goroutines reading folders from a shared queue.
type walker struct {
	mu       sync.Mutex
	cond     *sync.Cond
	queue    []dirJob
	active   int // folders being read
	files    []rootedFile
	warnings []string
}

func (w *walker) work() {
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && (w.active > 0) {
			w.cond.Wait()
		}
		if len(w.queue) == 0 {
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		job := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.active++
		w.mu.Unlock()

		dirs, files, warnings := readFolder(job)

		w.mu.Lock()
		w.queue = append(w.queue, dirs...)
		w.files = append(w.files, files...)
		w.warnings = append(w.warnings, warnings...)
		w.active--
		w.mu.Unlock()
		w.cond.Broadcast()
	}
}

// readFolder lists one folder: the subfolders to read next and the
// markdown files in it, stat'ed.
func readFolder(job dirJob) (dirs []dirJob, files []rootedFile, warnings []string) {
	d, err := os.Open(job.path)
	if err != nil {
		return nil, nil, []string{fmt.Sprintf("%s: skipped: %v", job.path, err)}
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	if err != nil {
		warnings = append(warnings, fmt.Sprintf("%s: skipped: %v", job.path, err))
	}
	fd := int(d.Fd())
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(job.path, name)
		if e.IsDir() {
			if !strings.HasPrefix(name, ".") {
				dirs = append(dirs, dirJob{root: job.root, src: job.src, path: p})
			}
			continue
		}
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		var st unix.Stat_t
		err := unix.Fstatat(fd, name, &st, 0) // follows a link to a file
		if err != nil {
			if errors.Is(err, unix.ENOENT) && e.Type()&fs.ModeSymlink != 0 {
				err = fmt.Errorf("broken symbolic link")
			}
			warnings = append(warnings, fmt.Sprintf("%s: skipped: %v", p, err))
			continue
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		rel := filepath.ToSlash(p[len(job.src.Path)+1:])
		files = append(files, rootedFile{root: job.root, f: &file{
			root: job.src, rel: rel, abs: p,
			size: st.Size, mtime: st.Mtim.Nano(),
			key: store.FileKey(job.src.Path, rel),
		}})
	}
	return dirs, files, warnings
}
