package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// skippedStateFile, in the store folder, lists the files the last refresh
// skipped for what their bytes are (binary, not UTF-8: the same bytes are
// skipped again, whatever the configuration), each with the size and mtime
// it had then, so that Diff (docir status) can
// tell a file a refresh would skip again from one it would add: without
// it, a skipped file is "added" in every status, and "run docir index"
// never goes away. Like folderStateFile it is written after every refresh
// that succeeds, atomically, and is not part of a generation: losing it
// only makes status list those files as added again.
//
//	docir skipped 1
//	generation <N>
//	<size> <mtime_ns> <file key, Go-quoted>     (one per skipped file)
const skippedStateFile = "skipped.state"

const skippedStateMagic = "docir skipped 1"

// skippedEntry is what a refresh saw of a file it skipped.
type skippedEntry struct {
	size, mtime int64
}

// writeSkippedState records the files of files that the refresh skipped;
// with none, it removes the record.
func writeSkippedState(dir string, gen uint64, files []*file) error {
	var b []byte
	for _, f := range files {
		if f.status != statusSkipped || f.err != nil || f.warning == nil ||
			f.warning.kind != KindBinary && f.warning.kind != KindNotUTF8 {
			continue
		}
		if b == nil {
			b = append(b, skippedStateMagic+"\ngeneration "...)
			b = strconv.AppendUint(b, gen, 10)
			b = append(b, '\n')
		}
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
// current skipped, by file key; none when the record is missing, damaged,
// or of another generation.
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
		fields := bytes.SplitN(sc.Bytes(), []byte(" "), 3)
		if len(fields) != 3 {
			return nil
		}
		size, err1 := strconv.ParseInt(string(fields[0]), 10, 64)
		mtime, err2 := strconv.ParseInt(string(fields[1]), 10, 64)
		key, err3 := strconv.Unquote(string(fields[2]))
		if err1 != nil || err2 != nil || err3 != nil {
			return nil
		}
		out[key] = skippedEntry{size: size, mtime: mtime}
	}
	if sc.Err() != nil {
		return nil
	}
	return out
}
