package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

func TestParsePolicy(t *testing.T) {
	tests := []struct {
		name, in string
		want     *Policy
		err      string // a fragment of the error; "" for none
	}{
		{"v1 empty", `{"schema":"docir.host-policy.v1"}`, &Policy{Schema: PolicyV1, Grants: []string{}}, ""},
		{"v1 refresh", `{"schema":"docir.host-policy.v1","grants":["refresh"]}`, &Policy{Schema: PolicyV1, Grants: []string{"refresh"}}, ""},
		{"v1 no grants", `{"schema":"docir.host-policy.v1","grants":[]}`, &Policy{Schema: PolicyV1, Grants: []string{}}, ""},
		{"v2 workers", `{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":4}`, &Policy{Schema: PolicyV2, Grants: []string{}, ReadBatchWorkers: 4}, ""},
		{"v2 one", `{"schema":"docir.host-policy.v2","grants":["refresh"],"read_batch_workers":1}`, &Policy{Schema: PolicyV2, Grants: []string{"refresh"}, ReadBatchWorkers: 1}, ""},
		{"v2 null", `{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":null}`, &Policy{Schema: PolicyV2, Grants: []string{}}, ""},
		// v2 requires every member; null is how "no read batch" is said.
		{"v2 absent", `{"schema":"docir.host-policy.v2"}`, nil, `a docir.host-policy.v2 policy needs every member: "grants", "read_batch_workers" missing (null is "none" for read_batch_workers)`},
		{"v2 no grants", `{"schema":"docir.host-policy.v2","read_batch_workers":4}`, nil, `"grants" missing`},
		{"v2 no workers", `{"schema":"docir.host-policy.v2","grants":["refresh"]}`, nil, `"read_batch_workers" missing`},
		{"v2 grants null", `{"schema":"docir.host-policy.v2","grants":null,"read_batch_workers":null}`, nil, `"grants" must be a list of grant names`},
		{"v2 zero", `{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":0}`, nil, "read_batch_workers 0: want null or an integer from 1 to 4"},
		{"v2 five", `{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":5}`, nil, "read_batch_workers 5: want null or an integer from 1 to 4"},
		{"v2 negative", `{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":-1}`, nil, "read_batch_workers -1"},
		{"v2 fraction", `{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":2.5}`, nil, "read_batch_workers 2.5"},
		{"v2 string", `{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":"2"}`, nil, `read_batch_workers "2"`},
		{"v1 with workers", `{"schema":"docir.host-policy.v1","read_batch_workers":2}`, nil, "docir.host-policy.v1 has no read_batch_workers (even null)"},
		{"v1 with null workers", `{"schema":"docir.host-policy.v1","read_batch_workers":null}`, nil, "docir.host-policy.v1 has no read_batch_workers (even null)"},
		{"v1 unknown", `{"schema":"docir.host-policy.v1","grant":["refresh"]}`, nil, `unknown member "grant" in a docir.host-policy.v1 policy (known: schema, grants)`},
		{"v2 unknown", `{"schema":"docir.host-policy.v2","workers":2}`, nil, `unknown member "workers" in a docir.host-policy.v2 policy`},
		{"case", `{"schema":"docir.host-policy.v1","Grants":["refresh"]}`, nil, `unknown member "Grants"`},
		{"twice", `{"schema":"docir.host-policy.v1","grants":[],"grants":["refresh"]}`, nil, `member "grants" appears twice`},
		{"unknown grant", `{"schema":"docir.host-policy.v1","grants":["write"]}`, nil, `unknown grant "write" (known: refresh)`},
		{"grant twice", `{"schema":"docir.host-policy.v1","grants":["refresh","refresh"]}`, nil, `grant "refresh" listed twice`},
		{"grants not a list", `{"schema":"docir.host-policy.v1","grants":"refresh"}`, nil, `"grants" must be a list of grant names`},
		{"grants null", `{"schema":"docir.host-policy.v1","grants":null}`, nil, `"grants" must be a list of grant names`},
		{"no schema", `{"grants":["refresh"]}`, nil, `no "schema" member`},
		{"unknown schema", `{"schema":"docir.host-policy.v3"}`, nil, `unknown schema "docir.host-policy.v3"`},
		{"schema not a string", `{"schema":1}`, nil, `"schema" must be a string`},
		{"not an object", `["refresh"]`, nil, "not a JSON object"},
		{"not json", `schema: docir.host-policy.v1`, nil, "not a JSON object"},
		{"empty", ``, nil, "not a JSON object"},
		{"trailing", `{"schema":"docir.host-policy.v1"} {}`, nil, "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePolicy([]byte(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLoadPolicyNamesTheFile: every load error names the file and has the
// config code (exit 1 at start-up). A FIFO is refused unread.
func TestLoadPolicyNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "host.json")
	if err := os.WriteFile(bad, []byte(`{"schema":"docir.host-policy.v1","x":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"schema":"`+strings.Repeat("x", maxPolicyBytes)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json") // once opened and waited on without end
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{bad, big, filepath.Join(dir, "missing.json"), dir, fifo} {
		_, err := LoadPolicy(p)
		if err == nil || !strings.Contains(err.Error(), p) || docir.CodeOf(err) != docir.CodeConfig || docir.ExitCode(err) != 1 {
			t.Errorf("LoadPolicy(%s) = %v (code %q)", p, err, docir.CodeOf(err))
		}
	}
}

// TestPolicyDecidesMethods: discover reports exactly what the policy gives.
func TestPolicyDecidesMethods(t *testing.T) {
	base := []string{"docir/changes", "docir/check", "docir/context", "docir/get", "docir/links", "docir/query", "docir/search", "workspace/discover", "workspace/status"}
	tests := []struct {
		policy  string // "" for none
		methods []string
		caps    []string
		workers *int
	}{
		{"", base, []string{}, nil},
		{`{"schema":"docir.host-policy.v1"}`, base, []string{}, nil},
		{`{"schema":"docir.host-policy.v1","grants":["refresh"]}`, insert(base, "workspace/refresh"), []string{"refresh"}, nil},
		{`{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":null}`, base, []string{}, nil},
		{`{"schema":"docir.host-policy.v2","grants":[],"read_batch_workers":3}`, insert(base, "workspace/read-batch"), []string{"parallel_read"}, new(3)},
		{`{"schema":"docir.host-policy.v2","grants":["refresh"],"read_batch_workers":1}`, insert(insert(base, "workspace/read-batch"), "workspace/refresh"), []string{"parallel_read", "refresh"}, new(1)},
	}
	for _, tt := range tests {
		var p *Policy
		if tt.policy != "" {
			var err error
			if p, err = ParsePolicy([]byte(tt.policy)); err != nil {
				t.Fatal(err)
			}
		}
		e := New(Config{Policy: p})
		d := e.Discover()
		if diff := cmp.Diff(tt.methods, d.Methods); diff != "" {
			t.Errorf("%s: methods (-want +got):\n%s", tt.policy, diff)
		}
		if diff := cmp.Diff(tt.caps, d.Capabilities); diff != "" {
			t.Errorf("%s: capabilities (-want +got):\n%s", tt.policy, diff)
		}
		if diff := cmp.Diff(tt.workers, d.ReadBatchWorkers); diff != "" {
			t.Errorf("%s: read_batch_workers (-want +got):\n%s", tt.policy, diff)
		}
		for _, m := range d.Methods {
			if !e.Has(m) {
				t.Errorf("%s: discover lists %s, which the engine does not serve", tt.policy, m)
			}
		}
	}
}

func insert(list []string, s string) []string {
	out := append([]string{}, list...)
	for i, v := range out {
		if s < v {
			return append(out[:i], append([]string{s}, out[i:]...)...)
		}
	}
	return append(out, s)
}

// FuzzParsePolicy: any input is refused with an error, or is a policy that
// holds to the schema's bounds and reads back the same.
func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{
		`{"schema":"docir.host-policy.v1","grants":["refresh"]}`,
		`{"schema":"docir.host-policy.v2","read_batch_workers":2}`,
		`{"schema":"docir.host-policy.v2","read_batch_workers":null,"grants":[]}`,
		`{"schema":"docir.host-policy.v1","read_batch_workers":null}`,
		`{"schema":"docir.host-policy.v1","x":1}`, `{}`, `[`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := ParsePolicy(in)
		if err != nil {
			return
		}
		if p.Schema != PolicyV1 && p.Schema != PolicyV2 {
			t.Fatalf("schema %q accepted", p.Schema)
		}
		if p.ReadBatchWorkers != 0 && (p.Schema != PolicyV2 || p.ReadBatchWorkers < 1 || p.ReadBatchWorkers > 4) {
			t.Fatalf("read_batch_workers %d accepted in %s", p.ReadBatchWorkers, p.Schema)
		}
		for _, g := range p.Grants {
			if g != GrantRefresh {
				t.Fatalf("grant %q accepted", g)
			}
		}
		// Written back out, it reads the same.
		out := map[string]any{"schema": p.Schema, "grants": p.Grants}
		if p.Schema == PolicyV2 {
			out["read_batch_workers"] = nil
			if p.ReadBatchWorkers > 0 {
				out["read_batch_workers"] = p.ReadBatchWorkers
			}
		}
		b, _ := json.Marshal(out)
		q, err := ParsePolicy(b)
		if err != nil {
			t.Fatalf("%s does not read back: %v", b, err)
		}
		if diff := cmp.Diff(p, q); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}
