package workspace

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/address"
	"github.com/docir/docir/docir"
)

// TestMissesStopAtTheReplyBound: a get or links read of addresses that
// name nothing keeps the same running tally as one of documents
// (docir.Tally.AddMiss) and stops with reply_too_large where it passes the
// bound, instead of holding a miss per address however many were asked
// (8 million from a 16 MB stdin took 3.3 GB).
func TestMissesStopAtTheReplyBound(t *testing.T) {
	ws := linksService(t, map[string]string{"guide.md": "# Guide\n\ntext\n"})
	const n, bound = 1000, 20_000
	ss := make([]string, n)
	for i := range ss {
		ss[i] = "gude" // a miss that suggests guide
	}
	addrs := parseAll(t, ss...)
	want := docir.Tally{Bound: bound}
	var wantErr error
	for i := 0; wantErr == nil; i++ {
		wantErr = want.AddMiss("gude", docir.ReasonNoDocument, []string{"guide"}, i+1, n)
	}
	_, err := ws.Resolve(context.Background(), addrs, bound)
	if docir.CodeOf(err) != docir.CodeReplyTooLarge || err.Error() != wantErr.Error() {
		t.Errorf("get: %v\nwant %v", err, wantErr)
	}
	_, err = ws.Links(context.Background(), addrs, bound)
	if docir.CodeOf(err) != docir.CodeReplyTooLarge || err.Error() != wantErr.Error() {
		t.Errorf("links: %v\nwant %v", err, wantErr)
	}
	// Unbounded, every miss is answered.
	res, err := ws.Resolve(context.Background(), addrs, 0)
	if err != nil || len(res.Items) != n {
		t.Fatalf("unbounded: %d items, %v", len(res.Items), err)
	}
}

// TestRepeatedMissesAreSuggestedOnce: the suggestions of a miss are looked
// up once per read however often its address is repeated (each lookup
// scans the ids): every repeat carries the very slice the first lookup
// made. Only the first 5 distinct addresses that miss are looked up.
func TestRepeatedMissesAreSuggestedOnce(t *testing.T) {
	ws := linksService(t, map[string]string{"guide.md": "# Guide\n\ntext\n"})
	ss := []string{"gude", "gude", "gude", "gude", "gude", "gude", "guid", "guie", "gide", "uide", "gudie", "gude"}
	res, err := ws.Resolve(context.Background(), parseAll(t, ss...), 0)
	if err != nil {
		t.Fatal(err)
	}
	first := res.Items[0].Suggestions
	if !slices.Equal(first, []string{"guide"}) {
		t.Fatalf("gude suggests %q; want [guide]", first)
	}
	for i, it := range res.Items {
		switch {
		case ss[i] == "gude":
			if len(it.Suggestions) != 1 || &it.Suggestions[0] != &first[0] {
				t.Errorf("item %d (gude): suggestions %q not the first lookup's", i, it.Suggestions)
			}
		case ss[i] == "gudie": // the sixth distinct miss
			if it.Suggestions != nil {
				t.Errorf("item %d (gudie): suggestions %q; want none past 5 distinct misses", i, it.Suggestions)
			}
		case len(it.Suggestions) == 0:
			t.Errorf("item %d (%s): no suggestions; want some among the first 5 distinct misses", i, ss[i])
		}
	}
}

// TestMissOfAnUnreadFile: a read of an id whose file is in the sources
// with an extension docir does not read (charts.mdx, api.rst) says so,
// naming the file below its source, beside the nearest ids.
func TestMissOfAnUnreadFile(t *testing.T) {
	ws, ctx := indexedFiles(t, map[string]string{"charts_hooks.md": "# Hooks\n", "charts.mdx": "# Charts\n", "api.rst": "API\n===\n"})
	addrs := []address.Address{{ID: "charts"}, {ID: "nope"}, {ID: "api"}}
	res, err := ws.Resolve(ctx, addrs, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A page in another markup is not markdown renamed: no rename advised.
	want := []string{"charts: the file charts.mdx of a source is not read: docir reads *.md files only (rename it to .md, or leave it out with exclude; docs/ingest.md)",
		"api: the file api.rst of a source is not read: docir reads markdown, *.md files, only (docs/ingest.md)"}
	if diff := cmp.Diff(want, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestSameHeadingRead: a section read by a heading text that several
// sections share says which it read and the slugs of the others; a read
// by slug, or by another anchor of the section (an HTML id), says nothing.
func TestSameHeadingRead(t *testing.T) {
	md := "# Guide\n\n## v3.2\n\n### Provider\n\nOne.\n\n## v3.1\n\n<a id=\"old-provider\"></a>\n### Provider\n\nTwo.\n\n## v3.0\n\n### Provider\n\nThree.\n"
	ws, ctx := indexedFiles(t, map[string]string{"guide.md": md})
	res, err := ws.Resolve(ctx, []address.Address{address.MustParse("guide#Provider"), address.MustParse("guide#provider-1"), address.MustParse("guide#old-provider")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`guide#Provider: 3 sections are headed "Provider"; this read is #provider; the others are #provider-1, #provider-2 (a slug names one section)`}
	if diff := cmp.Diff(want, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// Headings the same but for case are told too: a heading typed in
	// one case may mean the other (the OpenTelemetry spec's "Interface
	// definition" and "Interface Definition").
	ws2, ctx2 := indexedFiles(t, map[string]string{"sdk.md": "# SDK\n\n## Interface definition\n\nOne.\n\n## Interface Definition\n\nTwo.\n"})
	res, err = ws2.Resolve(ctx2, []address.Address{address.MustParse("sdk#Interface Definition")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{`sdk#Interface Definition: 2 sections are headed "Interface Definition" (in one case or another); this read is #interface-definition-1; the others are #interface-definition (a slug names one section)`}
	if diff := cmp.Diff(want, res.Warnings); diff != "" {
		t.Errorf("headings alike but for case (-want +got):\n%s", diff)
	}
	// A heading whose text is its slug is read by its text too, and
	// says so (the Terraform docs' two `#### ebs_config`).
	ws3, ctx3 := indexedFiles(t, map[string]string{"emr.md": "# EMR\n\n## core\n\n#### ebs_config\n\nOne.\n\n## task\n\n#### ebs_config\n\nTwo.\n"})
	res, err = ws3.Resolve(ctx3, []address.Address{address.MustParse("emr#ebs_config"), address.MustParse("emr#ebs_config-1")}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{`emr#ebs_config: 2 sections are headed "ebs_config"; this read is #ebs_config; the others are #ebs_config-1 (a slug names one section)`}
	if diff := cmp.Diff(want, res.Warnings); diff != "" {
		t.Errorf("a heading that is its slug (-want +got):\n%s", diff)
	}
	// A read's warnings are bounded as its suggestions are: a few
	// distinct addresses get one each.
	var many []address.Address
	for i := range 20 {
		many = append(many, address.MustParse(fmt.Sprintf("guide#Provider%s", strings.Repeat(" ", i%2))), address.MustParse(fmt.Sprintf("nope%d", i)))
	}
	if res, err = ws.Resolve(ctx, many, 0); err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 {
		t.Errorf("a batch repeating one address: %d warnings, want 1: %q", len(res.Warnings), res.Warnings)
	}
}
