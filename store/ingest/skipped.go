package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/docir/docir/store/faultfs"
)

// skippedStateFile, in the store folder, lists the files the last refresh
// read and left out of the edit, each with the size and mtime it had then,
// so that Diff (docir status) can tell them from files a refresh would
// find changed: without it, "run docir index" never goes away.
//
//   - s: files skipped for what their bytes are (binary, not UTF-8: the
//     same bytes are skipped again, whatever the configuration; no id:
//     the same bytes are, at the same path below a source of the same
//     prefix, which a change of sources reads again; over a parse limit
//     other than the time, which the same bytes pass again under the same
//     limits, and other limits change the settings' digest), which would
//     be "added" in every status;
//   - t: files whose stat changed and bytes did not (touched, restored as
//     they were): a refresh that publishes records their new stat in its
//     file table, but one that changes nothing else publishes nothing, and
//     they would be "changed" in every status;
//   - u: files docir may not read (permission denied): skipped again while
//     they stay so, which Diff asks the file system (access(2)): a chmod
//     that makes one readable changes neither its size nor its mtime.
//
// Like folderStateFile it is written after every refresh that succeeds,
// atomically, and is not part of a generation: losing it only makes
// status list those files again.
//
//	docir skipped 2
//	generation <N>
//	<s|t> <size> <mtime_ns> <file key, Go-quoted>     (one per file)
const skippedStateFile = "skipped.state"

const skippedStateMagic = "docir skipped 2"

// skippedEntry is what a refresh saw of a file it read and left out of
// the edit: skipped for its bytes, or touched (its bytes unchanged).
type skippedEntry struct {
	size, mtime int64
	touched     bool
	unreadable  bool // skipped as one docir may not read ('u')
}

// bytesSkip are the kinds of skip that the file's bytes decide, as its
// size and time find them again: binary, not UTF-8, and no id (its path
// gives none and its front matter sets none).
var bytesSkip = map[string]bool{KindBinary: true, KindNotUTF8: true, KindNoID: true}

// writeSkippedState records the files of files that the refresh skipped
// for their bytes or as unreadable, or found touched; with none, it
// removes the record.
func writeSkippedState(dir string, gen uint64, files []*file) error {
	var b []byte
	for _, f := range files {
		kind := byte('t')
		if f.status != statusTouched {
			if f.status != statusSkipped || f.err != nil || f.warning == nil {
				continue
			}
			switch {
			case bytesSkip[f.warning.kind] || f.overLimit:
				kind = 's'
			case f.warning.kind == KindUnreadable:
				kind = 'u'
			default:
				continue
			}
		}
		if b == nil {
			b = append(b, skippedStateMagic+"\ngeneration "...)
			b = strconv.AppendUint(b, gen, 10)
			b = append(b, '\n')
		}
		b = append(b, kind, ' ')
		b = strconv.AppendInt(b, f.size, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, f.mtime, 10)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, f.key())
		b = append(b, '\n')
	}
	name := filepath.Join(dir, skippedStateFile)
	if b == nil {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return writeState(dir, skippedStateFile, b)
}

// readSkippedState returns the files the refresh that left generation gen
// current skipped or found touched, by file key; none when the record is
// missing, damaged, or of another generation.
func readSkippedState(dir string, gen uint64) map[string]skippedEntry {
	f, err := os.Open(filepath.Join(dir, skippedStateFile))
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	want := [][]byte{[]byte(skippedStateMagic), []byte("generation " + strconv.FormatUint(gen, 10))}
	for _, w := range want {
		if !sc.Scan() || !bytes.Equal(sc.Bytes(), w) {
			return nil
		}
	}
	out := map[string]skippedEntry{}
	for sc.Scan() {
		fields := bytes.SplitN(sc.Bytes(), []byte(" "), 4)
		if len(fields) != 4 || len(fields[0]) != 1 || !bytes.Contains([]byte("stu"), fields[0]) {
			return nil
		}
		size, err1 := strconv.ParseInt(string(fields[1]), 10, 64)
		mtime, err2 := strconv.ParseInt(string(fields[2]), 10, 64)
		key, err3 := strconv.Unquote(string(fields[3]))
		if err1 != nil || err2 != nil || err3 != nil {
			return nil
		}
		out[key] = skippedEntry{size: size, mtime: mtime, touched: fields[0][0] == 't', unreadable: fields[0][0] == 'u'}
	}
	if sc.Err() != nil {
		return nil
	}
	return out
}

// readable reports whether this process may read the file at path
// (access(2), R_OK): a file skipped as unreadable is skipped again while
// it is not.
func readable(path string) bool {
	return faultfs.Check(faultfs.OpRead, path) == nil && unix.Access(path, unix.R_OK) == nil
}
