package links

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
)

func files(root string, rels ...string) []File {
	out := make([]File, len(rels))
	for i, r := range rels {
		out[i] = File{Root: root, Rel: r}
	}
	return out
}

// TestClassify is the table of link targets: what each names before the
// store is asked (the link is in /src/docs/guide/setup.md).
func TestClassify(t *testing.T) {
	const root, other = "/src/docs", "/src/api"
	r := Rules{Roots: []string{root, other}, Ignore: []string{"g", "https://internal.example/*"}}
	in := func(target string) docir.LinkRef { return docir.LinkRef{Target: target, Kind: docir.LinkInline} }
	ref := func(target string) docir.LinkRef { return docir.LinkRef{Target: target, Kind: docir.LinkHugoRef} }
	folder := func(root, dir string) []File {
		if dir == "" {
			return files(root, "index.md", "_index.md", "README.md")
		}
		return files(root, dir+"/index.md", dir+"/_index.md", dir+"/README.md")
	}
	tests := []struct {
		name string
		link docir.LinkRef
		want Target
	}{
		{"relative", in("ops.md"), Target{Files: files(root, "guide/ops.md")}},
		{"dot slash", in("./ops.md#Mitigate"), Target{Files: files(root, "guide/ops.md"), Anchor: "Mitigate"}},
		{"dot dot", in("../ops/disk.md#mitigate"), Target{Files: files(root, "ops/disk.md"), Anchor: "mitigate"}},
		{"into another source", in("../../api/x.md"), Target{Files: files(other, "x.md")}},
		{"out of every source", in("../../../README.md"), Target{Status: docir.LinkUnchecked, Reason: docir.ReasonOutsideSources}},
		{"local anchor", in("#step-2"), Target{Self: true, Anchor: "step-2"}},
		{"empty", in(""), Target{Self: true}},
		{"encoded space", in("my%20notes.md#caf%C3%A9"), Target{Files: files(root, "guide/my notes.md"), Anchor: "café"}},
		{"bad encoding kept", in("100%.md"), Target{Files: files(root, "guide/100%.md")}},
		{"query dropped", in("ops.md?x=1#a"), Target{Files: files(root, "guide/ops.md"), Anchor: "a"}},
		// Docsify writes a heading's anchor as ?id=.
		{"docsify id", in("ops.md?x=1&id=step%202"), Target{Files: files(root, "guide/ops.md"), Anchor: "step 2"}},
		{"an anchor before an id", in("ops.md?id=a#b"), Target{Files: files(root, "guide/ops.md"), Anchor: "b"}},
		{"case kept", in("Ops.MD"), Target{Files: append(files(root, "guide/Ops.MD.md"), folder(root, "guide/Ops.MD")...), NotMarkdown: true}},
		{"no extension", in("ops"), Target{Files: append(files(root, "guide/ops.md"), folder(root, "guide/ops")...)}},
		{"folder", in("../ops/"), Target{Files: append(files(root, "ops.md"), folder(root, "ops")...)}},
		{"html page", in("ops.html"), Target{Files: append(append(files(root, "guide/ops.md"), folder(root, "guide/ops")...), File{root, "guide/ops.html.md"})}},
		{"markdown page", in("ops.html.markdown"), Target{Files: files(root, "guide/ops.html.md"), NotMarkdown: true}},
		{"html index", in("ops/index.html"), Target{Files: folder(root, "guide/ops")}},
		{"dotted page name", in("go1.21"), Target{Files: append(files(root, "guide/go1.21.md"), folder(root, "guide/go1.21")...), NotMarkdown: true}},
		{"image", in("../img/a.png"), Target{NotMarkdown: true}},
		{"root relative", in("/functions/urls/ref/"), Target{Files: append(
			append(files(root, "functions/urls/ref.md"), folder(root, "functions/urls/ref")...),
			append(files(other, "functions/urls/ref.md"), folder(other, "functions/urls/ref")...)...)}},
		{"root", in("/"), Target{Files: append(folder(root, ""), folder(other, "")...)}},
		{"https", in("https://example.com/a#b"), Target{Status: docir.LinkExternal, URL: "https://example.com/a#b"}},
		{"mailto", in("mailto:ops@example.com"), Target{Status: docir.LinkExternal, URL: "mailto:ops@example.com"}},
		// A colon that may open a scheme or be part of a page's name: a
		// page where one is, else a URL (the resolver reads OrURL).
		{"colon in a page name", in("Basics:-Paths#mounts"), Target{Files: append(files(root, "guide/Basics:-Paths.md"), folder(root, "guide/Basics:-Paths")...), Anchor: "mounts", OrURL: "Basics:-Paths#mounts"}},
		{"an app's scheme", in("vscode:extension/ms-python.python"), Target{Files: append(files(root, "guide/vscode:extension/ms-python.python.md"), folder(root, "guide/vscode:extension/ms-python.python")...), OrURL: "vscode:extension/ms-python.python"}},
		{"a known scheme", in("tel:+1-555"), Target{Status: docir.LinkExternal, URL: "tel:+1-555"}},
		{"a scheme and //", in("ftp://x/y.md"), Target{Status: docir.LinkExternal, URL: "ftp://x/y.md"}},
		{"protocol relative", in("//cdn.example.com/x"), Target{Status: docir.LinkExternal, URL: "//cdn.example.com/x"}},
		{"drive letter is a path", in("C:/x.md"), Target{Files: files(root, "guide/C:/x.md")}},
		// Zola's internal link: a file path from the content folder.
		{"zola internal link", in("@/documentation/getting-started/overview.md#get%5Fpage"), Target{Files: append(files(root, "documentation/getting-started/overview.md"), files(other, "documentation/getting-started/overview.md")...), Anchor: "get_page"}},
		{"zola section", in("@/blog/_index.md"), Target{Files: append(files(root, "blog/_index.md"), files(other, "blog/_index.md")...)}},
		{"template", in("{{% eturl x %}}"), Target{Status: docir.LinkUnchecked, Reason: docir.ReasonTemplate}},
		{"ignored", in("g"), Target{Status: docir.LinkUnchecked, Reason: docir.ReasonIgnored}},
		{"ignored URL", in("https://internal.example/a/b"), Target{Status: docir.LinkUnchecked, Reason: docir.ReasonIgnored}},
		// A ref's x.md is also the bundle x/_index.md or x/index.md
		// (Hugo's page path), and a name alone the one page of that name.
		{"hugo ref absolute", ref("/ops/disk.md#mitigate"), Target{Files: append(append(files(root, "ops/disk.md"), files(other, "ops/disk.md")...),
			append(files(root, "ops/disk/_index.md", "ops/disk/index.md"), files(other, "ops/disk/_index.md", "ops/disk/index.md")...)...), Anchor: "mitigate"}},
		{"hugo ref relative, then below each source", ref("disk"), Target{Files: append(append(
			append(files(root, "guide/disk.md"), folder(root, "guide/disk")...),
			append(files(root, "disk.md"), folder(root, "disk")...)...),
			append(files(other, "disk.md"), folder(other, "disk")...)...), PageName: "disk.md"}},
		{"hugo relref anchor", docir.LinkRef{Target: "#usage", Kind: docir.LinkHugoRelRef}, Target{Self: true, Anchor: "usage"}},
		// A label its file does not define leads nowhere, whatever file
		// it spells.
		{"undefined reference", docir.LinkRef{Target: "ops/disk.md", Kind: docir.LinkReference, Undefined: true}, Target{Status: docir.LinkBroken, Reason: docir.ReasonNoDefinition}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Classify(root, "guide/setup.md", tt.link)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.link.Target, diff)
			}
		})
	}
}

