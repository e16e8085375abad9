package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/render"
	"github.com/docir/docir/docir/wire"
)

// Tool names of the link graph and history reads.
const (
	ToolLinks   = "links"
	ToolCheck   = "check"
	ToolChanges = "changes"
)

// linkTools are the tools of the link graph (links, check) and of the
// store's history (changes).
func linkTools(corpus string) []tool {
	return []tool{
		{
			name: ToolLinks, title: "Links from and to a page", method: wire.MethodLinks, readOnly: true,
			description: "The links of documents or sections of " + corpus + ", both ways, by address (<id> or <id>#<heading>): " +
				"outgoing (each with where it leads: an address get accepts, an external URL, or broken with the reason " +
				"no_document or no_section) and incoming (the sections of the corpus that link here, with their lines). " +
				"Use it to follow a page's references, to see what else may need an edit when a section changes, or what " +
				"points at a page before renaming or removing it. No bodies: read them with get. doc_id answers {links: one set} " +
				"(a miss is an error), a page of it when its links pass the reply (next then reads the rest; limit pages it smaller); " +
				"doc_ids answers {links: [...], missing}, each set whole.",
			params: reflect.TypeFor[docir.LinksParams](),
			output: keyedOutput[docir.LinkResult, docir.LinksResult]("doc_id: {links: the set}; doc_ids: {links, missing}"),
			describe: map[string]string{
				"doc_id":  "one address; the reply is {links: its link set}",
				"doc_ids": fmt.Sprintf("several addresses (at most %d), as a JSON array of strings; the reply is {links, missing}", MaxToolAddresses),
				"limit":   pageDesc["limit"] + " (doc_id only: the outgoing links, then the incoming ones)",
				"cursor":  pageDesc["cursor"] + " (doc_id only)",
			},
		},
		{
			name: ToolCheck, title: "Broken links", method: wire.MethodCheck, readOnly: true,
			description: "Every broken internal link and anchor of " + corpus + " (links to no document, or to a heading the " +
				"document lacks), with the section and line that holds it and the file's path. Use it before and after editing " +
				"the docs. external: true lists the external URLs too; they are never fetched.",
			params: reflect.TypeFor[docir.CheckParams](),
			output: schemaFor[docir.CheckResult],
			describe: map[string]string{
				"external": "true to list the external links (URLs) too; never fetched",
				"limit":    pageDesc["limit"],
				"cursor":   pageDesc["cursor"],
			},
		},
		{
			name: ToolChanges, title: "What changed since a generation", method: wire.MethodChanges, readOnly: true,
			description: "What changed in " + corpus + " between two generations of the store: documents and sections added, " +
				"changed (their own text) and removed, as addresses. Use it after a refresh, or when status shows a newer " +
				"generation than the one your earlier reads came from: pass that generation (the generation field of a reply) " +
				"as since, or the binding receipt you read under as since_receipt; then read sections.changed, sections.added and " +
				"documents.added again with get, and drop what was removed. Both generations must still be retained.",
			params: reflect.TypeFor[docir.ChangesParams](),
			output: schemaFor[docir.ChangesResult],
			describe: map[string]string{
				"since":         "the generation your earlier reads came from (a number); give it or since_receipt",
				"since_receipt": "the binding receipt your earlier reads ran under (the receipt file's text); give it or since",
				"until":         "optional: the later generation (default: the current one)",
				"limit":         pageDesc["limit"],
				"cursor":        pageDesc["cursor"],
			},
		},
	}
}

// PageBytes bounds a page of check, changes or links over MCP: a third of the
// reply, since the reply carries the page twice, as structuredContent and
// as its text, and the text of an address list (quoted JSON in a string)
// can take twice the JSON's bytes.
const PageBytes = (wire.MaxReplyBytes - 16<<10) / 3

// pageDesc documents the paging params of check, changes and links.
var pageDesc = map[string]string{
	"limit":  fmt.Sprintf("optional: the most items this page lists, %d to %d (default: as many as fit the reply); next then names the rest", docir.MinLimit, docir.MaxPageLimit),
	"cursor": "optional: the next of the previous page, to read the page after it (give the other arguments as for the first page); it reads the generation(s) the first page read",
}

// writeNext says, in a text rendering, how to read the page after this one.
func writeNext(b *strings.Builder, tool, next string) {
	if next != "" {
		fmt.Fprintf(b, "More follow: call %s again with the same arguments and cursor %q.\n", tool, next)
	}
}

