package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/readbatch"
)

// textOf renders a method's result as the markdown an LLM reads in the
// tool reply's text content: the document itself for get, a compact hit
// list for search, query and context. The JSON goes, once, in
// structuredContent; the text never repeats it.
func textOf(method string, result json.RawMessage) (string, error) {
	var b strings.Builder
	switch method {
	case wire.MethodGet:
		var probe struct {
			Documents json.RawMessage `json:"documents"`
		}
		if err := json.Unmarshal(result, &probe); err != nil {
			return "", err
		}
		if probe.Documents == nil {
			var d docir.Document
			if err := json.Unmarshal(result, &d); err != nil {
				return "", err
			}
			writeDocument(&b, &d)
			break
		}
		var r docir.GetResult
		if err := json.Unmarshal(result, &r); err != nil {
			return "", err
		}
		for i := range r.Documents {
			if i > 0 {
				b.WriteString("\n\n---\n\n")
			}
			writeDocument(&b, &r.Documents[i])
		}
		if len(r.Documents) == 0 && len(r.Missing) == 0 {
			b.WriteString("No addresses asked, none read.\n")
		}
		if len(r.Missing) > 0 {
			if len(r.Documents) > 0 {
				b.WriteString("\n\n---\n\n")
			}
			b.WriteString("Not found:\n")
			for _, m := range r.Missing {
				fmt.Fprintf(&b, "- `%s`: %s", m.Address, m.Reason)
				if len(m.Suggestions) > 0 {
					fmt.Fprintf(&b, " (did you mean `%s`?)", strings.Join(m.Suggestions, "`, `"))
				}
				b.WriteString("\n")
			}
		}
		writeWarnings(&b, r.Warnings)
	case wire.MethodSearch, wire.MethodQuery:
		var r docir.SearchResult
		if err := json.Unmarshal(result, &r); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%d of %d matches for `%s`", len(r.Hits), r.Total, r.Query)
		if len(r.Hits) > 0 {
			b.WriteString(" (read one with get and its address):\n")
		} else {
			b.WriteString(".\n")
		}
		for i, h := range r.Hits {
			writeHit(&b, i+1, &h)
			b.WriteString("\n")
		}
		writeStores(&b, r.Stores)
		writeWarnings(&b, r.Warnings)
	case wire.MethodContext:
		var r docir.ContextResult
		if err := json.Unmarshal(result, &r); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "Read next (about %d of %d tokens): get with doc_ids %s\n", r.Tokens, r.Budget, mustJSON(r.Addresses))
		if len(r.Hits) > 0 {
			fmt.Fprintf(&b, "\nRanked documents for `%s` (outlines with token counts in structuredContent):\n", r.Query)
		}
		for i := range r.Hits {
			h := &r.Hits[i]
			writeHit(&b, i+1, &h.Hit)
			fmt.Fprintf(&b, "; %d tokens, %d sections\n", h.Tokens, len(h.Outline))
		}
		writeStores(&b, r.Stores)
		writeWarnings(&b, r.Warnings)
	case wire.MethodStatus:
		var r docir.Status
		if err := json.Unmarshal(result, &r); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "Store %s: generation %d, %d documents, from", r.Store, r.Generation, r.Documents)
		for i, s := range r.Sources {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s", s.Path)
		}
		b.WriteString(".\n")
		for _, p := range r.Peers {
			fmt.Fprintf(&b, "- peer %s (%s %s): %s", p.Name, p.Kind, p.Location, p.Status)
			if p.Error != "" {
				fmt.Fprintf(&b, ": %s", p.Error)
			}
			b.WriteString("\n")
		}
	case wire.MethodRefresh:
		var r docir.IndexSummary
		if err := json.Unmarshal(result, &r); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "Generation %d, %d documents: %d added, %d changed, %d removed, %d unchanged.\n",
			r.Generation, r.Documents, r.Added, r.Changed, r.Removed, r.Unchanged)
		writeWarnings(&b, r.Warnings)
	case wire.MethodReadBatch:
		var r readbatch.Result
		if err := json.Unmarshal(result, &r); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%d answers, in request order, in structuredContent.responses.\n", len(r.Responses))
	case wire.MethodFields:
		var r docir.FieldsResult
		if err := json.Unmarshal(result, &r); err != nil {
			return "", err
		}
		if len(r.Fields) == 0 {
			fmt.Fprintf(&b, "None of the %d documents has front matter: query can filter on id, path, title and size only.\n", r.Documents)
			break
		}
		fmt.Fprintf(&b, "Front-matter fields of %d documents (field: documents that have it; common values):\n", r.Documents)
		for _, f := range r.Fields {
			fmt.Fprintf(&b, "- %s: %d;", f.Name, f.Documents)
			for i, v := range f.Values {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, " %s (%d)", v.Value, v.Documents)
			}
			if more := f.Distinct - len(f.Values); more > 0 {
				fmt.Fprintf(&b, " and %d more", more)
			}
			b.WriteString("\n")
		}
		if r.Truncated {
			fmt.Fprintf(&b, "(only the %d fields most documents have)\n", len(r.Fields))
		}
	case wire.MethodLinks, wire.MethodCheck, wire.MethodChanges:
		return linksText(method, result)
	default:
		return "", fmt.Errorf("no text rendering for %s", method)
	}
	return b.String(), nil
}

func writeDocument(b *strings.Builder, d *docir.Document) {
	fmt.Fprintf(b, "<!-- docir: %s | %s | %s | generation %d -->\n", d.Address, d.Title, d.Path, d.Generation)
	b.WriteString(d.Body)
}

func writeHit(b *strings.Builder, n int, h *docir.Hit) {
	fmt.Fprintf(b, "%d. `%s` %s (%s)", n, h.MatchedSection, h.Title, h.Path)
	if h.Store != "" && h.Store != docir.StoreLocal {
		fmt.Fprintf(b, " [%s]", h.Store)
	}
	if s := strings.Join(strings.Fields(h.Snippet), " "); s != "" {
		fmt.Fprintf(b, " — %s", s)
	}
}

func writeStores(b *strings.Builder, stores []docir.StoreStatus) {
	for _, s := range stores {
		if s.Status != "ok" {
			fmt.Fprintf(b, "Store %s: %s %s\n", s.Store, s.Status, s.Error)
		}
	}
}

func writeWarnings(b *strings.Builder, ws []string) {
	for _, w := range ws {
		fmt.Fprintf(b, "Warning: %s\n", w)
	}
}

func mustJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
