package ingest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store"
)

// writeHugoAliasesFixture writes a small Hugo site: pages that declare
// aliases (site-relative, page-relative, a string, one path two pages
// declare, one a file also has) and a page that links them as the Redis
// docs link /topics/acl.
func writeHugoAliasesFixture(t *testing.T, src string) {
	t.Helper()
	writeFile(t, src, "docs/management/security/acl.md", "---\ntitle: ACL\naliases: [/topics/acl, old-acl, ../../../legacy/acl.html]\n---\n# ACL\n\n## Key permissions\n")
	writeFile(t, src, "docs/guides/_index.md", "---\naliases: /guides/\n---\n# Guides\n")
	writeFile(t, src, "b.md", "---\naliases: [/shared]\n---\n# B\n")
	writeFile(t, src, "a.md", "---\naliases: [/shared, /exists]\n---\n# A\n")
	writeFile(t, src, "exists.md", "# Exists\n")
	writeFile(t, src, "commands/auth.md", "# AUTH\n\n"+
		"[a](/topics/acl#key-permissions) [b](/topics/acl/) [c](/topics/acl/index.html) [d](/docs/management/security/old-acl)\n\n"+
		"[e](/guides) [f](/shared) [g](/exists) [h](/legacy/acl.html) [i](/legacy/acl)\n\n"+
		"[j](/topics/acl#nope) [k](/topics/nothing) [l](../topics/acl)\n")
}

// TestHugoAliases: with links.hugo_aliases a root-relative link whose path
// names no file leads to the document that declares it among its aliases
// (its anchor read there; a path two documents declare leads to the first
// in id order; a file at the path wins), and LinksInto lists it; without
// the rule such links are broken and name the rule they resolve with.
func TestHugoAliases(t *testing.T) {
	src := t.TempDir()
	writeHugoAliasesFixture(t, src)
	const acl = "docs/management/security/acl"
	want := []ruleWant{ // the address without and with the rule
		{"/topics/acl#key-permissions", broken, acl + "#key-permissions"},
		{"/topics/acl/", broken, acl},
		{"/topics/acl/index.html", broken, acl},
		{"/docs/management/security/old-acl", broken, acl},
		{"/guides", broken, "docs/guides"},
		{"/shared", broken, "a"},
		{"/exists", "exists", "exists"},
		{"/legacy/acl.html", broken, acl},
		{"/legacy/acl", broken, broken},
		{"/topics/acl#nope", broken, broken},
		{"/topics/nothing", broken, broken},
		{"../topics/acl", broken, broken},
	}
	rule := ruleOnOff{name: store.LinkRuleHugoAliases, set: func(c *store.LinkConfig) { c.HugoAliases = true }}
	rule.check(t, src, "commands/auth", want, func(t *testing.T, on bool, s *store.Snapshot) {
		in, err := s.LinksInto(acl)
		if err != nil {
			t.Fatal(err)
		}
		var from []string
		for _, l := range in {
			from = append(from, l.Target)
		}
		wantIn := []string(nil)
		if on {
			wantIn = []string{"/topics/acl#key-permissions", "/topics/acl/", "/topics/acl/index.html", "/docs/management/security/old-acl", "/legacy/acl.html"}
		}
		if !slices.Equal(from, wantIn) {
			t.Errorf("hugo_aliases %v: links into %s: %q, want %q", on, acl, from, wantIn)
		}
	})
}

