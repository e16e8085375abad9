package main

import (
	"bytes"
	"testing"
)

// TestBashCompletionIgnoresCase: every edit that makes cobra's bash script
// match ignoring case applies to the script this cobra prints (a cobra
// that changes the script fails here, not silently in a user's shell).
func TestBashCompletionIgnoresCase(t *testing.T) {
	root := newRootCmd(newFactory(&IOStreams{}))
	var buf bytes.Buffer
	if err := root.GenBashCompletionV2(&buf, true); err != nil {
		t.Fatal(err)
	}
	out, ok := patchBashScript(buf.Bytes())
	if !ok {
		t.Fatal("an edit of bashIgnoringCase does not apply to cobra's bash script")
	}
	for _, e := range bashIgnoringCase {
		if bytes.Contains(out, []byte(e.old)) || bytes.Count(out, []byte(e.new)) != e.count {
			t.Errorf("edit %q not applied %d times", e.old, e.count)
		}
	}
}