// TestHugoLeafBundle: a leaf bundle's page (x/index.md) reads a ref from
// its bundle's level, as Hugo does, unless the ref climbs ("..") itself;
// a branch bundle's page (_index.md) and any other page from its own
// folder.
func TestHugoLeafBundle(t *testing.T) {
	root := "/c"
	r := Rules{Roots: []string{root}}
	ref := func(rel, target string) []File {
		return r.Classify(root, rel, docir.LinkRef{Target: target, Kind: docir.LinkHugoRelRef}).Files
	}
	for _, tt := range []struct {
		name, rel, target, first string
	}{
		{"a leaf bundle's sibling", "sec/a/index.md", "./b/", "sec/b.md"},
		{"a leaf bundle's sibling by name", "sec/a/index.md", "b", "sec/b.md"},
		{"a leaf bundle climbing", "sec/a/index.md", "../b", "sec/b.md"},
		{"a branch bundle's own folder", "sec/_index.md", "b", "sec/b.md"},
		{"a page's own folder", "sec/a.md", "b", "sec/b.md"},
		{"a leaf bundle's translation", "sec/a/index.fr.md", "./b/", "sec/b.md"},
	} {
		if got := ref(tt.rel, tt.target); len(got) == 0 || got[0].Rel != tt.first {
			t.Errorf("%s: %s from %s: first candidate %v, want %s", tt.name, tt.target, tt.rel, got, tt.first)
		}
	}
}

