package passage

import (
	"testing"

	"github.com/docir/docir/docir"
)

func TestTableOfContents(t *testing.T) {
	for _, tt := range []struct {
		name, path, md string
		want           bool
	}{
		{"mdBook", "src/SUMMARY.md", "# Summary\n\n[Intro](README.md)\n\n# Part\n\n- [A](a.md)\n    - [B](b/b.md)\n- [Draft]()\n\n---\n\n[Outro](outro.md)\n", true},
		{"GitBook", "SUMMARY.md", "# Table of contents\n\n* [Welcome](README.md)\n\n## Guides\n\n* [Setup](guides/setup.md)\n  * [Deep](guides/deep/README.md)\n1. [One](one.md)\n<!-- hidden -->\n", true},
		{"prose", "SUMMARY.md", "# Summary\n\nWe shipped [it](x.md).\n", false},
		{"two links on a line", "SUMMARY.md", "- [A](a.md) and [B](b.md)\n", false},
		{"headings only", "SUMMARY.md", "# Summary\n", false},
		{"another name", "TOC.md", "- [A](a.md)\n", false},
		{"lower case", "summary.md", "- [A](a.md)\n", false},
		{"Docsify sidebar, group labels and all", "docs/_sidebar.md", "<!-- x -->\n\n- Getting started\n\n  - [Quick start](quickstart.md)\n", true},
		{"Docsify navbar", "_navbar.md", "- Translations\n  - [English](/)\n", true},
		{"GitHub wiki footer", "wiki/_Footer.md", "Made by the docs team.\n", true},
		{"Docsify cover page is a page", "_coverpage.md", "# docsify\n\n> A magical documentation site generator.\n", false},
		{"front matter skipped", "SUMMARY.md", "---\ntitle: x\n---\n- [A](a.md)\n", true},
	} {
		rec := &docir.Record{Path: tt.path}
		if tt.name == "front matter skipped" {
			rec.MarkdownStart = len("---\ntitle: x\n---\n")
		}
		if got := TableOfContents(rec, []byte(tt.md)); got != tt.want {
			t.Errorf("%s: TableOfContents = %v, want %v", tt.name, got, tt.want)
		}
		if tt.want && len(Passages(rec, []byte(tt.md))) != 0 {
			t.Errorf("%s: a table of contents has passages", tt.name)
		}
	}
}