// TestRedirectFrom: links.hugo_aliases reads Jekyll's redirect_from too
// (jekyll-redirect-from; GitHub's docs): paths from the site root, the
// leading '/' optional, a folder or a file as an alias is.
func TestRedirectFrom(t *testing.T) {
	src := t.TempDir()
	writeFile(t, src, "get-started/set-up-git.md", "---\ntitle: Set up Git\nredirect_from:\n  - /articles/set-up-git\n  - github/getting-started/set-up-git/\n  - /guides/git.html\n  - https://example.com/x\n---\n\n## Using Git\n")
	writeFile(t, src, "index.md", "# Home\n\n"+
		"[a](/articles/set-up-git) [b](/github/getting-started/set-up-git#using-git) [c](/guides/git.html) [d](/guides/git) [e](/articles/nothing)\n")
	const git = "get-started/set-up-git"
	want := []ruleWant{
		{"/articles/set-up-git", broken, git},
		{"/github/getting-started/set-up-git#using-git", broken, git + "#using-git"},
		{"/guides/git.html", broken, git},
		{"/guides/git", broken, broken},
		{"/articles/nothing", broken, broken},
	}
	rule := ruleOnOff{name: store.LinkRuleHugoAliases, set: func(c *store.LinkConfig) { c.HugoAliases = true }}
	rule.check(t, src, "index", want, func(t *testing.T, on bool, s *store.Snapshot) {
		in, err := s.LinksInto(git)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(in); on && n != 3 || !on && n != 0 {
			t.Errorf("hugo_aliases %v: %d links into %s, want %d", on, n, git, map[bool]int{true: 3}[on])
		}
	})
}

