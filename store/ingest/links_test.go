package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// linkDump is everything a generation answers about its links.
type linkDump struct {
	Out    map[string][]docir.Link
	In     map[string][]docir.Link
	Broken map[string][]docir.CheckedLink
	Counts docir.LinkCounts
}

func dumpLinks(t *testing.T, dir string) linkDump {
	t.Helper()
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := linkDump{Out: map[string][]docir.Link{}, In: map[string][]docir.Link{}, Broken: map[string][]docir.CheckedLink{}}
	if err := s.Records(func(r docir.Record) error {
		out, err := s.LinksOf(r.ID)
		if err != nil {
			return err
		}
		in, err := s.LinksInto(r.ID)
		if err != nil {
			return err
		}
		if len(out) > 0 {
			d.Out[r.ID] = out
		}
		if len(in) > 0 {
			d.In[r.ID] = in
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.BrokenLinksFrom(0, func(_ int, id string, ls []docir.CheckedLink) error { d.Broken[id] = ls; return nil }); err != nil {
		t.Fatal(err)
	}
	if d.Counts, err = s.LinkCounts(); err != nil {
		t.Fatal(err)
	}
	return d
}

// randomPage writes a page with a few headings and links to pages that
// may or may not exist, with anchors that may or may not.
func randomPage(r *rand.Rand, names []string) string {
	var b strings.Builder
	if r.IntN(6) == 0 {
		fmt.Fprintf(&b, "---\nid: custom/%d\n---\n", r.IntN(8))
	}
	heads := []string{"Intro", "Setup", "Usage", "Notes"}
	link := func() string {
		target := names[r.IntN(len(names))]
		switch r.IntN(5) {
		case 0:
			return "[self](#" + strings.ToLower(heads[r.IntN(len(heads))]) + ")"
		case 1:
			return "[x](/" + strings.TrimSuffix(target, ".md") + "/)"
		case 2:
			anchor := strings.ToLower(heads[r.IntN(len(heads))])
			if r.IntN(3) == 0 {
				anchor = heads[r.IntN(len(heads))] + "-id" // an HTML id
			}
			if r.IntN(4) == 0 {
				target = strings.ToUpper(target[:1]) + target[1:] // another case
			}
			if r.IntN(4) == 0 {
				target = "../" + strings.TrimSuffix(target, ".md") + "/" // a page's URL
			}
			return "[x](" + target + "#" + anchor + ")"
		case 3:
			return "<https://example.com/" + target + ">"
		}
		return "[x](/" + target + ")"
	}
	for range 1 + r.IntN(3) {
		fmt.Fprintf(&b, "## %s\n\nsee %s and %s\n\n", heads[r.IntN(len(heads))], link(), link())
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "`%s`\n: a term, and %s\n\n<a id=\"%s-id\"></a>\n\n", strings.ToLower(heads[r.IntN(len(heads))]), link(), heads[r.IntN(len(heads))])
		}
	}
	return b.String()
}

// TestLinkIndexMatchesFromScratch: after any sequence of refreshes (adds,
// removals, rewrites, ids that change, chains of layers merged), the
// incremental link index answers exactly what an index built from
// scratch on the same files answers.
func TestLinkIndexMatchesFromScratch(t *testing.T) {
	for _, cfg := range []store.LinkConfig{{}, {IgnoreCase: true, DefinitionIDs: true, Ignore: []string{"*/g.md*"}}, {DirectoryURLs: true, RootFallback: true}, {HugoAliases: true}} {
		t.Run(fmt.Sprintf("%+v", cfg), func(t *testing.T) { testLinkIndexMatchesFromScratch(t, cfg) })
	}
}

func testLinkIndexMatchesFromScratch(t *testing.T, cfg store.LinkConfig) {
	top, dir := t.TempDir(), t.TempDir()
	// Two sources side by side: docs/ and, with a prefix, api/; a link
	// may lead from one into the other.
	src := filepath.Join(top, "docs")
	names := []string{"a.md", "b.md", "c.md", "d/e.md", "d/index.md", "f/_index.md", "g.md", "h/README.md", "../api/x.md", "../api/y/index.md"}
	r := rand.New(rand.NewPCG(7, 27))
	page := randomPage
	if cfg.HugoAliases {
		page = aliasPage
	}
	mtime := time.Now().Add(-time.Hour)
	write := func(name, content string) {
		writeFile(t, src, name, content)
		mtime = mtime.Add(time.Second)
		if err := os.Chtimes(filepath.Join(src, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names[:5] {
		write(n, page(r, names))
	}
	write("../api/x.md", "# X\n\n## Usage\n")
	srcs := []store.Source{{Path: src}, {Path: filepath.Join(top, "api"), Prefix: "api"}}
	opt := Options{Retain: 2, Force: true, Links: cfg}
	for step := range 40 {
		n := names[r.IntN(len(names))]
		switch _, err := os.Stat(filepath.Join(src, n)); {
		case err == nil && r.IntN(3) == 0:
			if err := os.Remove(filepath.Join(src, n)); err != nil {
				t.Fatal(err)
			}
		default:
			write(n, page(r, names))
		}
		if _, err := Refresh(context.Background(), dir, srcs, opt); err != nil {
			if docir.CodeOf(err) == docir.CodeSource || strings.Contains(err.Error(), "claim") {
				continue // two files claiming one id: nothing published
			}
			t.Fatalf("step %d: %v", step, err)
		}
		fresh := t.TempDir()
		if _, err := Refresh(context.Background(), fresh, srcs, opt); err != nil {
			t.Fatalf("step %d: from scratch: %v", step, err)
		}
		if diff := cmp.Diff(dumpLinks(t, fresh), dumpLinks(t, dir)); diff != "" {
			t.Fatalf("step %d (%s): incremental index differs from scratch (-scratch +incremental):\n%s", step, n, diff)
		}
	}
}

// layerLinks lists the documents whose links generation gen's own layer
// resolved (its "links" bucket: entries and tombstones).
func layerLinks(t *testing.T, dir string, gen uint64) []string {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, "gen", fmt.Sprint(gen), "docs.bolt"), 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ids []string
	if err := db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("links")).ForEach(func(k, _ []byte) error { ids = append(ids, string(k)); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestLinkIndexIsIncremental: a refresh that changes one file resolves
// again the links of that file and of the files whose links may lead to
// it, and no others; one that changes nothing publishes nothing.
func TestLinkIndexIsIncremental(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n\n[to b](b.md#usage)\n")
	writeFile(t, src, "b.md", "# B\n\n## Usage\n\n[to c](c.md)\n")
	writeFile(t, src, "c.md", "# C\n\nno links\n")
	for i := range 20 {
		writeFile(t, src, fmt.Sprintf("other/%02d.md", i), fmt.Sprintf("# O%d\n\n[c](../c.md) <https://example.com/%d>\n", i, i))
	}
	srcs := []store.Source{{Path: src}}
	first := refresh(t, dir, srcs...)
	if got := len(layerLinks(t, dir, first.Generation)); got != 22 {
		t.Fatalf("from scratch: %d documents with links, want 22", got)
	}
	if s := refresh(t, dir, srcs...); s.Published {
		t.Fatalf("a no-op refresh published generation %d", s.Generation)
	}
	// b's Usage section goes: b's own links and a's (which leads to b).
	writeFile(t, src, "b.md", "# B\n\n## Use\n\n[to c](c.md) and more\n")
	s := refresh(t, dir, srcs...)
	if diff := cmp.Diff([]string{"a", "b"}, layerLinks(t, dir, s.Generation)); diff != "" {
		t.Errorf("after editing b (-want +got):\n%s", diff)
	}
	d := dumpLinks(t, dir)
	if diff := cmp.Diff(map[string][]docir.CheckedLink{"a": {{Link: docir.Link{From: "a#a", Line: 3, Column: 1, Target: "b.md#usage", Kind: docir.LinkInline, Status: docir.LinkBroken, Address: "b#usage", Reason: docir.ReasonNoSection}, Path: "a.md"}}}, d.Broken); diff != "" {
		t.Errorf("broken (-want +got):\n%s", diff)
	}
	if want := (docir.LinkCounts{Resolved: 21, Broken: 1, External: 20}); d.Counts != want {
		t.Errorf("counts %+v, want %+v", d.Counts, want)
	}
	// c goes: every document linking to it is resolved again, and
	// nothing else.
	if err := os.Remove(filepath.Join(src, "c.md")); err != nil {
		t.Fatal(err)
	}
	s = refresh(t, dir, srcs...)
	want := []string{"b"}
	for i := range 20 {
		want = append(want, fmt.Sprintf("other/%02d", i))
	}
	if diff := cmp.Diff(want, layerLinks(t, dir, s.Generation)); diff != "" {
		t.Errorf("after removing c (-want +got):\n%s", diff)
	}
	if n := dumpLinks(t, dir).Counts.Broken; n != 22 {
		t.Errorf("%d broken after removing c, want 22", n)
	}
	// c comes back: the links that were broken resolve again.
	writeFile(t, src, "c.md", "# C\n")
	refresh(t, dir, srcs...)
	if n := dumpLinks(t, dir).Counts.Broken; n != 1 {
		t.Errorf("%d broken after c came back, want 1", n)
	}
	// A change of the link rules resolves everything again.
	s, err := Refresh(context.Background(), dir, srcs, Options{Links: store.LinkConfig{Ignore: []string{"b.md#*"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Published || len(layerLinks(t, dir, s.Generation)) != 22 {
		t.Errorf("rules changed: published %v, %d resolved again; want all 22", s.Published, len(layerLinks(t, dir, s.Generation)))
	}
	if n := dumpLinks(t, dir).Counts.Broken; n != 0 {
		t.Errorf("%d broken with b.md#* ignored, want 0", n)
	}
	if slices.Contains(layerLinks(t, dir, s.Generation), "c") {
		t.Error("c has no links but an entry")
	}
}

// TestDiffMatchesFullComparison: Snapshot.Diff reads only the layers two
// generations do not share; over refreshes that stack layers, merge the
// deltas and write new bases, it answers exactly what comparing every
// document of the two generations answers, for every pair retained.
func TestDiffMatchesFullComparison(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	r := rand.New(rand.NewPCG(3, 14))
	mtime := time.Now().Add(-time.Hour)
	write := func(name, content string) {
		writeFile(t, src, name, content)
		mtime = mtime.Add(time.Second)
		if err := os.Chtimes(filepath.Join(src, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		write(fmt.Sprintf("p%02d.md", i), fmt.Sprintf("# P%d\n\nbody\n", i))
	}
	opt := Options{Retain: 30, Force: true}
	if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, opt); err != nil {
		t.Fatal(err)
	}
	for step := range 24 {
		// A few pages change, come and go; now and then most of them
		// change, so that the deltas outweigh the base.
		n := 1 + r.IntN(4)
		if step%9 == 8 {
			n = 30
		}
		for range n {
			name := fmt.Sprintf("p%02d.md", r.IntN(45))
			if r.IntN(5) == 0 {
				os.Remove(filepath.Join(src, name))
				continue
			}
			write(name, fmt.Sprintf("# %s\n\nstep %d %d\n", name, step, r.IntN(1000)))
		}
		if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, opt); err != nil {
			t.Fatal(err)
		}
	}
	gens, err := store.Retained(dir)
	if err != nil {
		t.Fatal(err)
	}
	open := map[uint64]*store.Snapshot{}
	for _, g := range gens {
		s, err := store.OpenGeneration(dir, g)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		open[g] = s
	}
	for _, a := range gens {
		for _, b := range gens {
			if a > b {
				continue
			}
			want := fullDiff(recordDigests(t, open[a]), recordDigests(t, open[b]))
			added, changed, removed, err := open[b].Diff(open[a])
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, [3][]string{added, changed, removed}, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%d to %d (-full +diff):\n%s", a, b, diff)
			}
		}
	}
	layerSets := map[int]int{}
	for _, g := range gens {
		entries, _ := os.ReadDir(filepath.Join(dir, "gen", fmt.Sprint(g)))
		n := 0
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "layer-") {
				n++
			}
		}
		layerSets[n]++
	}
	// Stacked layers, merged deltas (a chain cut back) and new bases (none
	// below) all occur.
	if layerSets[0] == 0 || len(layerSets) < 3 {
		t.Errorf("layers below each generation, counted: %v", layerSets)
	}
	if len(gens) < 20 {
		t.Fatalf("only %d generations retained", len(gens))
	}
}

// recordDigests maps every document of s to its digest.
func recordDigests(t *testing.T, s *store.Snapshot) map[string]string {
	t.Helper()
	m := map[string]string{}
	if err := s.Records(func(r docir.Record) error { m[r.ID] = r.Digest; return nil }); err != nil {
		t.Fatal(err)
	}
	return m
}

// fullDiff is what changed from old to cur (id -> digest) by comparing
// every document: the ids added, changed and removed, each sorted.
func fullDiff(old, cur map[string]string) [3][]string {
	var d [3][]string
	for id, dg := range cur {
		if o, ok := old[id]; !ok {
			d[0] = append(d[0], id)
		} else if o != dg {
			d[1] = append(d[1], id)
		}
	}
	for id := range old {
		if _, ok := cur[id]; !ok {
			d[2] = append(d[2], id)
		}
	}
	for i := range d {
		slices.Sort(d[i])
	}
	return d
}

// TestLinkResolution is the table of link forms resolved against a real
// generation: each link of guide/setup.md, and where it leads. Ids are
// the store's own (a bundle's index file has whatever id ingest gives it),
// looked up by path.
func TestLinkResolution(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	rows := []struct {
		link string
		want func(id func(path string) string) docir.Link
	}{}
	resolved := func(path, anchor string) func(func(string) string) docir.Link {
		return func(id func(string) string) docir.Link {
			a := id(path)
			if anchor != "" {
				a += "#" + anchor
			}
			return docir.Link{Status: docir.LinkResolved, Address: a}
		}
	}
	broken := func(reason, addr string) func(func(string) string) docir.Link {
		return func(func(string) string) docir.Link {
			return docir.Link{Status: docir.LinkBroken, Reason: reason, Address: addr}
		}
	}
	other := func(status, reason, url string) func(func(string) string) docir.Link {
		return func(func(string) string) docir.Link { return docir.Link{Status: status, Reason: reason, URL: url} }
	}
	add := func(link string, want func(func(string) string) docir.Link) {
		rows = append(rows, struct {
			link string
			want func(id func(path string) string) docir.Link
		}{link, want})
	}
	add("[relative](../ops/disk.md)", resolved("ops/disk.md", ""))
	add("[dot](./install.md)", resolved("guide/install.md", ""))
	add("[anchor](../ops/disk.md#mitigate)", resolved("ops/disk.md", "mitigate"))
	add("[anchor as heading text](../ops/disk.md#Mitigate)", resolved("ops/disk.md", "mitigate"))
	add("[anchor case](../ops/disk.md#MITIGATE)", resolved("ops/disk.md", "mitigate"))
	add("[no section](../ops/disk.md#reboot)", broken(docir.ReasonNoSection, "ops/disk#reboot"))
	add("[local](#usage)", resolved("guide/setup.md", "usage"))
	add("[local missing](#nope)", broken(docir.ReasonNoSection, "guide/setup#nope"))
	add("[root relative](/ops/disk/)", resolved("ops/disk.md", ""))
	add("[html page](/ops/disk.html#diagnose)", resolved("ops/disk.md", "diagnose"))
	add("[encoded space](../my%20notes.md)", resolved("my notes.md", ""))
	add("[angle brackets](<../my notes.md> \"title\")", resolved("my notes.md", ""))
	add("[bundle](../bundle/)", resolved("bundle/_index.md", ""))
	add("[leaf bundle](/page)", resolved("page/index.md", ""))
	add("[folder readme](../team/)", resolved("team/README.md", ""))
	add("[reference][disk]", resolved("ops/disk.md", "diagnose"))
	add("[Disk][]", resolved("ops/disk.md", "diagnose"))
	add("{{< ref \"/ops/disk#mitigate\" >}}", resolved("ops/disk.md", "mitigate"))
	add("{{% relref \"install\" %}}", resolved("guide/install.md", ""))
	add("[html id](../ops/disk.md#top)", resolved("ops/disk.md", "diagnose")) // the section of the heading the id stands before
	add("[path case](../OPS/disk.md)", broken(docir.ReasonNoDocument, ""))
	add("[gone](../nope.md)", broken(docir.ReasonNoDocument, ""))
	add("[outside](../../x.md)", other(docir.LinkUnchecked, docir.ReasonOutsideSources, ""))
	add("[image file](../img/a.png)", other(docir.LinkUnchecked, docir.ReasonNotMarkdown, ""))
	add("<https://example.com/a>", other(docir.LinkExternal, "", "https://example.com/a"))
	add("[template](<{{% eturl x %}}>)", other(docir.LinkUnchecked, docir.ReasonTemplate, ""))
	add("[custom id](../ops/disk.md#custom)", resolved("ops/disk.md", "custom"))

	links := make([]string, len(rows))
	for i, r := range rows {
		links[i] = r.link
	}
	writeLinkFixture(t, src, links)
	refresh(t, dir, store.Source{Path: src})
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids := map[string]string{}
	var customSlug bool
	if err := s.Records(func(r docir.Record) error {
		ids[r.Path] = r.ID
		for _, sec := range r.Sections {
			customSlug = customSlug || sec.Slug == "custom"
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	id := func(path string) string { return ids[path] }
	got, err := s.LinksOf(id("guide/setup.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("%d links, want %d: %+v", len(got), len(rows), got)
	}
	for i, r := range rows {
		if strings.Contains(r.link, "#custom") && !customSlug {
			t.Logf("%s: skipped: this tree's headings do not take their {#id} as slug yet", r.link)
			continue
		}
		want := r.want(id)
		l := got[i]
		if diff := cmp.Diff(want, docir.Link{Status: l.Status, Address: l.Address, Reason: l.Reason, URL: l.URL}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", r.link, diff)
		}
	}
}

// writeLinkFixture writes TestLinkResolution's tree: guide/setup.md holds
// each link in its own paragraph (then a code span that is no link, a
// section and a reference definition), and the pages they lead to.
func writeLinkFixture(t *testing.T, src string, links []string) {
	t.Helper()
	var page strings.Builder
	page.WriteString("# Setup\n\n")
	for _, l := range links {
		fmt.Fprintf(&page, "%s\n\n", l)
	}
	page.WriteString("`[code](x.md)`\n\n## Usage\n\n[disk]: ../ops/disk.md#diagnose\n")
	writeFile(t, src, "guide/setup.md", page.String())
	writeFile(t, src, "guide/install.md", "# Install\n")
	writeFile(t, src, "ops/disk.md", "# Disk\n\n<a id=\"top\"></a>\n\n## Diagnose\n\n## Mitigate\n\n## Custom heading {#custom}\n")
	writeFile(t, src, "my notes.md", "# Notes\n")
	writeFile(t, src, "bundle/_index.md", "# Bundle\n")
	writeFile(t, src, "page/index.md", "# Page\n")
	writeFile(t, src, "team/README.md", "# Team\n")
}

// writeResolvesWithFixture writes TestResolvesWith's tree: guide/setup.md
// links that each link rule (or two of them, or none) resolves.
func writeResolvesWithFixture(t *testing.T, src string) {
	t.Helper()
	writeFile(t, src, "guide/setup.md", "# Setup\n\n"+
		"[case](../Ops/Disk.md)\n\n"+
		"[term](../ops/disk.md#retry-budget)\n\n"+
		"[term and case](../OPS/disk.md#retry-budget)\n\n"+
		"[from the root](ops/disk.md)\n\n"+
		"[gone](../nope.md)\n\n"+
		"[no such heading](../ops/disk.md#reboot)\n\n"+
		"[as MkDocs writes it](../ops/disk.md#head-branch-tracking)\n\n"+
		"[as GitHub writes it](../ops/disk.md#head--branch-tracking)\n\n"+
		"[MkDocs, and case](../OPS/disk.md#head-branch-tracking)\n\n"+
		"[accents folded](../ops/disk.md#cafe)\n\n"+
		"[a sibling, from the page's URL](../install/)\n\n"+
		"[a sibling, in case](Install)\n")
	writeFile(t, src, "guide/install.md", "# Install\n")
	writeFile(t, src, "ops/disk.md", "# Disk\n\n## Terms\n\nRetry budget\n: how many retries a caller may spend\n\n## HEAD / Branch Tracking\n\n## Café\n")
}

// TestResolvesWith: a broken link names the link rules that are off and
// with which it resolves, the fewest that do (of as many, those that
// resolve the most links alone: "head-branch-tracking" is MkDocs' anchor
// and also VitePress' and Hugo blackfriday's, and MkDocs' and VitePress'
// "cafe" makes theirs the site's rule, MkDocs' by name); one no rule
// resolves names none; a rule that is on is never named.
func TestResolvesWith(t *testing.T) {
	src := t.TempDir()
	writeResolvesWithFixture(t, src)
	for _, tc := range []struct {
		cfg  store.LinkConfig
		want map[string][]string // target -> ResolvesWith; a target not here is not broken
	}{
		{store.LinkConfig{}, map[string][]string{
			"../Ops/Disk.md":                      {docir.LinkRuleIgnoreCase},
			"../ops/disk.md#retry-budget":         {docir.LinkRuleDefinitionIDs},
			"../OPS/disk.md#retry-budget":         {docir.LinkRuleDefinitionIDs, docir.LinkRuleIgnoreCase},
			"ops/disk.md":                         {docir.LinkRuleRootFallback},
			"../nope.md":                          nil,
			"../ops/disk.md#reboot":               nil,
			"../ops/disk.md#head-branch-tracking": {docir.LinkRuleMkDocsAnchors},
			"../ops/disk.md#cafe":                 {docir.LinkRuleMkDocsAnchors},
			"../OPS/disk.md#head-branch-tracking": {docir.LinkRuleIgnoreCase, docir.LinkRuleMkDocsAnchors},
			"../install/":                         {store.LinkRuleDirectoryURLs},
			// Resolves with ignore_case alone, not with every rule:
			// directory_urls moves where it starts.
			"Install": {docir.LinkRuleIgnoreCase},
		}},
		{store.LinkConfig{IgnoreCase: true}, map[string][]string{
			"../ops/disk.md#retry-budget":         {docir.LinkRuleDefinitionIDs},
			"../OPS/disk.md#retry-budget":         {docir.LinkRuleDefinitionIDs},
			"ops/disk.md":                         {docir.LinkRuleRootFallback},
			"../nope.md":                          nil,
			"../ops/disk.md#reboot":               nil,
			"../ops/disk.md#head-branch-tracking": {docir.LinkRuleMkDocsAnchors},
			"../ops/disk.md#cafe":                 {docir.LinkRuleMkDocsAnchors},
			"../OPS/disk.md#head-branch-tracking": {docir.LinkRuleMkDocsAnchors},
			"../install/":                         {store.LinkRuleDirectoryURLs},
		}},
		{store.LinkConfig{IgnoreCase: true, DefinitionIDs: true, RootFallback: true}, map[string][]string{
			"../nope.md":                          nil,
			"../ops/disk.md#reboot":               nil,
			"../ops/disk.md#head-branch-tracking": {docir.LinkRuleMkDocsAnchors},
			"../ops/disk.md#cafe":                 {docir.LinkRuleMkDocsAnchors},
			"../OPS/disk.md#head-branch-tracking": {docir.LinkRuleMkDocsAnchors},
			"../install/":                         {store.LinkRuleDirectoryURLs},
		}},
		{store.LinkConfig{IgnoreCase: true, DefinitionIDs: true, RootFallback: true, MkDocsAnchors: true}, map[string][]string{
			"../nope.md":            nil,
			"../ops/disk.md#reboot": nil,
			"../install/":           {store.LinkRuleDirectoryURLs},
		}},
		{store.LinkConfig{DirectoryURLs: true}, map[string][]string{
			"../Ops/Disk.md":                      {docir.LinkRuleIgnoreCase},
			"../ops/disk.md#retry-budget":         {docir.LinkRuleDefinitionIDs},
			"../OPS/disk.md#retry-budget":         {docir.LinkRuleDefinitionIDs, docir.LinkRuleIgnoreCase},
			"ops/disk.md":                         {docir.LinkRuleRootFallback},
			"../nope.md":                          nil,
			"../ops/disk.md#reboot":               nil,
			"../ops/disk.md#head-branch-tracking": {docir.LinkRuleMkDocsAnchors},
			"../ops/disk.md#cafe":                 {docir.LinkRuleMkDocsAnchors},
			"../OPS/disk.md#head-branch-tracking": {docir.LinkRuleIgnoreCase, docir.LinkRuleMkDocsAnchors},
			// Read from the page's URL folder it names no file; Hugo's
			// GetPage finds the one page named install.md (in any case).
			"Install": {docir.LinkRuleIgnoreCase, docir.LinkRuleRootFallback},
		}},
	} {
		t.Run(fmt.Sprintf("%+v", tc.cfg), func(t *testing.T) {
			checkResolvesWith(t, src, tc.cfg, tc.want)
		})
	}
}

// checkResolvesWith indexes src with the link rules cfg and holds its
// broken links, as check and as links read them, to want (target ->
// ResolvesWith).
func checkResolvesWith(t *testing.T, src string, cfg store.LinkConfig, want map[string][]string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := Refresh(context.Background(), dir, []store.Source{{Path: src}}, Options{Links: cfg}); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// As check reads them (the broken list) and as links reads
	// them (a document's links, the broken ones filled in).
	var checked []docir.CheckedLink
	if err := s.BrokenLinksFrom(0, func(_ int, _ string, ls []docir.CheckedLink) error { checked = append(checked, ls...); return nil }); err != nil {
		t.Fatal(err)
	}
	var broken []*docir.Link
	for i := range checked {
		broken = append(broken, &checked[i].Link)
	}
	var id string
	if err := s.Records(func(r docir.Record) error {
		if r.Path == "guide/setup.md" {
			id = r.ID
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	out, err := s.LinksOf(id)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if out[i].Status == docir.LinkBroken {
			broken = append(broken, &out[i])
		}
	}
	if err := s.FillResolvesWith(broken); err != nil {
		t.Fatal(err)
	}
	for name, ls := range map[string][]docir.Link{"check": linksOf(checked), "links": out} {
		got := map[string][]string{}
		for _, l := range ls {
			if l.Status == docir.LinkBroken {
				got[l.Target] = l.ResolvesWith
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: broken links and the rules they resolve with (-want +got):\n%s", name, diff)
		}
	}
}

// TestMkDocsAnchors: with links.mkdocs_anchors an anchor that names no
// section by get's rules names the section MkDocs gives it (repeats by
// "_1"); a slug the document has wins over another section's MkDocs
// anchor; without the rule such links are broken.
func TestMkDocsAnchors(t *testing.T) {
	src := t.TempDir()
	writeFile(t, src, "guide.md", "# Guide\n\n"+
		"[a](#head-branch-tracking) [b](#head--branch-tracking) [c](#examples_1) [d](#examples-1)\n\n"+
		"[e](#a-b) [f](#a-b_1) [g](#a---b) [h](#cafe) [i](#examples_2)\n\n"+
		"## HEAD / Branch Tracking\n\n## Examples\n\n## Examples\n\n## A-B\n\n## A - B\n\n## Café\n")
	want := map[string]string{ // target -> address ("" broken without the rule; every one resolves with it)
		"#head-branch-tracking":  "guide#head--branch-tracking",
		"#head--branch-tracking": "guide#head--branch-tracking",
		"#examples_1":            "guide#examples-1",
		"#examples-1":            "guide#examples-1",
		"#a-b":                   "guide#a-b",
		"#a-b_1":                 "guide#a---b",
		"#a---b":                 "guide#a---b",
		"#cafe":                  "guide#café",
	}
	for _, on := range []bool{false, true} {
		dir := t.TempDir()
		if _, err := Refresh(t.Context(), dir, []store.Source{{Path: src}}, Options{Links: store.LinkConfig{MkDocsAnchors: on}}); err != nil {
			t.Fatal(err)
		}
		s, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		ls, err := s.LinksOf("guide")
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, l := range ls {
			got[l.Target] = l.Address
			if l.Status != docir.LinkResolved {
				got[l.Target] = "broken: " + l.Reason
			}
		}
		for target, addr := range want {
			if !on && target != "#head--branch-tracking" && target != "#examples-1" && target != "#a-b" && target != "#a---b" {
				addr = "broken: " + docir.ReasonNoSection
			}
			if got[target] != addr {
				t.Errorf("mkdocs_anchors %v: %s resolves to %q, want %q", on, target, got[target], addr)
			}
		}
		if g := got["#examples_2"]; g != "broken: "+docir.ReasonNoSection {
			t.Errorf("mkdocs_anchors %v: #examples_2 (no third Examples) resolves to %q", on, g)
		}
	}
}

func linksOf(ls []docir.CheckedLink) []docir.Link {
	out := make([]docir.Link, len(ls))
	for i, l := range ls {
		out[i] = l.Link
	}
	return out
}

// TestLinkRulesChangeRepublishes: a refresh that changes nothing but a
// link rule publishes a generation with the links resolved by the new
// rules; every field of store.LinkConfig counts (a field Equal leaves out
// fails here).
func TestLinkRulesChangeRepublishes(t *testing.T) {
	typ := reflect.TypeFor[store.LinkConfig]()
	for i := range typ.NumField() {
		var c store.LinkConfig
		f := reflect.ValueOf(&c).Elem().Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.String:
			f.SetString("/docs/")
		case reflect.Slice:
			f.Set(reflect.ValueOf([]string{"x"}))
		default:
			t.Fatalf("LinkConfig.%s: a %s; teach this test to set it", typ.Field(i).Name, f.Kind())
		}
		if (store.LinkConfig{}).Equal(c) || c.Equal(store.LinkConfig{}) {
			t.Errorf("LinkConfig.%s set is Equal to the zero config", typ.Field(i).Name)
		}
	}

	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "guide/setup.md", "# Setup\n\n[case](../Ops/Disk.md)\n")
	writeFile(t, src, "ops/disk.md", "# Disk\n")
	srcs := []store.Source{{Path: src}}
	var gen uint64
	for _, cfg := range []store.LinkConfig{{}, {IgnoreCase: true}, {IgnoreCase: true, DefinitionIDs: true}, {IgnoreCase: true, DefinitionIDs: true, RootFallback: true}, {MkDocsAnchors: true}, {DirectoryURLs: true}, {}} {
		sum, err := Refresh(context.Background(), dir, srcs, Options{Links: cfg})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Generation == gen {
			t.Errorf("%+v: generation %d stays current; a change of link rules must publish", cfg, gen)
		}
		gen = sum.Generation
		s, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.LinkConfig()
		n, cerr := s.LinkCounts()
		s.Close()
		if err != nil || cerr != nil {
			t.Fatal(err, cerr)
		}
		want := cfg
		want.ReadmeFirst = true // no site generator's marks: a plain repository
		if !got.Equal(want) {
			t.Errorf("generation %d records %+v, want %+v", gen, got, want)
		}
		if want := map[bool]int{false: 1, true: 0}[cfg.IgnoreCase]; n.Broken != want {
			t.Errorf("%+v: %d broken, want %d", cfg, n.Broken, want)
		}
	}
}

// TestRefreshMatchesFromScratchAcrossSettings: whatever the configuration
// changes between refreshes (the size cap, exclusions, the front-matter
// list, the link rules, the source's prefix), with or without a file
// changing, the store
// answers what a refresh from scratch under the new configuration
// answers: the same documents, records, front-matter list and links; and
// a Diff (status) right after it finds nothing to do.
func TestRefreshMatchesFromScratchAcrossSettings(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	names := []string{"a.md", "b.md", "c.md", "d/e.md", "d/index.md", "g.md"}
	r := rand.New(rand.NewPCG(3, 15))
	mtime := time.Now().Add(-time.Hour)
	write := func(name string) {
		page := randomPage(r, names)
		if r.IntN(3) == 0 {
			page = "---\ntitle: Page " + name + "\ndescription: about " + name + "\n---\n" + page
		}
		page += "\n" + strings.Repeat("more words ", r.IntN(60)) + "\n" // 0 to 660 bytes more: some over the cap
		writeFile(t, src, name, page)
		mtime = mtime.Add(time.Second)
		if err := os.Chtimes(filepath.Join(src, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		write(n)
	}
	writeFile(t, src, "binary.md", "# B\x00\n") // skipped by every refresh: status must not ask for one
	caps := []int64{0, 400}
	excludes := [][]string{nil, {"b.md"}, {"d/"}}
	fronts := [][]string{nil, {"title"}}
	rules := []store.LinkConfig{{}, {IgnoreCase: true}, {DefinitionIDs: true}, {RootFallback: true}, {Ignore: []string{"*/g*"}}, {Base: "/docs/"}, {DirectoryURLs: true}}
	prefixes := []string{"", "", "p"}
	dump := func(dir string) (out struct {
		Records     map[string]string
		FrontMatter []string
		Links       linkDump
	}) {
		s, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		out.Records = map[string]string{}
		if err := s.Records(func(rec docir.Record) error {
			b, err := json.Marshal(rec)
			out.Records[rec.ID] = string(b)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if out.FrontMatter, _, err = s.FrontMatter(); err != nil {
			t.Fatal(err)
		}
		out.Links = dumpLinks(t, dir)
		return out
	}
	compared := 0
	defer func() {
		t.Logf("%d of 30 refreshes compared", compared)
		if compared < 10 {
			t.Errorf("only %d of 30 refreshes published to compare: the pages claim one id too often", compared)
		}
	}()
	for step := range 30 {
		opt := Options{Force: true, MaxFileBytes: caps[r.IntN(len(caps))], Exclude: excludes[r.IntN(len(excludes))],
			FrontMatter: fronts[r.IntN(len(fronts))], Links: rules[r.IntN(len(rules))]}
		srcs := []store.Source{{Path: src, Prefix: prefixes[r.IntN(len(prefixes))]}}
		if r.IntN(2) == 0 {
			write(names[r.IntN(len(names))])
		}
		if _, err := Refresh(context.Background(), dir, srcs, opt); err != nil {
			if docir.CodeOf(err) == docir.CodeSource {
				continue // two files claiming one id: nothing published
			}
			t.Fatalf("step %d: %v", step, err)
		}
		compared++
		fresh := t.TempDir()
		if _, err := Refresh(context.Background(), fresh, srcs, opt); err != nil {
			t.Fatalf("step %d: from scratch: %v", step, err)
		}
		if diff := cmp.Diff(dump(fresh), dump(dir)); diff != "" {
			t.Fatalf("step %d (%+v): the refreshed store differs from one indexed from scratch (-scratch +refreshed):\n%s", step, opt, diff)
		}
		// And status, right after, has nothing for a refresh to do.
		c, err := Diff(context.Background(), dir, srcs, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Added)+len(c.Changed)+len(c.Removed) > 0 {
			t.Fatalf("step %d (%+v): right after a refresh, Diff says added %q, changed %q, removed %q", step, opt, c.Added, c.Changed, c.Removed)
		}
	}
}

// TestFolderPageBySiteKind: a link to a folder that holds both README.md
// and index.md leads to README.md in a plain repository, as GitHub shows
// the folder (prometheus's tsdb/docs/format/index.md is the index file's
// format, beside the folder's README.md), and to index.md in a site
// whose generator's marks stand by the sources (an MkDocs project's
// mkdocs.yml above its docs folder); adding the mark resolves the link
// again. A folder with one of them leads to it either way.
func TestFolderPageBySiteKind(t *testing.T) {
	project, dir := t.TempDir(), t.TempDir()
	src := filepath.Join(project, "docs")
	writeFile(t, src, "README.md", "# Top\n\n[fmt](fmt/) [only](only/)\n")
	writeFile(t, src, "fmt/README.md", "# Format\n")
	writeFile(t, src, "fmt/index.md", "# Index file format\n")
	writeFile(t, src, "only/index.md", "# Only\n")
	leadsTo := func() map[string]string {
		t.Helper()
		s := refreshOpen(t, dir, src, store.LinkConfig{})
		defer s.Close()
		got := map[string]string{}
		for target, l := range linksByTarget(t, s, "README") {
			got[target] = l.Address
		}
		return got
	}
	if diff := cmp.Diff(map[string]string{"fmt/": "fmt/README", "only/": "only"}, leadsTo()); diff != "" {
		t.Errorf("a plain repository (-want +got):\n%s", diff)
	}
	writeFile(t, project, "mkdocs.yml", "site_name: x\n")
	if diff := cmp.Diff(map[string]string{"fmt/": "fmt", "only/": "only"}, leadsTo()); diff != "" {
		t.Errorf("an MkDocs site (-want +got):\n%s", diff)
	}
}

// TestLinkToTombstones: a link that leads elsewhere after a refresh drops
// its linkto key in the new generation's own layer as a tombstone, which
// shadows the key in the layers below (a delete there would leave the old
// key readable through the chain: readers re-check it, so only a test of
// the layer sees it). linkToWrites writes them in key order at a batch's
// end.
func TestLinkToTombstones(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "a.md", "# A\n\n[to b](b.md)\n")
	writeFile(t, src, "b.md", "# B\n")
	writeFile(t, src, "c.md", "# C\n")
	srcs := []store.Source{{Path: src}}
	refresh(t, dir, srcs...)
	writeFile(t, src, "a.md", "# A\n\n[to c](c.md)\n")
	sum := refresh(t, dir, srcs...)
	db, err := bolt.Open(filepath.Join(dir, "gen", fmt.Sprint(sum.Generation), "docs.bolt"), 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := map[string]string{}
	if err := db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("linkto")).ForEach(func(k, v []byte) error { got[string(k)] = string(v); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	oldKey, newKey := store.FileKey(src, "b.md")+"\x00a", store.FileKey(src, "c.md")+"\x00a"
	if v, ok := got[oldKey]; !ok || v == "1" {
		t.Errorf("the old target's linkto key in the new layer: %q, %v; want a tombstone (layer: %q)", v, ok, got)
	}
	if got[newKey] != "1" {
		t.Errorf("the new target's linkto key: %q; want it put (layer: %q)", got[newKey], got)
	}
}
