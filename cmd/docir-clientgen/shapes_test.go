package main

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/query"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/readbatch"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/workspace/binding"
)

// jsonShape lists a Go struct's JSON members and which of them are always
// sent (no omitempty), embedded structs flattened as encoding/json does.
func jsonShape(t reflect.Type) (names, required []string) {
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			n, r := jsonShape(f.Type)
			names, required = append(names, n...), append(required, r...)
			continue
		}
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names = append(names, name)
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") { // either may be absent
			required = append(required, name)
		}
	}
	slices.Sort(names)
	slices.Sort(required)
	return names, required
}

// TestShapesMatchGo pins every schema object to the Go shape the server
// encodes (or decodes): the same members, and a member is required exactly
// when Go always sends it.
func TestShapesMatchGo(t *testing.T) {
	set, err := Load(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]*Schema{}
	for _, m := range set.Methods {
		params[m.Method] = m.ParamsSchema
	}
	tests := []struct {
		name       string
		schema     *Schema
		goType     any
		paramsLike bool // a request shape: required by the engine's checks, not by omitempty
		required   []string
	}{
		{"Document", set.Defs.Defs["Document"], docir.Document{}, false, nil},
		{"SectionRef", set.Defs.Defs["SectionRef"], docir.SectionRef{}, false, nil},
		{"Missing", set.Defs.Defs["Missing"], docir.Missing{}, false, nil},
		{"GetResult", set.Defs.Defs["GetResult"], docir.GetResult{}, false, nil},
		{"Hit", set.Defs.Defs["Hit"], docir.Hit{}, false, nil},
		{"StoreStatus", set.Defs.Defs["StoreStatus"], docir.StoreStatus{}, false, nil},
		{"SearchResult", set.Defs.Defs["SearchResult"], docir.SearchResult{}, false, nil},
		{"OutlineEntry", set.Defs.Defs["OutlineEntry"], docir.OutlineEntry{}, false, nil},
		{"ContextHit", set.Defs.Defs["ContextHit"], docir.ContextHit{}, false, nil},
		{"ContextResult", set.Defs.Defs["ContextResult"], docir.ContextResult{}, false, nil},
		{"IndexSummary", set.Defs.Defs["IndexSummary"], docir.IndexSummary{}, false, nil},
		{"SourceInfo", set.Defs.Defs["SourceInfo"], docir.SourceInfo{}, false, nil},
		{"PeerStatus", set.Defs.Defs["PeerStatus"], docir.PeerStatus{}, false, nil},
		{"Status", set.Defs.Defs["Status"], docir.Status{}, false, nil},
		{"SessionLimits", set.Defs.Defs["SessionLimits"], docir.SessionLimits{}, false, nil},
		{"Discovery", set.Defs.Defs["Discovery"], docir.Discovery{}, false, nil},
		{"ReadBatchResult", set.Defs.Defs["ReadBatchResult"], readbatch.Result{}, false, nil},
		{"docir/get params", params["docir/get"], docir.GetParams{}, true, nil},
		{"docir/search params", params["docir/search"], docir.SearchParams{}, true, []string{"query"}},
		{"docir/query params", params["docir/query"], docir.QueryParams{}, true, []string{"expr"}},
		{"docir/context params", params["docir/context"], docir.ContextParams{}, true, []string{"query"}},
		{"workspace/status params", params["workspace/status"], docir.StatusParams{}, true, nil},
		{"workspace/bind params", params["workspace/bind"], docir.BindParams{}, true, nil},
		{"workspace/replay params", params["workspace/replay"], docir.ReplayParams{}, true, []string{"receipt"}},
		{"BindingResult", set.Defs.Defs["BindingResult"], docir.BindingResult{}, false, nil},
		{"EvidenceResult", set.Defs.Defs["EvidenceResult"], docir.EvidenceResult{}, false, nil},
		{"workspace/evidence params", params["workspace/evidence"], docir.EvidenceParams{}, true, []string{"binding", "method"}},
		{"FieldsResult", set.Defs.Defs["FieldsResult"], docir.FieldsResult{}, false, nil},
		{"FieldInfo", set.Defs.Defs["FieldInfo"], docir.FieldInfo{}, false, nil},
		{"ValueCount", set.Defs.Defs["ValueCount"], docir.ValueCount{}, false, nil},
		{"Link", set.Defs.Defs["Link"], docir.Link{}, false, nil},
		{"CheckedLink", set.Defs.Defs["CheckedLink"], docir.CheckedLink{}, false, nil},
		{"LinkSet", set.Defs.Defs["LinkSet"], docir.LinkSet{}, false, nil},
		{"LinkResult", set.Defs.Defs["LinkResult"], docir.LinkResult{}, false, nil},
		{"LinksResult", set.Defs.Defs["LinksResult"], docir.LinksResult{}, false, nil},
		{"LinkCounts", set.Defs.Defs["LinkCounts"], docir.LinkCounts{}, false, nil},
		{"CheckResult", set.Defs.Defs["CheckResult"], docir.CheckResult{}, false, nil},
		{"ChangeLists", set.Defs.Defs["ChangeLists"], docir.ChangeLists{}, false, nil},
		{"ChangesResult", set.Defs.Defs["ChangesResult"], docir.ChangesResult{}, false, nil},
		{"docir/links params", params["docir/links"], docir.LinksParams{}, true, nil},
		{"docir/check params", params["docir/check"], docir.CheckParams{}, true, nil},
		{"docir/changes params", params["docir/changes"], docir.ChangesParams{}, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.schema == nil {
				t.Fatal("no such schema")
			}
			names, required := jsonShape(reflect.TypeOf(tt.goType))
			if tt.paramsLike {
				required = tt.required
			}
			gotNames := slices.Sorted(slices.Values(tt.schema.Names()))
			gotRequired := slices.Sorted(slices.Values(tt.schema.Required))
			if diff := cmp.Diff(names, gotNames); diff != "" {
				t.Errorf("members (-Go +schema):\n%s", diff)
			}
			if diff := cmp.Diff(required, gotRequired, cmp.Comparer(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 || slices.Equal(a, b) })); diff != "" {
				t.Errorf("required (-Go +schema):\n%s", diff)
			}
			if !tt.schema.AdditionalProperties.Closed() {
				t.Errorf("not closed: additionalProperties must be false")
			}
		})
	}
	// Every method has a params and a result schema, and the index lists
	// exactly the methods a fully granted session with a local store
	// serves: the read methods, bind, replay and fields (a local store),
	// refresh (a grant) and read-batch (a selection).
	var methods []string
	for _, m := range set.Methods {
		methods = append(methods, m.Method)
	}
	want := append(readbatch.ReadMethods(), wire.MethodReadBatch, wire.MethodRefresh, wire.MethodBind, wire.MethodReplay, wire.MethodFields, wire.MethodEvidence, wire.MethodChanges)
	slices.Sort(want)
	slices.Sort(methods)
	if diff := cmp.Diff(want, methods); diff != "" {
		t.Errorf("methods (-want +index):\n%s", diff)
	}
}

