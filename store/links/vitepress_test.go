package links

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// vitePressSlugCases are headings and the slugs @mdit-vue/shared's slugify
// (3.0.2) gives them: its own test cases (packages/shared/tests/
// slugify.spec.ts) first, then headings of the Vite docs and cases of
// each of its rules.
var vitePressSlugCases = []struct{ heading, slug string }{
	{"Привет", "привет"},
	{"Лед üäöß", "лед-uaoß"},
	{"hangul 가", "hangul-\u1100\u1161"}, // decomposed, as upstream writes it
	{"ع", "ع"},
	{"ǆℍΩ", "dzhω"},
	{"ｶi⁹", "カi9"},
	{"㌀", "\u30a2\u30cf\u309a\u30fc\u30c8"}, // アパート, decomposed
	{"¼", "_1⁄4"},
	{"ǆℍΩｶi⁹¼", "dzhωカi91⁄4"},
	{"Iлｔèｒｎåｔïｏｎɑｌíƶａｔï߀ԉ", "iлternationɑliƶati߀ԉ"},
	{"ᴎᴑᴅᴇȷʂ", "ᴎᴑᴅᴇȷʂ"},
	{"hambúrguer", "hamburguer"},
	{"hŒllœ", "hœllœ"},
	{"Fußball", "fußball"},
	{"ABCDEFGHIJKLMNOPQRSTUVWXYZé", "abcdefghijklmnopqrstuvwxyze"},
	{"1a", "_1a"},
	{"123456", "_123456"},
	// The Vite docs (headings as docir records them: code spans as their text).
	{"server.open", "server-open"},
	{"index.html and Project Root", "index-html-and-project-root"},
	{"build.chunkImportMap", "build-chunkimportmap"},
	{"Object Format (Record<string, string>)", "object-format-record-string-string"},
	{"Dev Containers / VS Code Port Forwarding", "dev-containers-vs-code-port-forwarding"},
	// Each rule.
	{"__init__", "init"},
	{"a_b", "a-b"},
	{"C++ & Go", "c-go"},
	{"What's new in 2.0?", "what-s-new-in-2-0"},
	{"“Quoted” ‘text’", "quoted-text"},
	{"a\tb\nc", "abc"},
	{"a -\u0301- b", "a-b"},
	{"  -x-  ", "x"},
	{"-1st", "_1st"},
	{"v1.2.3", "v1-2-3"},
	{"100%", "_100"},
	{"a\u00a0b\u2003c\u3000d", "a-b-c-d"},
	{"a\u2028b\ufeffc", "a-b-c"},
	{"emoji 🎉 party", "emoji-🎉-party"},
	{"日本語 見出し", "日本語-見出し"},
	{"ΟΔΟΣ ΟΔΟΣ.", "οδος-οδος"},
	{"ΣΑ", "σα"},
	{"Σ", "σ"},
	{"ΑΣ1", "ας1"},
	{"", ""},
	{"?!", ""},
}

func TestVitePressSlug(t *testing.T) {
	for _, c := range vitePressSlugCases {
		if got := VitePressSlug(c.heading); got != c.slug {
			t.Errorf("VitePressSlug(%q) = %q, want %q", c.heading, got, c.slug)
		}
	}
}

func TestVitePressAnchors(t *testing.T) {
	headings := []string{"Examples", "Examples", "Examples", "A", "A-1", "A", "", "?", "heading", "server.open", "Server Open"}
	want := []string{"examples", "examples-1", "examples-2", "a", "a-1", "a-2", "heading", "heading-1", "heading-2", "server-open", "server-open-1"}
	if got := VitePressAnchors(headings); !slices.Equal(got, want) {
		t.Errorf("VitePressAnchors:\n got %q\nwant %q", got, want)
	}
}

// vitePressSlugJS is @mdit-vue/shared's slugify (packages/shared/src/
// slugify.ts, 3.0.2) as JavaScript, run by node on a JSON list of headings.
const vitePressSlugJS = `const rControl = /[\u0000-\u001f]/g;
const rSpecial = /[\s~` + "`" + `!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g;
const rCombining = /[\u0300-\u036F]/g;
const slugify = (str) => str.normalize('NFKD').replace(rCombining, '').replace(rControl, '')
  .replace(rSpecial, '-').replace(/-{2,}/g, '-').replace(/^-+|-+$/g, '').replace(/^(\d)/, '_$1').toLowerCase();
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => { console.log(JSON.stringify(JSON.parse(input).map(slugify))); });`