// TestRedirectFromOlderAliasIndex: a store whose alias index holds Hugo's
// aliases only (version "1", before redirect_from was read) has it made
// again by its next refresh, one that changes no document too, so that
// the rule resolves redirect_from paths.
func TestRedirectFromOlderAliasIndex(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeFile(t, src, "new.md", "---\nredirect_from: /old/\n---\n# New\n")
	writeFile(t, src, "index.md", "# Home\n\n[a](/old)\n")
	sum, err := Refresh(t.Context(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	entry := []byte("a/old\x00new")
	layer := func(gen uint64, fn func(tx *bolt.Tx) error) { editGeneration(t, dir, gen, fn) }
	layer(sum.Generation, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("linkalias")) // as version 1 left it: no redirect_from
		return errors.Join(b.Delete(entry), b.Delete([]byte("dnew\x00/old")), tx.Bucket([]byte("meta")).Put([]byte("link_aliases"), []byte("1")))
	})
	again, err := Refresh(t.Context(), dir, []store.Source{{Path: src}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Published {
		t.Fatalf("a refresh over an alias index of version 1 published nothing")
	}
	layer(again.Generation, func(tx *bolt.Tx) error {
		if v := tx.Bucket([]byte("linkalias")).Get(entry); !slices.Equal(v, []byte("1")) {
			t.Errorf("the redirect_from entry is %q after the refresh, want \"1\"", v)
		}
		return nil
	})
	if _, err := Refresh(t.Context(), dir, []store.Source{{Path: src}}, Options{Links: store.LinkConfig{HugoAliases: true}}); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if l := linksByTarget(t, s, "index")["/old"]; l.Status != docir.LinkResolved || l.Address != "new" {
		t.Errorf("/old: %s %q, want new", l.Status, l.Address)
	}
}

// editGeneration runs fn in a write transaction on the top layer of
// generation gen of the store in dir: what an older docir left, made by
// hand.
func editGeneration(t *testing.T, dir string, gen uint64, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, "gen", fmt.Sprint(gen), "docs.bolt"), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(db.Update(fn), db.Close()); err != nil {
		t.Fatal(err)
	}
}

// broken is ruleWant's address of a broken link.
const broken = "broken"

// ruleWant is a link's address without and with a link rule (broken for
// a broken link).
type ruleWant struct{ target, off, on string }

// ruleOnOff is a link rule a test indexes a site without and with: its
// name in ResolvesWith, what turns it on, and the reason of the broken
// links it checks ("": any).
type ruleOnOff struct {
	name   string
	set    func(*store.LinkConfig)
	reason string
}

// check indexes src without and with the rule and holds the links of
// document id to want: each leads to its address or is broken, and names
// the rule in ResolvesWith where it is broken without it and resolves
// with it; then more, when not nil, checks the generation.
func (r ruleOnOff) check(t *testing.T, src, id string, want []ruleWant, more func(t *testing.T, on bool, s *store.Snapshot)) {
	t.Helper()
	for _, on := range []bool{false, true} {
		var cfg store.LinkConfig
		if on {
			r.set(&cfg)
		}
		s := refreshOpen(t, t.TempDir(), src, cfg)
		defer s.Close()
		got := linksByTarget(t, s, id)
		for _, w := range want {
			l, addr := got[w.target], w.off
			if on {
				addr = w.on
			}
			switch {
			case l == nil:
				t.Fatalf("no link %s in %v", w.target, got)
			case addr == broken && (l.Status != docir.LinkBroken || r.reason != "" && l.Reason != r.reason):
				t.Errorf("%s %v: %s: %s %q (%s), want broken %s", r.name, on, w.target, l.Status, l.Address, l.Reason, r.reason)
			case addr != broken && (l.Status != docir.LinkResolved || l.Address != addr):
				t.Errorf("%s %v: %s: %s %q (%s), want %q", r.name, on, w.target, l.Status, l.Address, l.Reason, addr)
			}
			var with []string // the rule, for a link broken without it and resolved with it
			if !on && w.off == broken && w.on != broken {
				with = []string{r.name}
			}
			if !slices.Equal(l.ResolvesWith, with) {
				t.Errorf("%s %v: %s resolves with %q, want %q", r.name, on, w.target, l.ResolvesWith, with)
			}
		}
		if more != nil {
			more(t, on, s)
		}
	}
}

// refreshOpen refreshes the store in dir from the one source src with the
// link rules cfg and opens it.
func refreshOpen(t *testing.T, dir, src string, cfg store.LinkConfig) *store.Snapshot {
	t.Helper()
	if _, err := Refresh(t.Context(), dir, []store.Source{{Path: src}}, Options{Links: cfg}); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// linksByTarget are the links of document id by target, the broken ones'
// ResolvesWith filled.
func linksByTarget(t *testing.T, s *store.Snapshot, id string) map[string]*docir.Link {
	t.Helper()
	ls, err := s.LinksOf(id)
	if err != nil {
		t.Fatal(err)
	}
	var bl []*docir.Link
	got := map[string]*docir.Link{}
	for i := range ls {
		got[ls[i].Target] = &ls[i]
		if ls[i].Status == docir.LinkBroken {
			bl = append(bl, &ls[i])
		}
	}
	if err := s.FillResolvesWith(bl); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestHugoAliasesRefresh: a refresh that changes only which page declares
// an alias resolves again the links to it, and no others need change: an
// alias dropped leaves its links broken, one moved to another page leads
// them there, one declared again by the first page leads them back.
func TestHugoAliasesRefresh(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	writeHugoAliasesFixture(t, src)
	opt := Options{Force: true, Links: store.LinkConfig{HugoAliases: true}}
	steps := []struct {
		what, file, content string
		want                map[string]string // target -> address ("" broken)
	}{
		{"as written", "", "", map[string]string{"/topics/acl/": "docs/management/security/acl", "/shared": "a"}},
		{"acl drops the alias", "docs/management/security/acl.md", "# ACL\n", map[string]string{"/topics/acl/": "", "/shared": "a"}},
		{"b declares it", "b.md", "---\naliases: [/shared, /topics/acl]\n---\n# B\n", map[string]string{"/topics/acl/": "b", "/shared": "a"}},
		{"a is gone", "a.md", "", map[string]string{"/topics/acl/": "b", "/shared": "b"}},
		{"acl declares it again", "docs/management/security/acl.md", "---\naliases: /topics/acl\n---\n# ACL\n", map[string]string{"/topics/acl/": "b", "/shared": "b"}},
		{"b drops both", "b.md", "# B\n", map[string]string{"/topics/acl/": "docs/management/security/acl", "/shared": ""}},
	}
	for _, st := range steps {
		switch {
		case st.file == "":
		case st.content == "":
			if err := os.Remove(filepath.Join(src, st.file)); err != nil {
				t.Fatal(err)
			}
		default:
			writeFile(t, src, st.file, st.content)
		}
		if _, err := Refresh(t.Context(), dir, []store.Source{{Path: src}}, opt); err != nil {
			t.Fatal(err)
		}
		s, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		got := linksByTarget(t, s, "commands/auth")
		s.Close()
		for target, addr := range st.want {
			l := got[target]
			if addr == "" && l.Status != docir.LinkBroken || addr != "" && (l.Status != docir.LinkResolved || l.Address != addr) {
				t.Errorf("%s: %s: %s %q, want %q", st.what, target, l.Status, l.Address, addr)
			}
		}
	}
}

// aliasPage is randomPage with aliases in its front matter, some of paths
// links name, and links to such paths.
func aliasPage(r *rand.Rand, names []string) string {
	paths := []string{"/old/1", "/old/2/", "old-3", "../old-4", "/a"}
	page := randomPage(r, names)
	var as []string
	for range r.IntN(3) {
		as = append(as, fmt.Sprintf("%q", paths[r.IntN(len(paths))]))
	}
	fm := "aliases: [" + strings.Join(as, ", ") + "]\n"
	if rest, ok := strings.CutPrefix(page, "---\n"); ok {
		page = "---\n" + fm + rest
	} else {
		page = "---\n" + fm + "---\n" + page
	}
	return page + fmt.Sprintf("\n[al](/old/%d#setup) [al](/old-%d/) [al](/d/old-3)\n", 1+r.IntN(2), 3+r.IntN(2))
}

// TestHugoAliasesOlderStore: a store sealed by a docir that kept no alias
// index (no linkalias bucket, no link_aliases in its meta) has every
// document's aliases indexed by its next seal, so that turning the rule
// on resolves the links to them; and one refreshed by such a docir after
// a newer one, whose index holds the aliases of a document since gone,
// has them dropped.
func TestHugoAliasesOlderStore(t *testing.T) {
	const stale = "d000-gone\x00/topics/acl"
	for _, older := range []string{"sealed", "refreshed"} {
		src, dir := t.TempDir(), t.TempDir()
		writeHugoAliasesFixture(t, src)
		sum, err := Refresh(t.Context(), dir, []store.Source{{Path: src}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		layer := func(gen uint64, fn func(tx *bolt.Tx) error) { editGeneration(t, dir, gen, fn) }
		layer(sum.Generation, func(tx *bolt.Tx) error {
			meta := tx.Bucket([]byte("meta")).Delete([]byte("link_aliases"))
			if older == "sealed" {
				return errors.Join(tx.DeleteBucket([]byte("linkalias")), meta)
			}
			b := tx.Bucket([]byte("linkalias"))
			return errors.Join(b.Put([]byte(stale), []byte("1")), b.Put([]byte("a/topics/acl\x00000-gone"), []byte("1")), meta)
		})
		sum, err = Refresh(t.Context(), dir, []store.Source{{Path: src}}, Options{Links: store.LinkConfig{HugoAliases: true}})
		if err != nil {
			t.Fatal(err)
		}
		s, err := store.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if l := linksByTarget(t, s, "commands/auth")["/topics/acl/"]; l.Status != docir.LinkResolved || l.Address != "docs/management/security/acl" {
			t.Errorf("%s by an older docir: /topics/acl/: %s %q, want docs/management/security/acl", older, l.Status, l.Address)
		}
		s.Close()
		layer(sum.Generation, func(tx *bolt.Tx) error {
			if v := tx.Bucket([]byte("linkalias")).Get([]byte(stale)); older == "refreshed" && !slices.Equal(v, []byte{0}) {
				t.Errorf("the entry of a document gone is %q in the new layer, want a tombstone", v)
			}
			return nil
		})
	}
}

// TestNumberPrefixes: with links.number_prefixes a link's path names a
// file or folder by its name without its number prefix, as svelte.dev
// and Docusaurus serve them: a relative path in the folder
// (page-options), a root-relative one through every folder
// (/docs/kit/core-concepts/load), and, with root_fallback, a name alone
// anywhere (hooks), when one file has it (two: none). Without the rule
// they are broken and name it. A file renamed to another number is found
// again by the next refresh, and one added by its plain name too.
func TestNumberPrefixes(t *testing.T) {
	src := t.TempDir()
	writeFile(t, src, "kit/20-core-concepts/20-load.md", "# Loading data\n\n"+
		"[a](page-options#prerender) [b](hooks#handle) [c](/docs/kit/core-concepts/load) [d](intro) [e](page-options.md) [f](nothing) [g](sub/later)\n")
	writeFile(t, src, "kit/20-core-concepts/40-page-options.md", "# Page options\n\n## prerender\n")
	writeFile(t, src, "kit/30-advanced/20-hooks.md", "# Hooks\n\n## handle\n")
	writeFile(t, src, "kit/10-intro.md", "# Intro\n")
	writeFile(t, src, "svelte/01-intro.md", "# Intro\n")
	want := []ruleWant{
		{"page-options#prerender", broken, "kit/20-core-concepts/40-page-options#prerender"},
		{"hooks#handle", broken, "kit/30-advanced/20-hooks#handle"},
		{"/docs/kit/core-concepts/load", broken, "kit/20-core-concepts/20-load"},
		{"intro", broken, broken}, // two pages are intro
		{"page-options.md", broken, "kit/20-core-concepts/40-page-options"},
		{"nothing", broken, broken},
		{"sub/later", broken, broken},
	}
	for _, on := range []bool{false, true} {
		cfg := store.LinkConfig{Base: "/docs/", RootFallback: true, NumberPrefixes: on}
		dir := t.TempDir()
		s := refreshOpen(t, dir, src, cfg)
		got := linksByTarget(t, s, "kit/20-core-concepts/20-load")
		for _, w := range want {
			l, addr := got[w.target], w.off
			if on {
				addr = w.on
			}
			var with []string
			if !on && w.on != broken {
				with = []string{store.LinkRuleNumberPrefixes}
			}
			switch {
			case l == nil:
				t.Fatalf("no link %s", w.target)
			case addr == broken && l.Status != docir.LinkBroken, addr != broken && l.Address != addr:
				t.Errorf("number_prefixes %v: %s: %s %q, want %q", on, w.target, l.Status, l.Address, addr)
			case !slices.Equal(l.ResolvesWith, with):
				t.Errorf("number_prefixes %v: %s resolves with %q, want %q", on, w.target, l.ResolvesWith, with)
			}
		}
		s.Close()
		if !on {
			continue
		}
		// Renumbered: the links that found it by its plain name find it
		// again; removed: they break.
		if err := os.Rename(filepath.Join(src, "kit/30-advanced/20-hooks.md"), filepath.Join(src, "kit/30-advanced/30-hooks.md")); err != nil {
			t.Fatal(err)
		}
		for _, step := range []struct{ do, want string }{{"renumber", "kit/30-advanced/30-hooks#handle"}, {"remove", broken}} {
			if step.do == "remove" {
				if err := os.Remove(filepath.Join(src, "kit/30-advanced/30-hooks.md")); err != nil {
					t.Fatal(err)
				}
			}
			s := refreshOpen(t, dir, src, cfg)
			l := linksByTarget(t, s, "kit/20-core-concepts/20-load")["hooks#handle"]
			if step.want == broken && l.Status != docir.LinkBroken || step.want != broken && l.Address != step.want {
				t.Errorf("after %s: hooks#handle %s %q, want %s", step.do, l.Status, l.Address, step.want)
			}
			s.Close()
		}
		// Added: links that named nothing find the new pages, each by the
		// key its lookup left (a document's links are resolved together:
		// one page at a time).
		for _, add := range []struct{ file, target, want string }{
			{"kit/20-core-concepts/10-sub/20-later.md", "sub/later", "kit/20-core-concepts/10-sub/20-later"},
			{"kit/50-nothing.md", "nothing", "kit/50-nothing"},
		} {
			writeFile(t, src, add.file, "# Added\n")
			s := refreshOpen(t, dir, src, cfg)
			if l := linksByTarget(t, s, "kit/20-core-concepts/20-load")[add.target]; l.Address != add.want {
				t.Errorf("after adding %s: %s %s %q", add.file, add.target, l.Status, l.Address)
			}
			s.Close()
		}
	}
}