// TestRootFallback: a relative path is tried below each source folder
// too, after the linking file's folder, and as Hugo's GetPage reads a page
// path: x.md is also the bundle whose page is x/_index.md or x/index.md.
func TestRootFallback(t *testing.T) {
	r := Rules{Roots: []string{"/c"}, RootFallback: true}
	got := r.Classify("/c", "guide/a.md", docir.LinkRef{Target: "ops/x.md#a", Kind: docir.LinkInline})
	want := Target{Files: files("/c", "guide/ops/x.md", "ops/x.md", "guide/ops/x/_index.md", "guide/ops/x/index.md", "ops/x/_index.md", "ops/x/index.md"), Anchor: "a"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestRootFallbackPageRelative: a path that opens with "./" or "../" is
// read from the linking file's folder alone, with root_fallback on too,
// as Hugo's GetPage reads it ("Page relative, no need to look further"):
// prometheus's `./../` from documentation/examples/kubernetes-rabbitmq/
// README.md, a folder with no page, was the root's README.md.
func TestRootFallbackPageRelative(t *testing.T) {
	r := Rules{Roots: []string{"/c"}, RootFallback: true}
	for _, tt := range []struct {
		target string
		want   []File
		below  string // the folder every candidate of a relref lies in
	}{
		{"./../", files("/c", "examples.md", "examples/index.md", "examples/_index.md", "examples/README.md"), "examples"},
		{"../x.md", files("/c", "examples/x.md", "examples/x/_index.md", "examples/x/index.md"), "examples/"},
		{"./y.md", files("/c", "examples/k/y.md", "examples/k/y/_index.md", "examples/k/y/index.md"), "examples/k/"},
		{"../../z/", files("/c", "z.md", "z/index.md", "z/_index.md", "z/README.md"), "z"},
	} {
		got := r.Classify("/c", "examples/k/README.md", docir.LinkRef{Target: tt.target, Kind: docir.LinkInline})
		if diff := cmp.Diff(Target{Files: tt.want}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.target, diff)
		}
		ref := r.Classify("/c", "examples/k/README.md", docir.LinkRef{Target: tt.target, Kind: docir.LinkHugoRelRef})
		for _, f := range ref.Files {
			if !strings.HasPrefix(f.Rel, tt.below) {
				t.Errorf("relref %s: candidate %v is not page-relative", tt.target, f)
			}
		}
	}
}

// TestReadmeFirst: in a plain repository a folder is its README.md
// first, as GitHub shows it; in a site, its index.md, then _index.md.
func TestReadmeFirst(t *testing.T) {
	for readme, want := range map[bool][]File{
		false: files("/c", "ops.md", "ops/index.md", "ops/_index.md", "ops/README.md"),
		true:  files("/c", "ops.md", "ops/README.md", "ops/index.md", "ops/_index.md"),
	} {
		r := Rules{Roots: []string{"/c"}, ReadmeFirst: readme}
		for _, target := range []string{"ops/", "/ops", "ops"} {
			got := r.Classify("/c", "a.md", docir.LinkRef{Target: target, Kind: docir.LinkInline}).Files
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ReadmeFirst %v, %s (-want +got):\n%s", readme, target, diff)
			}
		}
	}
}

// TestDirectoryURLs: with DirectoryURLs, a relative path that is no
// markdown file path is read from the page's own URL folder (the file's
// path without .md; a bundle's page's folder), one written as a file
// from the file's folder as before: each target classifies as it does
// without the rule from a file in the folder it is read from (as).
func TestDirectoryURLs(t *testing.T) {
	on, off := Rules{Roots: []string{"/c"}, DirectoryURLs: true}, Rules{Roots: []string{"/c"}}
	tests := []struct {
		rel, target, as string
	}{
		{"fr/best-practices.md", "../building-community/#partager", "fr/best-practices/x.md"},
		{"fr/best-practices.md", "../building-community", "fr/best-practices/x.md"},
		{"fr/best-practices.md", "sub/", "fr/best-practices/x.md"},
		{"fr/best-practices.md", "../x.html", "fr/best-practices/x.md"},
		{"fr/best-practices.md", "../building-community.md#a", "fr/x.md"},
		{"fr/best-practices.md", "../x.mdx", "fr/x.md"},
		{"fr/index.md", "../building-community/", "fr/x.md"},
		{"fr/_index.md", "x/", "fr/x.md"},
		{"fr/README.md", "x/", "fr/x.md"},
		{"a.md", "../../x/", "a/x.md"},
		{"a.md", "#top", "a.md"},
	}
	for _, tt := range tests {
		l := docir.LinkRef{Target: tt.target, Kind: docir.LinkInline}
		if diff := cmp.Diff(off.Classify("/c", tt.as, l), on.Classify("/c", tt.rel, l)); diff != "" {
			t.Errorf("%s: %q (-as %s +got):\n%s", tt.rel, tt.target, tt.as, diff)
		}
	}
	l := docir.LinkRef{Target: "../building-community/", Kind: docir.LinkInline}
	if got := on.Classify("/c", "fr/best-practices.md", l); got.Files[0] != (File{"/c", "fr/building-community.md"}) {
		t.Errorf("on: %+v, want fr/building-community.md first", got.Files)
	}
	if got := off.Classify("/c", "fr/best-practices.md", l); got.Files[0] != (File{"/c", "building-community.md"}) {
		t.Errorf("off: %+v, want building-community.md first", got.Files)
	}
}