// TestVitePressSlugAsJavaScript holds VitePressSlug to the slugify of
// @mdit-vue/shared run by node (its regular expressions and JavaScript's
// NFKD and toLowerCase) on the pinned cases and on headings of every kind
// its rules read; it skips where there is no node on the PATH.
func TestVitePressSlugAsJavaScript(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on the PATH; VitePressSlug is checked against its pinned cases only")
	}
	headings := []string{
		"Getting started", "getting-started", "Getting  started", "Getting - started", "tab\there",
		"ﬁ ligature", "Ⅻ roman", "x²", "Москва", "ΣΊΣΥΦΟΣ", "ὈΔΥΣΣΕΎΣ", "Σ.Σ", "aΣ\u0301b", "aΣ\u0301", "İstanbul",
		"ẞ", "ǅ", "K", "Å", "a\x1cb", "a\x7fb", "a\u0085b", "a\u180eb", "a\u200bb", "a\u00adb", "[x](y)",
		"<Badge/>", "{#id}", "0", "٣ arabic digit", "_", "-", "a--b", "a_-_b", "$&", "\\", "\ufffd",
		"\U0001F600 smile", "ｗｉｄｅ　ｓｐａｃｅ",
	}
	for _, c := range vitePressSlugCases {
		headings = append(headings, c.heading)
	}
	want := runOracle(t, exec.Command(node, "-e", vitePressSlugJS), headings)
	for i, h := range headings {
		if got := VitePressSlug(h); got != want[i] {
			t.Errorf("heading %q: slug %q, @mdit-vue/shared %q", h, got, want[i])
		}
	}
}

// FuzzVitePressAnchors: whatever the headings, no anchor is empty, none
// repeats, none holds a separator (but '-', and '_' first, before a
// digit), a control character or a combining diacritic, or starts or
// ends with '-' or starts with a digit; the slug
// of a slug is itself, for a heading without control characters
// (VitePress 2 slugifies a link's anchor and expects so); and a heading's anchor depends only on the headings before it.
func FuzzVitePressAnchors(f *testing.F) {
	for _, c := range vitePressSlugCases {
		f.Add(c.heading, "Examples")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		hs := []string{a, b, a, b + "-1", ""}
		got := VitePressAnchors(hs)
		seen := map[string]bool{}
		for i, id := range got {
			if id == "" || seen[id] || !utf8.ValidString(id) || strings.HasPrefix(id, "-") || strings.HasSuffix(id, "-") ||
				strings.Contains(id, "--") || id[0] >= '0' && id[0] <= '9' {
				t.Fatalf("anchor %d of %q: %q: %q", i, hs, id, got)
			}
			seen[id] = true
			for j, r := range id {
				if r != '-' && isVitePressSeparator(r) && (r != '_' || j > 0) || r <= 0x1f || r >= 0x300 && r <= 0x36f {
					t.Fatalf("anchor %q of %q holds %q", id, hs[i], r)
				}
			}
		}
		for _, h := range hs[:2] {
			// VitePress drops control characters after NFKD has ordered
			// the combining marks around them, so two marks a control
			// character kept apart may end adjacent and out of canonical
			// order, and a second NFKD reorders them ("0\u0615\x11\u0748"):
			// the slug of a slug is itself for a heading without them.
			if strings.ContainsFunc(h, func(r rune) bool { return r <= 0x1f }) {
				continue
			}
			if s := VitePressSlug(h); VitePressSlug(s) != s {
				t.Fatalf("slug of %q is %q, whose slug is %q", h, s, VitePressSlug(s))
			}
		}
		if first := VitePressAnchors(hs[:2]); !slices.Equal(first, got[:2]) {
			t.Fatalf("anchors of %q: %q alone, %q in a longer document", hs[:2], first, got[:2])
		}
	})
}
