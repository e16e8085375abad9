package workspace

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/docir/docir/store/ingest"
)

// ReadFile reads a file a user or a host names to docir (a config file, a
// binding receipt, an evidence file, a session policy) and returns at most
// max bytes of it. Such a path is outside input: a link committed to a
// repository can lead to /dev/zero, and a FIFO never ends. So links are
// followed, and what they lead to must be a regular file; it is read as a
// refresh reads a source file (ingest.ReadSource: opened without
// blocking, checked once open, never more than max+1 bytes read). A file
// that is not regular, or is over max bytes, is an error naming path and,
// for size, the bound; nothing else of it is read.
//
// An error from the file system (a missing file) is returned wrapped, so
// errors.Is(err, fs.ErrNotExist) still holds.
func ReadFile(path string, max int64) ([]byte, error) {
	// What the path leads to first: a pipe (/dev/stdin, <(cat f)) is a
	// link to a name no folder holds, which EvalSymlinks reports missing.
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file", path, fileKind(info.Mode()))
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	data, err := ingest.ReadSource(real, max)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}
