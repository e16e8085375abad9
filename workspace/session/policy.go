package session

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
	"github.com/docir/docir/workspace"
)

// Host policy schema names. A policy file names exactly one; each version
// is closed (a member it does not define is an error).
//
// Change log:
//
//	docir.host-policy.v1  grants: a list of grant names; the one grant is
//	                      "refresh" (the session serves workspace/refresh).
//	docir.host-policy.v2  v1 plus read_batch_workers: null (no read batch)
//	                      or 1 to 4 (serve workspace/read-batch with at most
//	                      that many inner calls at once). Every member is
//	                      required (v1's grants may be left out).
const (
	PolicyV1 = "docir.host-policy.v1"
	PolicyV2 = "docir.host-policy.v2"
)

// Grants a policy may give.
const (
	GrantRefresh = "refresh"
)

// Bounds of a policy.
const (
	MinReadBatchWorkers = 1
	MaxReadBatchWorkers = 4
	maxPolicyBytes      = 64 << 10
)

// Policy is what the host allows this session. It is loaded once, at
// start-up; nothing over RPC changes it. The zero Policy is the default
// session's: no grants, no read batch.
type Policy struct {
	Schema string   // PolicyV1 or PolicyV2; "" for the default policy
	Grants []string // sorted, each once
	// ReadBatchWorkers is the host's selection for workspace/read-batch:
	// 0 when none (absent or null), else 1 to 4.
	ReadBatchWorkers int
}

// Granted reports whether the policy gives the named grant.
func (p *Policy) Granted(grant string) bool {
	return p != nil && slices.Contains(p.Grants, grant)
}

// LoadPolicy reads a policy file. Every error names the file.
func LoadPolicy(path string) (*Policy, error) {
	data, err := workspace.ReadFile(path, maxPolicyBytes)
	if err != nil {
		return nil, docir.Errorf(docir.CodeConfig, "policy: %w", err)
	}
	p, err := ParsePolicy(data)
	if err != nil {
		return nil, docir.Errorf(docir.CodeConfig, "policy %s: %w", path, err)
	}
	return p, nil
}

// ParsePolicy reads a policy document: one JSON object naming its schema.
func ParsePolicy(data []byte) (*Policy, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' || !json.Valid(data) {
		return nil, fmt.Errorf("not a JSON object; want {\"schema\": %q, \"grants\": [...]}", PolicyV1)
	}
	members, err := wire.Members(data)
	if err != nil {
		return nil, err
	}
	raw, ok := members["schema"]
	if !ok {
		return nil, fmt.Errorf("no \"schema\" member; want %q or %q", PolicyV1, PolicyV2)
	}
	p := &Policy{Grants: []string{}}
	if err := json.Unmarshal(raw, &p.Schema); err != nil {
		return nil, fmt.Errorf("\"schema\" must be a string: %s", raw)
	}
	var known []string
	switch p.Schema {
	case PolicyV1:
		known = []string{"schema", "grants"}
	case PolicyV2:
		known = []string{"schema", "grants", "read_batch_workers"}
	default:
		return nil, fmt.Errorf("unknown schema %q; want %q or %q", p.Schema, PolicyV1, PolicyV2)
	}
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if slices.Contains(known, name) {
			continue
		}
		if name == "read_batch_workers" {
			return nil, fmt.Errorf("%s has no read_batch_workers (even null); it is a %s member", p.Schema, PolicyV2)
		}
		return nil, fmt.Errorf("unknown member %q in a %s policy (known: %s)", name, p.Schema, strings.Join(known, ", "))
	}
	if p.Schema == PolicyV2 {
		// v2 states every member: a host that forgot one has not said
		// what it means; null is how "no read batch" is said.
		var missing []string
		for _, name := range known {
			if _, ok := members[name]; !ok {
				missing = append(missing, strconv.Quote(name))
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("a %s policy needs every member: %s missing (null is \"none\" for read_batch_workers)", PolicyV2, strings.Join(missing, ", "))
		}
	}
	if raw, ok := members["grants"]; ok {
		var grants []string
		if raw[0] != '[' || json.Unmarshal(raw, &grants) != nil {
			return nil, fmt.Errorf("\"grants\" must be a list of grant names, not %s", raw)
		}
		for _, g := range grants {
			if g != GrantRefresh {
				return nil, fmt.Errorf("unknown grant %q (known: %s)", g, GrantRefresh)
			}
			if slices.Contains(p.Grants, g) {
				return nil, fmt.Errorf("grant %q listed twice", g)
			}
			p.Grants = append(p.Grants, g)
		}
		slices.Sort(p.Grants)
	}
	if raw, ok := members["read_batch_workers"]; ok && string(raw) != "null" {
		var n int
		if json.Unmarshal(raw, &n) != nil || n < MinReadBatchWorkers || n > MaxReadBatchWorkers {
			return nil, fmt.Errorf("read_batch_workers %s: want null or an integer from %d to %d", raw, MinReadBatchWorkers, MaxReadBatchWorkers)
		}
		p.ReadBatchWorkers = n
	}
	return p, nil
}