// TestBase: root-relative links below a configured site base.
func TestBase(t *testing.T) {
	r := Rules{Roots: []string{"/c"}, Base: "docs"}
	got := r.Classify("/c", "a.md", docir.LinkRef{Target: "/docs/x.md", Kind: docir.LinkInline})
	if diff := cmp.Diff(Target{Files: files("/c", "x.md")}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got = r.Classify("/c", "a.md", docir.LinkRef{Target: "/blog/x.md", Kind: docir.LinkInline})
	if diff := cmp.Diff(Target{Status: docir.LinkUnchecked, Reason: docir.ReasonOutsideBase}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if b := (Rules{Base: "/docs"}).Normalize().Base; b != "/docs/" {
		t.Errorf("Normalize: %q", b)
	}
}

// TestRootIndexHTML: a link to the root's index.html, root-relative or
// relative, names the root's index.md (it named ./index.md, no file: 99
// of the broken links of the Terraform AWS provider's docs).
func TestRootIndexHTML(t *testing.T) {
	r := Rules{Roots: []string{"/c"}}
	want := files("/c", "index.md", "_index.md", "README.md")
	for _, l := range []struct{ rel, target string }{{"r/a.md", "/index.html"}, {"r/a.md", "../index.html#x"}, {"a.md", "index.html"}} {
		got := r.Classify("/c", l.rel, docir.LinkRef{Target: l.target, Kind: docir.LinkInline})
		if diff := cmp.Diff(want, got.Files); diff != "" {
			t.Errorf("%s in %s (-want +got):\n%s", l.target, l.rel, diff)
		}
	}
}

// TestSite: a link to a URL below one of the site's URLs is the
// root-relative link of the path after it, below the base like any; the
// scheme and host in any case, http and https alike; any other URL is
// external.
func TestSite(t *testing.T) {
	r := Rules{Roots: []string{"/c"}, Base: "/design/", Site: []string{"https://golang.org/", "https://github.com/golang/proposal/blob/master"}}
	link := func(target string) Target {
		return r.Classify("/c", "a.md", docir.LinkRef{Target: target, Kind: docir.LinkInline})
	}
	for target, want := range map[string]Target{
		"https://golang.org/design/x":                                 {Files: files("/c", "x.md", "x/index.md", "x/_index.md", "x/README.md")},
		"HTTP://GoLang.org/design/x#rationale":                        {Files: files("/c", "x.md", "x/index.md", "x/_index.md", "x/README.md"), Anchor: "rationale"},
		"https://github.com/golang/proposal/blob/master/design/x.md":  {Files: []File{{"/c", "x.md"}}},
		"https://golang.org/ref/spec":                                 {Status: docir.LinkUnchecked, Reason: docir.ReasonOutsideBase},
		"https://github.com/golang/proposal/blob/masterx/design/x.md": {Status: docir.LinkExternal, URL: "https://github.com/golang/proposal/blob/masterx/design/x.md"},
		"https://go.dev/design/x":                                     {Status: docir.LinkExternal, URL: "https://go.dev/design/x"},
		"//golang.org/design/x#a":                                     {Files: files("/c", "x.md", "x/index.md", "x/_index.md", "x/README.md"), Anchor: "a"},
		"https://someone@golang.org:443/design/x.md":                  {Files: []File{{"/c", "x.md"}}},
		"https://golang.org:8080/design/x.md":                         {Status: docir.LinkExternal, URL: "https://golang.org:8080/design/x.md"},
		"https://github.com/golang/proposal/blob/master#readme":       {Status: docir.LinkUnchecked, Reason: docir.ReasonOutsideBase},
		"https://golang.org.evil.com/design/x.md":                     {Status: docir.LinkExternal, URL: "https://golang.org.evil.com/design/x.md"},
		"ftp://golang.org/design/x":                                   {Status: docir.LinkExternal, URL: "ftp://golang.org/design/x"},
	} {
		if diff := cmp.Diff(want, link(target)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", target, diff)
		}
	}
	for u, want := range map[string]bool{"https://golang.org/": true, "http://x": true, "https://": false, "ftp://x/": false, "golang.org/": false, "https://x/a b": false, "https://x/#a": false, "https://@/": false, "http://x\\y": false, "https://u@x/": false, "https://x/?q=1": false, "HTTPS://X:8443/docs": true} {
		if got := SiteURL(u); got != want {
			t.Errorf("SiteURL(%q) = %v, want %v", u, got, want)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		p, s string
		want bool
	}{
		{"g", "g", true}, {"g", "gg", false}, {"*", "", true}, {"a*", "a/b/c", true},
		{"*.png", "x/y.png", true}, {"?.md", "ab.md", false}, {"a*b*c", "aXbYbZc", true}, {"a*b", "ac", false},
	}
	for _, tt := range tests {
		if got := Match(tt.p, tt.s); got != tt.want {
			t.Errorf("Match(%q, %q) = %v", tt.p, tt.s, got)
		}
	}
}

// FuzzClassify: any target classifies without panic, and every candidate
// is a clean path below one of the source folders.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"a.md", "../../x", "/a/b/", "#x", "%zz", "https://x", "{{% x %}}", "a/../../..", "/"} {
		f.Add(s, false)
	}
	r := Rules{Roots: []string{"/src/docs", "/src/api"}, Base: "/docs/", Ignore: []string{"*.tmp"}}
	f.Fuzz(func(t *testing.T, target string, hugo bool) {
		kind := docir.LinkInline
		if hugo {
			kind = docir.LinkHugoRef
		}
		got := r.Classify("/src/docs", "guide/a.md", docir.LinkRef{Target: target, Kind: kind})
		for _, c := range got.Files {
			if c.Root != "/src/docs" && c.Root != "/src/api" {
				t.Fatalf("%q: candidate in %q", target, c.Root)
			}
			if c.Rel == "" || c.Rel[0] == '/' || c.Rel == ".." || len(c.Rel) > 2 && c.Rel[:3] == "../" {
				t.Fatalf("%q: candidate %q not below its root", target, c.Rel)
			}
		}
	})
}

// TestRootRelativePrefix: a root-relative path that starts with a
// source's prefix also names what follows it below that source, after the
// path below each source folder: a site that serves its manuals folder
// (a source prefixed manuals) at / writes /engine/install/ for its pages
// and /manuals/engine/install.md for the same content path.
func TestRootRelativePrefix(t *testing.T) {
	r := Rules{Roots: []string{"/c", "/c/manuals"}, Prefixes: []string{"", "manuals"}}
	link := func(target string) docir.LinkRef { return docir.LinkRef{Target: target, Kind: docir.LinkInline} }
	got := r.Classify("/c", "guide/a.md", link("/manuals/engine/x.md#a"))
	want := Target{Files: files("/c", "manuals/engine/x.md"), Anchor: "a"}
	want.Files = append(want.Files, files("/c/manuals", "manuals/engine/x.md", "engine/x.md")...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got = r.Classify("/c", "guide/a.md", link("/engine/x.md"))
	if diff := cmp.Diff(Target{Files: append(files("/c", "engine/x.md"), files("/c/manuals", "engine/x.md")...)}, got); diff != "" {
		t.Errorf("a path the prefix does not begin (-want +got):\n%s", diff)
	}
	got = r.Classify("/c", "guide/a.md", link("/manualsx/y.md"))
	if diff := cmp.Diff(Target{Files: append(files("/c", "manualsx/y.md"), files("/c/manuals", "manualsx/y.md")...)}, got); diff != "" {
		t.Errorf("a prefix is a whole segment (-want +got):\n%s", diff)
	}
}

func TestLiquidPath(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"{% link _docs/x.md %}", "/_docs/x.md", true},
		{"{%- link /_docs/x.md -%}#a", "/_docs/x.md#a", true},
		{"{{ '/docs/x/' | relative_url }}", "/docs/x/", true},
		{`{{ "docs/x/" | absolute_url }}#y`, "/docs/x/#y", true},
		{"{{site.baseurl}}/docs/x/", "/docs/x/", true},
		{"{{ site.baseurl }}", "", false},
		{"{{ site.repository }}/issues", "", false},
		{"{% include x.html %}", "", false},
		{"{{ page.url | relative_url }}", "", false},
		{"{{ 'x' | relative_url", "", false},
		{"/plain/", "", false},
	} {
		got, ok := LiquidPath(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("LiquidPath(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
