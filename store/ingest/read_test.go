package ingest

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"
)

// readSized reads to the end or to the limit, whatever size it was told:
// a file may have grown or shrunk since it was checked.
func TestReadSized(t *testing.T) {
	text := strings.Repeat("0123456789", 100) // 1000 bytes
	for _, tc := range []struct {
		name        string
		size, limit int64
		want        int
	}{
		{"as checked", 1000, 2001, 1000},
		{"grown", 10, 2001, 1000},
		{"shrunk", 5000, 2001, 1000},
		{"empty told", 0, 2001, 1000},
		{"over the limit", 1000, 501, 501},
		{"grown over the limit", 10, 501, 501},
	} {
		for _, oneByte := range []bool{false, true} {
			var r = iotest.DataErrReader(strings.NewReader(text))
			if oneByte {
				r = iotest.OneByteReader(strings.NewReader(text))
			}
			b, err := readSized(r, tc.size, tc.limit)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !bytes.Equal(b, []byte(text[:tc.want])) {
				t.Errorf("%s (one byte at a time: %v): read %d bytes, want the first %d", tc.name, oneByte, len(b), tc.want)
			}
		}
	}
	if _, err := readSized(iotest.ErrReader(iotest.ErrTimeout), 10, 100); err == nil {
		t.Error("a read error was not returned")
	}
}