// linksText renders a links, check or changes result for an LLM.
func linksText(method string, result json.RawMessage) (string, error) {
	var b strings.Builder
	switch method {
	case wire.MethodLinks:
		var probe struct {
			Links json.RawMessage `json:"links"`
		}
		if err := json.Unmarshal(result, &probe); err != nil {
			return "", err
		}
		if len(probe.Links) > 0 && probe.Links[0] == '{' {
			var r docir.LinkResult
			if err := json.Unmarshal(result, &r); err != nil {
				return "", err
			}
			writeLinkSet(&b, &r.Links)
			writeNext(&b, ToolLinks, r.Links.Next)
			break
		}
		var r docir.LinksResult
		if err := json.Unmarshal(result, &r); err != nil {
			return "", err
		}
		for i := range r.Links {
			if i > 0 {
				b.WriteString("\n")
			}
			writeLinkSet(&b, &r.Links[i])
		}
		for _, m := range r.Missing {
			fmt.Fprintf(&b, "Not found: `%s`: %s\n", m.Address, m.Reason)
		}
		writeWarnings(&b, r.Warnings)
	case wire.MethodCheck:
		var r docir.CheckResult
		if err := json.Unmarshal(result, &r); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "Generation %d, %s: %d links resolve, %d broken, %d external, %d unchecked.\n",
			r.Generation, render.Counted(r.Documents, "document", "documents"), r.Counts.Resolved, r.Counts.Broken, r.Counts.External, r.Counts.Unchecked)
		for _, l := range r.Broken {
			fmt.Fprintf(&b, "- %s line %d (`%s`): `%s` is broken (%s)\n", l.Path, l.Line, l.From, l.Target, l.Reason+l.ResolvesWithText())
		}
		for _, l := range r.External {
			fmt.Fprintf(&b, "- %s line %d: %s\n", l.Path, l.Line, l.URL)
		}
		writeNext(&b, ToolCheck, r.Next)
	case wire.MethodChanges:
		var r docir.ChangesResult
		if err := json.Unmarshal(result, &r); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "From generation %d to %d:\n", r.Since, r.Until)
		for _, l := range []struct {
			what string
			list []string
		}{
			{"documents added", r.Documents.Added}, {"documents changed", r.Documents.Changed}, {"documents removed", r.Documents.Removed},
			{"sections added", r.Sections.Added}, {"sections changed", r.Sections.Changed}, {"sections removed", r.Sections.Removed},
		} {
			if len(l.list) > 0 {
				fmt.Fprintf(&b, "- %s: %s\n", l.what, mustJSON(l.list))
			}
		}
		if len(r.Documents.Added)+len(r.Documents.Changed)+len(r.Documents.Removed) == 0 && r.Next == "" && !sectionsIn(r) {
			b.WriteString("Nothing changed.\n")
		}
		writeNext(&b, ToolChanges, r.Next)
	}
	return b.String(), nil
}

// sectionsIn reports whether a changes page lists sections.
func sectionsIn(r docir.ChangesResult) bool {
	return len(r.Sections.Added)+len(r.Sections.Changed)+len(r.Sections.Removed) > 0
}

func writeLinkSet(b *strings.Builder, s *docir.LinkSet) {
	fmt.Fprintf(b, "Links of `%s` (%s, generation %d):\n", s.Address, s.Title, s.Generation)
	// A page of a set (a later one, or one that ends before the incoming
	// links) says what it holds, not what the set has.
	paged := s.Next != "" || len(s.Incoming) > 0
	switch {
	case len(s.Outgoing) == 0 && paged:
		b.WriteString("- no outgoing links on this page\n")
	case len(s.Outgoing) == 0:
		b.WriteString("- no outgoing links\n")
	}
	for _, l := range s.Outgoing {
		fmt.Fprintf(b, "- line %d `%s` -> ", l.Line, l.Target)
		switch l.Status {
		case docir.LinkResolved:
			fmt.Fprintf(b, "`%s`\n", l.Address)
		case docir.LinkExternal:
			fmt.Fprintf(b, "%s (external)\n", l.URL)
		default:
			fmt.Fprintf(b, "%s (%s)\n", l.Status, l.Reason+l.ResolvesWithText())
		}
	}
	switch {
	case len(s.Incoming) == 0 && s.Next != "":
		b.WriteString("- no incoming links on this page\n")
	case len(s.Incoming) == 0:
		b.WriteString("- nothing links here\n")
	}
	for _, l := range s.Incoming {
		fmt.Fprintf(b, "- linked from `%s` line %d (to `%s`)\n", l.From, l.Line, l.Address)
	}
}

// mustJSON is v as compact JSON (a list of addresses, a string): what the
// text renderings quote.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
