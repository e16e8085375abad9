package docir

import (
	"strings"
	"testing"
)

// TestTallyMessages: the reply_too_large of a batch says what was read: a
// document's bytes for get, named "at address N of M" (the one that passed
// the bound was not read whole, so not "after"); for links, the links and
// the estimate counted for them, not a file's size.
func TestTallyMessages(t *testing.T) {
	body := strings.Repeat("x", 600)
	docs := Tally{Bound: 1000}
	var err error
	n := 0
	for err == nil && n < 5 {
		n++
		err = docs.Add(&Document{Address: "big", ID: "big", Body: body}, n, 5)
	}
	want := "the documents asked for pass the 1000-byte reply bound at address 2 of 5 (big is 600 bytes); ask for fewer addresses, or for sections (id#heading), in several calls"
	if CodeOf(err) != CodeReplyTooLarge || err.Error() != want {
		t.Errorf("get: %v\nwant %s", err, want)
	}

	set := &LinkSet{Address: "hub", ID: "hub", Outgoing: make([]Link, 3), Incoming: make([]Link, 4)}
	links := Tally{Bound: 1000}
	err, n = nil, 0
	for err == nil && n < 5 {
		n++
		err = links.AddLinks(set, n, 5)
	}
	want = "the links asked for pass the 1000-byte reply bound after 2 of 5 addresses (hub: 3 outgoing and 4 incoming links, about 582 bytes of reply); ask for fewer addresses, or for sections (id#heading), in several calls"
	if CodeOf(err) != CodeReplyTooLarge || err.Error() != want {
		t.Errorf("links: %v\nwant %s", err, want)
	}
}