// TestBoundsMatchGo pins the numeric bounds of the params schemas to the
// constants the engines enforce.
func TestBoundsMatchGo(t *testing.T) {
	set, err := Load(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	p := map[string]*Schema{}
	for _, m := range set.Methods {
		p[m.Method] = m.ParamsSchema
	}
	check := func(what string, got *float64, want float64) {
		t.Helper()
		if got == nil || *got != want {
			t.Errorf("%s: %v; want %v", what, got, want)
		}
	}
	checkInt := func(what string, got *int, want int) {
		t.Helper()
		if got == nil || *got != want {
			t.Errorf("%s: %v; want %v", what, got, want)
		}
	}
	for _, m := range []string{"docir/search", "docir/query", "docir/context"} {
		check(m+" limit max", p[m].Properties["limit"].Maximum, docir.MaxLimit)
		check(m+" limit min", p[m].Properties["limit"].Minimum, 1) // an explicit 0 is refused; absent is the default
	}
	for _, m := range []string{"docir/check", "docir/changes", "docir/links"} { // the paged reads
		check(m+" limit max", p[m].Properties["limit"].Maximum, docir.MaxPageLimit)
		check(m+" limit min", p[m].Properties["limit"].Minimum, 1)
		checkInt(m+" cursor max length", p[m].Properties["cursor"].MaxLength, docir.MaxCursorBytes)
	}
	check("context budget max", p["docir/context"].Properties["budget"].Maximum, docir.MaxBudget)
	checkInt("query bytes", p["docir/search"].Properties["query"].MinLength, 1)
	// Every length bound the server enforces (issue 23.6): a query, an
	// expression, an address, a receipt.
	checkInt("search query max length", p["docir/search"].Properties["query"].MaxLength, docir.MaxQueryBytes)
	checkInt("context query max length", p["docir/context"].Properties["query"].MaxLength, docir.MaxQueryBytes)
	checkInt("query expr max length", p["docir/query"].Properties["expr"].MaxLength, query.MaxExprBytes)
	checkInt("doc_id max length", p["docir/get"].Properties["doc_id"].MaxLength, address.MaxLen)
	checkInt("doc_ids item max length", p["docir/get"].Properties["doc_ids"].Items.MaxLength, address.MaxLen)
	checkInt("replay receipt max length", p["workspace/replay"].Properties["receipt"].MaxLength, binding.MaxReceiptBytes)
	checkInt("evidence binding max length", p["workspace/evidence"].Properties["binding"].MaxLength, binding.MaxReceiptBytes)
	checkInt("bind release max length", p["workspace/bind"].Properties["release"].MaxLength, binding.MaxReceiptBytes)
	var attested []string
	for _, m := range p["workspace/evidence"].Properties["method"].Enum {
		var name string
		if err := json.Unmarshal(m, &name); err != nil {
			t.Fatal(err)
		}
		attested = append(attested, name)
	}
	slices.Sort(attested)
	if diff := cmp.Diff(binding.EvidenceMethods(), attested); diff != "" {
		t.Errorf("workspace/evidence method enum (-engine +schema):\n%s", diff)
	}
	checkInt("doc_ids max", p["docir/get"].Properties["doc_ids"].MaxItems, docir.MaxBatch)
	checkInt("links doc_ids max", p["docir/links"].Properties["doc_ids"].MaxItems, docir.MaxBatch)
	check("changes since min", p["docir/changes"].Properties["since"].Minimum, 1)
	check("changes until min", p["docir/changes"].Properties["until"].Minimum, 1)
	checkInt("changes since_receipt min length", p["docir/changes"].Properties["since_receipt"].MinLength, 1)
	frames := p["workspace/read-batch"].Properties["batch"].Properties["frames"]
	checkInt("frames max", frames.MaxItems, readbatch.MaxFrames)
	checkInt("frames min", frames.MinItems, 1)
	checkInt("responses max", set.Defs.Defs["ReadBatchResult"].Properties["responses"].MaxItems, readbatch.MaxFrames)
	if c := string(set.Defs.Defs["ReadBatchResult"].Properties["schema"].Const); c != `"`+readbatch.Schema+`"` {
		t.Errorf("read-batch schema const %s", c)
	}
	if c := string(set.Defs.Defs["Discovery"].Properties["schema"].Const); c != `"`+docir.DiscoverySchema+`"` {
		t.Errorf("discover schema const %s", c)
	}
	// The selectors: a generation is a positive number and a receipt is
	// not empty (the zero values mean "not pinned": docir.Selector.Pinned),
	// and at most one of them is given.
	if (docir.Selector{}).Pinned() || !(docir.Selector{ImageRevision: 1}).Pinned() || !(docir.Selector{Binding: "r"}).Pinned() {
		t.Fatal("docir.Selector: the zero values no longer mean unpinned; revisit the selector bounds")
	}
	for _, m := range []string{"docir/get", "docir/search", "docir/query", "docir/context", "workspace/status", "docir/links", "docir/check"} {
		rev, bnd := p[m].Properties["image_revision"], p[m].Properties["binding"]
		if rev == nil || bnd == nil {
			t.Errorf("%s: no selector properties", m)
			continue
		}
		check(m+" image_revision min", rev.Minimum, 1)
		checkInt(m+" binding min length", bnd.MinLength, 1)
		checkInt(m+" binding max length", bnd.MaxLength, binding.MaxReceiptBytes)
		if p[m].Not == nil || !slices.Equal(p[m].Not.Required, []string{"image_revision", "binding"}) {
			t.Errorf("%s: want not {required: [image_revision, binding]}", m)
		}
	}
	check("bind revision min", p["workspace/bind"].Properties["revision"].Minimum, 1)
	checkInt("bind workspace min length", p["workspace/bind"].Properties["workspace"].MinLength, 1)
	checkInt("replay receipt min length", p["workspace/replay"].Properties["receipt"].MinLength, 1)
}

// TestFrontMatterIDMatchesGo pins the values of a status source's
// front_matter_id to those docir.yaml's takes (package ingest).
func TestFrontMatterIDMatchesGo(t *testing.T) {
	set, err := Load(schemaDir)
	if err != nil {
		t.Fatal(err)
	}
	fmID := set.Defs.Defs["SourceInfo"].Properties["front_matter_id"]
	if fmID == nil {
		t.Fatal("SourceInfo has no front_matter_id")
	}
	var rules []string
	for _, v := range fmID.Enum {
		var rule string
		if err := json.Unmarshal(v, &rule); err != nil {
			t.Errorf("SourceInfo front_matter_id %s: %v", v, err)
		}
		rules = append(rules, rule)
	}
	if want := []string{ingest.FrontMatterIDWhole, ingest.FrontMatterIDName, ingest.FrontMatterIDOff}; !slices.Equal(rules, want) {
		t.Errorf("SourceInfo front_matter_id enum %q; want %q", rules, want)
	}
}
