package links

import (
	"strings"
	"testing"

	"github.com/docir/docir/docir"
)

// TestAliasPath: where Hugo serves an alias a page declares, the table of
// Hugo's URL management page (content/examples/example-1.md: "/old-url",
// "old-name", "../old/path") and the other page kinds.
func TestAliasPath(t *testing.T) {
	tests := []struct {
		rel, alias, want string
	}{
		{"examples/example-1.md", "/old-url", "/old-url"},
		{"examples/example-1.md", "old-name", "/examples/old-name"},
		{"examples/example-1.md", "../old/path", "/old/path"},
		{"examples/example-1.md", "./here/", "/examples/here"},
		{"examples/b/index.md", "old-name", "/examples/old-name"},
		{"examples/_index.md", "old-name", "/old-name"},
		{"_index.md", "old", "/old"},
		{"page.md", "old", "/old"},
		{"a.md", "../../../x", "/x"},
		{"a/b.md", "/topics/acl/", "/topics/acl"},
		{"a/b.md", "/topics/acl/index.html", "/topics/acl"},
		{"a/b.md", "/old.html", "/old.html"},
		{"a/b.md", " /padded ", "/padded"},
		{"a/b.md", "/x//y/../z", "/x/z"},
	}
	for _, tt := range tests {
		got, ok := AliasPath(tt.rel, tt.alias)
		if !ok || got != tt.want {
			t.Errorf("AliasPath(%q, %q) = %q, %v; want %q", tt.rel, tt.alias, got, ok, tt.want)
		}
	}
	for _, a := range []string{"", "  ", "/", "/index.html", "..", "https://example.com/x", "//host/x", "{{ .x }}", "a\x00b"} {
		if got, ok := AliasPath("a/b.md", a); ok {
			t.Errorf("AliasPath(a/b.md, %q) = %q, want none", a, got)
		}
	}
}

// TestSitePath: the path a root-relative link names, in the form of
// AliasPath, below the base; none for any other link.
func TestSitePath(t *testing.T) {
	in := func(target string) docir.LinkRef { return docir.LinkRef{Target: target, Kind: docir.LinkInline} }
	r := Rules{Base: "/docs/", Ignore: []string{"/docs/ignored*"}}
	tests := []struct {
		link docir.LinkRef
		want string
		ok   bool
	}{
		{in("/docs/topics/acl#key-permissions"), "/topics/acl", true},
		{in("/docs/topics/acl/"), "/topics/acl", true},
		{in("/docs/topics/acl/index.html?x=1"), "/topics/acl", true},
		{in("/docs/old.html"), "/old.html", true},
		{in("/docs/a%20b"), "/a b", true},
		{in("/docs"), "/", true},
		{in("/other/x"), "", false},
		{in("topics/acl"), "", false},
		{in("//host/docs/x"), "", false},
		{in("https://x.example/docs/x"), "", false},
		{in("/docs/ignored/x"), "", false},
		{in("/docs/{{ .x }}"), "", false},
		{docir.LinkRef{Target: "/docs/x", Kind: docir.LinkHugoRef}, "", false},
	}
	for _, tt := range tests {
		got, ok := r.SitePath(tt.link)
		if got != tt.want || ok != tt.ok {
			t.Errorf("SitePath(%q) = %q, %v; want %q, %v", tt.link.Target, got, ok, tt.want, tt.ok)
		}
	}
	if got, _ := (Rules{}).SitePath(in("/topics/acl/")); got != "/topics/acl" {
		t.Errorf("SitePath under the root base = %q", got)
	}
	// A URL below one of the site's URLs is the path after it, from the
	// site's root (the base is the root-relative links' prefix, not the
	// URL's).
	site := Rules{Base: "/docs/", Site: []string{"https://grafana.com/docs/grafana/latest/"}}
	for target, want := range map[string]string{
		"https://grafana.com/docs/grafana/latest/datasources/azuremonitor/#x": "/datasources/azuremonitor",
		"https://GRAFANA.com/docs/grafana/latest/":                            "/",
		"https://grafana.com/docs/grafana/next/datasources/":                  "",
		"https://example.com/docs/grafana/latest/x":                           "",
	} {
		if got, ok := site.SitePath(in(target)); got != want || ok != (want != "") {
			t.Errorf("SitePath(%q) = %q, %v; want %q", target, got, ok, want)
		}
	}
}

// TestAliases: the value of the aliases field, a string or a list.
func TestAliases(t *testing.T) {
	if got := Aliases("/a"); len(got) != 1 || got[0] != "/a" {
		t.Errorf("Aliases(string) = %q", got)
	}
	if got := Aliases([]any{"/a", 3, "b"}); strings.Join(got, ",") != "/a,b" {
		t.Errorf("Aliases(list) = %q", got)
	}
	if got := Aliases(map[string]any{"a": "b"}); got != nil {
		t.Errorf("Aliases(map) = %q", got)
	}
}

// TestRedirectPath: a redirect_from entry is a path from the site root,
// its leading '/' optional.
func TestRedirectPath(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"/articles/set-up-git", "/articles/set-up-git", true},
		{"github/getting-started/set-up-git/", "/github/getting-started/set-up-git", true},
		{" /guides/git.html ", "/guides/git.html", true},
		{"/x/index.html", "/x", true},
		{"../up", "/up", true},
		{"https://example.com/x", "", false},
		{"//host/x", "", false},
		{"/", "", false},
		{"", "", false},
	} {
		if got, ok := RedirectPath(tt.in); ok != tt.ok || ok && got != tt.want {
			t.Errorf("RedirectPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzAliasPath: an alias or a redirect_from entry, outside input from a
// page's front matter, and a link's target give paths of one form:
// rooted, clean, no trailing '/' (but the root), no "/index.html"; and a
// link to such a path finds it. A redirect_from entry that opens with '/'
// is the alias it spells.
func FuzzAliasPath(f *testing.F) {
	for _, s := range []string{"/old-url", "old-name", "../old/path", "/x/index.html", "a/../../b/", "/old.html", "%2F"} {
		f.Add("examples/example-1.md", s)
	}
	f.Fuzz(func(t *testing.T, rel, alias string) {
		p, ok := AliasPath(rel, alias)
		if ok {
			checkSitePath(t, "AliasPath", alias, p)
		}
		q, qok := RedirectPath(alias)
		if qok {
			checkSitePath(t, "RedirectPath", alias, q)
		}
		if a := strings.TrimSpace(alias); strings.HasPrefix(a, "/") && (q != p || qok != ok) {
			t.Fatalf("RedirectPath(%q) = %q, %v; AliasPath = %q, %v", alias, q, qok, p, ok)
		}
	})
}

// checkSitePath holds p, what fn made of the front-matter value in, to
// the form SitePath gives a link's path.
func checkSitePath(t *testing.T, fn, in, p string) {
	t.Helper()
	if !strings.HasPrefix(p, "/") || p == "/" || strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/index.html") || strings.Contains(p, "//") {
		t.Fatalf("%s(%q) = %q", fn, in, p)
	}
	if strings.ContainsAny(p, "#?%") {
		return // a link writes these escaped
	}
	if got, ok := (Rules{}).SitePath(docir.LinkRef{Target: p + "/"}); !ok || got != p {
		t.Fatalf("SitePath(%q/) = %q, %v; want %s's %q", p, got, ok, fn, p)
	}
}
