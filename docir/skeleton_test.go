package docir

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// jsonFields lists the JSON names of t's fields, embedded structs flattened.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name == "-" {
			continue // never sent
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// TestSkeletonShapes pins the fields of the skeleton reply shapes and the
// other wire shapes listed (params, bindings, links, status), which
// transports and peers read by name.
func TestSkeletonShapes(t *testing.T) {
	tests := []struct {
		v    any
		want []string
	}{
		{Hit{}, []string{"id", "title", "path", "store", "score", "matched_section", "snippet", "also"}},
		{SearchResult{}, []string{"query", "hits", "total", "stores", "warnings"}},
		{ContextHit{}, []string{"id", "title", "path", "store", "score", "matched_section", "snippet", "also", "tokens", "outline"}},
		{OutlineEntry{}, []string{"address", "heading", "level", "tokens"}},
		{ContextResult{}, []string{"query", "budget", "hits", "addresses", "tokens", "stores", "warnings", "generation"}},
		{SearchParams{}, []string{"query", "limit", "image_revision", "binding", "require_current"}},
		{QueryParams{}, []string{"expr", "limit", "sort", "image_revision", "binding", "require_current"}},
		{ContextParams{}, []string{"query", "budget", "limit", "image_revision", "binding", "require_current"}},
		{GetParams{}, []string{"doc_id", "doc_ids", "image_revision", "binding", "require_current"}},
		{StatusParams{}, []string{"image_revision", "binding", "require_current"}},
		{BindParams{}, []string{"workspace", "revision", "ttl", "release"}},
		{ReplayParams{}, []string{"receipt", "require_current"}},
		{BindingResult{}, []string{"receipt", "digest", "workspace", "revision", "manifest_digest", "current", "hold"}},
		{BindingHold{}, []string{"binds", "created", "expires"}},
		{LinkRef{}, []string{"target", "kind", "line", "column", "alt", "undefined"}},
		{Link{}, []string{"from", "line", "column", "target", "kind", "status", "address", "url", "reason", "resolves_with"}},
		{CheckedLink{}, []string{"from", "line", "column", "target", "kind", "status", "address", "url", "reason", "resolves_with", "path"}},
		{CheckResult{}, []string{"generation", "documents", "counts", "broken", "external", "next"}},
		{CheckParams{}, []string{"external", "limit", "cursor", "image_revision", "binding", "require_current"}},
		{ChangesParams{}, []string{"since", "since_receipt", "until", "limit", "cursor"}},
		{ChangesResult{}, []string{"since", "until", "documents", "sections", "next"}},
		{LinkCounts{}, []string{"resolved", "broken", "external", "unchecked"}},
		{Status{}, []string{"store", "format", "generation", "documents", "sources", "peers"}},
		{SourceInfo{}, []string{"path", "prefix", "front_matter_id"}},
		{PeerStatus{}, []string{"name", "kind", "location", "status", "error", "generation", "documents"}},
	}
	for _, tt := range tests {
		typ := reflect.TypeOf(tt.v)
		if diff := cmp.Diff(tt.want, jsonFields(typ)); diff != "" {
			t.Errorf("%s fields (-want +got):\n%s", typ.Name(), diff)
		}
	}
}

// TestSkeletonTypesHoldNoBody walks every type reachable from the skeleton
// replies: none may have a field that marshals as "body".
func TestSkeletonTypesHoldNoBody(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type, path string) string
	walk = func(typ reflect.Type, path string) string {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return ""
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if strings.EqualFold(name, "body") || (name == "" && strings.EqualFold(f.Name, "body")) {
				return path + "." + f.Name
			}
			if p := walk(f.Type, path+"."+f.Name); p != "" {
				return p
			}
		}
		return ""
	}
	for _, v := range []any{SearchResult{}, ContextResult{}} {
		if p := walk(reflect.TypeOf(v), reflect.TypeOf(v).Name()); p != "" {
			t.Errorf("a skeleton reply can carry a body: %s", p)
		}
	}
	// The walk does see a body where there is one.
	seen = map[reflect.Type]bool{}
	if walk(reflect.TypeOf(GetResult{}), "GetResult") == "" {
		t.Fatal("the walk misses Document.Body")
	}
}
