package docir

import (
	"strings"
	"testing"

	"github.com/docir/docir/address"
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

// TestMissesCountAgainstTheBound: a miss counts against a deep read's bound
// as a document does (its address, reason and suggestions, and MissBytes),
// so a read of many addresses that name nothing stops with reply_too_large;
// and every address counts at least its length and MissBytes however it
// resolves, the floor CheckReplyFloor refuses on before anything is read.
func TestMissesCountAgainstTheBound(t *testing.T) {
	misses := Tally{Bound: 1000}
	var err error
	n := 0
	for err == nil && n < 100 {
		n++
		err = misses.AddMiss("nope", ReasonNoDocument, []string{"note"}, n, 100)
	}
	// 4 + 11 + 48 + 4 + 3 = 70 bytes a miss: the 15th passes 1000.
	want := "the addresses asked for pass the 1000-byte reply bound at address 15 of 100 (nope is missing: no_document; each miss counts its address and 48 bytes); ask for fewer addresses in several calls"
	if CodeOf(err) != CodeReplyTooLarge || err.Error() != want {
		t.Errorf("misses: %v\nwant %s", err, want)
	}

	// The floor: a document, a link set and a miss of one address each
	// count at least what CheckReplyFloor counts for it.
	a := address.Address{ID: "x", Heading: "h"}
	floor := len(a.String()) + MissBytes
	for name, add := range map[string]func(*Tally) error{
		"document": func(t *Tally) error { return t.Add(&Document{Address: a.String()}, 1, 1) },
		"link set": func(t *Tally) error { return t.AddLinks(&LinkSet{Address: a.String()}, 1, 1) },
		"miss":     func(t *Tally) error { return t.AddMiss(a.String(), ReasonNoSection, nil, 1, 1) },
	} {
		probe := Tally{}
		if err := add(&probe); err != nil || probe.Bytes < floor {
			t.Errorf("%s of %s counts %d bytes (%v); want at least the floor, %d", name, a, probe.Bytes, err, floor)
		}
	}

	addrs := make([]address.Address, 100)
	for i := range addrs {
		addrs[i] = a
	}
	if err := CheckReplyFloor(addrs, 100*floor); err != nil {
		t.Errorf("100 addresses at the floor: %v", err)
	}
	err = CheckReplyFloor(addrs, 100*floor-1)
	want = "100 addresses cannot be answered within the 5099-byte reply bound: the first 100 alone pass it even if none resolves (each counts its length and 48 bytes, as a miss); ask for fewer addresses in several calls"
	if CodeOf(err) != CodeReplyTooLarge || err.Error() != want {
		t.Errorf("100 addresses a byte past the floor: %v\nwant %s", err, want)
	}
	if err := CheckReplyFloor(addrs, 0); err != nil {
		t.Errorf("no bound: %v", err)
	}
	if got := MaxAddresses(1000); got*(1+MissBytes) > 1000 || (got+1)*(1+MissBytes) <= 1000 {
		t.Errorf("MaxAddresses(1000) = %d", got)
	}
}
