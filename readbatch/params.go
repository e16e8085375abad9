package readbatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// params are the decoded read-batch params.
type params struct {
	revision uint64
	frames   []string
}

const wantParams = `want {"image_revision": N, "batch": {"frames": ["<request line>", ...]}} with 1 to 16 frames`

// decodeParams reads the params strictly: an object of exactly
// image_revision (a positive integer) and batch, an object of exactly
// frames (1 to MaxFrames strings). Every other shape is batch_malformed,
// named.
func decodeParams(raw json.RawMessage) (params, error) {
	var p params
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return p, malformed("no params; " + wantParams)
	}
	outer, err := closedObject("params", raw, "image_revision", "batch")
	if err != nil {
		return p, err
	}
	rev := string(outer["image_revision"])
	if !isPositiveInteger(rev) {
		return p, malformed(fmt.Sprintf("image_revision %s: want a positive integer (the generation workspace/status reports)", docir.Clip(rev, maxQuoted)))
	}
	if p.revision, err = strconv.ParseUint(rev, 10, 64); err != nil {
		return p, malformed(fmt.Sprintf("image_revision %s: over the largest generation", docir.Clip(rev, maxQuoted)))
	}
	inner, err := closedObject("batch", outer["batch"], "frames")
	if err != nil {
		return p, err
	}
	list := inner["frames"]
	var items []json.RawMessage
	if list[0] != '[' || json.Unmarshal(list, &items) != nil {
		return p, malformed(fmt.Sprintf("batch.frames: want a list of request lines (strings), not %s", wire.Kind(list[0])))
	}
	if n := len(items); n < 1 || n > MaxFrames {
		return p, malformed(fmt.Sprintf("batch.frames holds %d frames; want 1 to %d", n, MaxFrames))
	}
	p.frames = make([]string, len(items))
	for i, item := range items {
		if item[0] != '"' || json.Unmarshal(item, &p.frames[i]) != nil {
			return p, malformed(fmt.Sprintf("batch.frames[%d]: want a request line (a string), not %s", i, wire.Kind(item[0])))
		}
	}
	return p, nil
}

// closedObject splits raw, which must be an object holding exactly the
// named members, each once.
func closedObject(what string, raw json.RawMessage, names ...string) (map[string]json.RawMessage, error) {
	if len(raw) == 0 || raw[0] != '{' {
		k := "nothing"
		if len(raw) > 0 {
			k = wire.Kind(raw[0])
		}
		return nil, malformed(fmt.Sprintf("%s must be an object, not %s; %s", what, k, wantParams))
	}
	members, err := wire.Members(raw)
	if err != nil {
		return nil, malformed(fmt.Sprintf("%s is not one JSON object (%v); %s", what, err, wantParams))
	}
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if !slices.Contains(names, name) {
			return nil, malformed(fmt.Sprintf("unknown member %q in %s (known: %s)", docir.Clip(name, maxQuoted), what, strings.Join(names, ", ")))
		}
	}
	out := members
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, malformed(fmt.Sprintf("%s has no %q; %s", what, n, wantParams))
		}
	}
	return out, nil
}

func malformed(msg string) error {
	return &docir.Error{Code: docir.CodeBatchMalformed, Message: Method + ": " + msg}
}

func isPositiveInteger(s string) bool {
	if s == "" || s[0] < '1' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// maxQuoted bounds what an error quotes of the caller's input.
const maxQuoted = 64
