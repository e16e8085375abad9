package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/render"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/readbatch"
	"github.com/docir/docir/workspace/rank"
)

// textOf renders a method's result as the markdown an LLM reads in the
// tool reply's text content: the document itself for get (as package
// render writes it for the CLI too), a compact hit list for search and
// query, the plan for context. The JSON goes, once, in
// structuredContent; the text never repeats it.
func textOf(method string, result json.RawMessage) (string, error) {
	var write func(*strings.Builder, json.RawMessage) error
	switch method {
	case wire.MethodGet:
		write = getText
	case wire.MethodSearch:
		write = hitsText(func(n, total int) string {
			return render.Counted(n, "document", "documents") + "; " + render.Counted(total, "section holds", "sections hold") + " the query's words"
		})
	case wire.MethodQuery:
		write = hitsText(func(n, total int) string {
			return fmt.Sprintf("%d of %s", n, render.Counted(total, "matching document", "matching documents"))
		})
	case wire.MethodContext:
		write = viaResult(func(b *strings.Builder, r *docir.ContextResult) {
			writePlan(b, r)
			writeStores(b, r.Stores)
			writeWarnings(b, r.Warnings)
		})
	case wire.MethodStatus:
		write = viaResult(statusText)
	case wire.MethodRefresh:
		write = viaResult(func(b *strings.Builder, r *docir.IndexSummary) {
			fmt.Fprintf(b, "Generation %d, %s: %d added, %d changed, %d removed, %d unchanged.\n",
				r.Generation, render.Counted(r.Documents, "document", "documents"), r.Added, r.Changed, r.Removed, r.Unchanged)
			writeWarnings(b, r.Warnings)
		})
	case wire.MethodFields:
		write = viaResult(fieldsText)
	case wire.MethodLinks, wire.MethodCheck, wire.MethodChanges:
		return linksText(method, result)
	default:
		return "", fmt.Errorf("no text rendering for %s", method)
	}
	var b strings.Builder
	if err := write(&b, result); err != nil {
		return "", err
	}
	return b.String(), nil
}

// batchText renders a read_batch result: each answer as the tool of its
// method renders it alone (a get's documents, a search's hits, …), under a
// heading naming its frame's method, or its error as a tool error says it.
// A host that shows a model only the text content shows it every answer.
// The text must fit in room bytes as the SDK encodes it (what the reply
// bound leaves beside structuredContent): while it does not, the largest
// answer still written out is replaced by a line that points at its place
// in structuredContent.responses.
func batchText(args, result json.RawMessage, room int) (string, error) {
	var r readbatch.Result
	if err := json.Unmarshal(result, &r); err != nil {
		return "", err
	}
	var p readBatchParams
	_ = json.Unmarshal(args, &p) // the engine ran them: they decode
	heads := make([]string, len(r.Responses))
	answers := make([]string, len(r.Responses))
	for i, line := range r.Responses {
		var f struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if i < len(p.Batch.Frames) {
			_ = json.Unmarshal([]byte(p.Batch.Frames[i]), &f)
		}
		id := ""
		if f.ID != nil {
			id = ", id " + string(f.ID)
		}
		heads[i] = fmt.Sprintf("<!-- answer %d of %d: %s%s -->\n", i+1, len(r.Responses), f.Method, id)
		answers[i] = heads[i] + answerText(f.Method, line)
	}
	for {
		text := fmt.Sprintf("%d answers, in request order (each also in structuredContent.responses):\n", len(answers)) +
			strings.Join(answers, "\n---\n\n")
		if encodedLen(text) <= room || len(answers) == 0 {
			return text, nil
		}
		big := 0
		for i := range answers {
			if len(answers[i]) > len(answers[big]) {
				big = i
			}
		}
		short := heads[big] + fmt.Sprintf("(%d bytes: too large to repeat here beside the JSON; structuredContent.responses[%d] holds it)\n", len(answers[big]), big)
		if len(short) >= len(answers[big]) {
			return text, nil // nothing is left to shorten: the reply is too large
		}
		answers[big] = short
	}
}

// answerText renders one reply line of a read batch to a frame calling
// method: its result as that method's tool text, its error as a tool
// error's text; a result with no rendering is its JSON.
func answerText(method string, line *string) string {
	if line == nil {
		return "(a notification: no answer)\n"
	}
	var reply struct {
		Result json.RawMessage `json:"result"`
		Error  *wire.Error     `json:"error"`
	}
	if err := json.Unmarshal([]byte(*line), &reply); err != nil {
		return *line
	}
	if reply.Error != nil {
		return "Error: " + toolErrorText(reply.Error) + "\n"
	}
	if text, err := textOf(method, reply.Result); err == nil {
		return text
	}
	return "```json\n" + string(reply.Result) + "\n```\n"
}

// toolErrorText is how a tool error's text says werr: its message, code and
// number.
func toolErrorText(werr *wire.Error) string {
	return fmt.Sprintf("%s (%s, JSON-RPC %d)", werr.Message, werr.StableCode(), werr.Code)
}

// viaResult is a text writer of a result decoded as a T.
func viaResult[T any](write func(*strings.Builder, *T)) func(*strings.Builder, json.RawMessage) error {
	return func(b *strings.Builder, result json.RawMessage) error {
		var r T
		if err := json.Unmarshal(result, &r); err != nil {
			return err
		}
		write(b, &r)
		return nil
	}
}

// getText writes a get's documents: one document, or a batch with its
// misses and warnings.
func getText(b *strings.Builder, result json.RawMessage) error {
	var probe struct {
		Documents json.RawMessage `json:"documents"`
	}
	if err := json.Unmarshal(result, &probe); err != nil {
		return err
	}
	if probe.Documents == nil {
		var d docir.Document
		if err := json.Unmarshal(result, &d); err != nil {
			return err
		}
		return render.Document(b, &d)
	}
	var r docir.GetResult
	if err := json.Unmarshal(result, &r); err != nil {
		return err
	}
	if err := render.Get(b, &r); err != nil {
		return err
	}
	writeWarnings(b, r.Warnings)
	return nil
}

// hitsText writes search's or query's hits, a line each, after head: how
// many, and what total counts (search's: the sections that hold a query
// word, more than the documents a search can return; query's: the
// documents that match).
func hitsText(head func(n, total int) string) func(b *strings.Builder, result json.RawMessage) error {
	return func(b *strings.Builder, result json.RawMessage) error {
		var r docir.SearchResult
		if err := json.Unmarshal(result, &r); err != nil {
			return err
		}
		return writeHits(b, &r, head)
	}
}

func writeHits(b *strings.Builder, r *docir.SearchResult, head func(n, total int) string) error {
	b.WriteString(head(len(r.Hits), r.Total))
	if len(r.Hits) > 0 {
		b.WriteString("; get reads one by its address:\n")
	} else {
		b.WriteString(".\n")
	}
	for i, h := range r.Hits {
		writeHit(b, i+1, &h, r.Query)
		b.WriteString("\n")
	}
	writeStores(b, r.Stores)
	writeWarnings(b, r.Warnings)
	return nil
}

// statusText writes the store's status and its peers'.
func statusText(b *strings.Builder, r *docir.Status) {
	fmt.Fprintf(b, "Store %s: generation %d, %s, from", r.Store, r.Generation, render.Counted(r.Documents, "document", "documents"))
	for i, s := range r.Sources {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(b, " %s", s.Path)
		if s.Prefix != "" {
			fmt.Fprintf(b, " (prefix %s)", s.Prefix)
		}
		if s.FrontMatterID != "" {
			fmt.Fprintf(b, " (front_matter_id %s)", s.FrontMatterID)
		}
	}
	b.WriteString(".\n")
	for _, p := range r.Peers {
		fmt.Fprintf(b, "- peer %s (%s %s): %s", p.Name, p.Kind, p.Location, p.Status)
		if p.Error != "" {
			fmt.Fprintf(b, ": %s", p.Error)
		}
		b.WriteString("\n")
	}
}

// fieldsText writes the front-matter fields, each with its commonest
// values.
func fieldsText(b *strings.Builder, r *docir.FieldsResult) {
	if len(r.Fields) == 0 {
		fmt.Fprintf(b, "None of the %d documents has front matter: query can filter on id, path, title and size only.\n", r.Documents)
		return
	}
	fmt.Fprintf(b, "Front-matter fields of %s (field: documents that have it; common values):\n", render.Counted(r.Documents, "document", "documents"))
	for _, f := range r.Fields {
		fmt.Fprintf(b, "- %s: %d;", f.Name, f.Documents)
		for i, v := range f.Values {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(b, " %s (%d)", v.Value, v.Documents)
		}
		if more := f.Distinct - len(f.Values); more > 0 {
			fmt.Fprintf(b, " and %d more", more)
		}
		b.WriteString("\n")
	}
	if r.Truncated {
		fmt.Fprintf(b, "(only the %d fields most documents have)\n", len(r.Fields))
	}
}

// TextSnippetMax bounds a hit's snippet in the text: its densest part
// around the query's words (the whole snippet is in structuredContent).
const TextSnippetMax = 120

// writeHit writes one hit as a line: its address and title; its path only
// when the id does not say it; its store when not local; its snippet
// cut to TextSnippetMax around the query's words; and how many pages its
// also lists (docir.Hit.Also).
func writeHit(b *strings.Builder, n int, h *docir.Hit, query string) {
	fmt.Fprintf(b, "%d. `%s` %s", n, h.MatchedSection, h.Title)
	if !render.PathOfID(h.ID, h.Path) {
		fmt.Fprintf(b, " (%s)", h.Path)
	}
	if h.Store != "" && h.Store != docir.StoreLocal {
		fmt.Fprintf(b, " [%s]", h.Store)
	}
	if s := rank.Snippet(h.Snippet, query, TextSnippetMax); s != "" {
		fmt.Fprintf(b, " — %s", s)
	}
	if len(h.Also) > 0 {
		fmt.Fprintf(b, " (the same text in %d other pages: also, in structuredContent)", len(h.Also))
	}
}

// writePlan writes a context reply as the plan to follow: the addresses to
// get, best first, then the outline of each document the plan reads from,
// its planned sections marked, so that an agent can take a nearby section
// the plan left out. Each size is said once: a planned section's tokens in
// its outline, a whole document's on its plan line. The hits are not
// repeated (search gives them; structuredContent holds them).
func writePlan(b *strings.Builder, r *docir.ContextResult) {
	if len(r.Addresses) == 0 {
		fmt.Fprintf(b, "Nothing to read for `%s` within %d tokens.\n", r.Query, r.Budget)
		return
	}
	tokens := r.AddressTokens()
	planned := map[string]bool{}
	for _, a := range r.Addresses {
		planned[a] = true
	}
	// The outlines written, and the addresses whose tokens they say.
	var outlines []*docir.ContextHit
	inOutline := map[string]bool{}
	for i := range r.Hits {
		h := &r.Hits[i]
		if len(h.Outline) == 0 || planned[h.ID] {
			continue // not planned, or read whole: its outline says nothing more
		}
		outlines = append(outlines, h)
		for _, o := range h.Outline {
			inOutline[o.Address] = true
		}
	}
	fmt.Fprintf(b, "Plan: get these in order and stop once answered (%d of %d tokens):\n", r.Tokens, r.Budget)
	for i, a := range r.Addresses {
		fmt.Fprintf(b, "%d. `%s`", i+1, a)
		n, known := tokens[a]
		switch {
		case !strings.Contains(a, "#") && known:
			fmt.Fprintf(b, " whole, %d tokens", n)
		case !strings.Contains(a, "#"):
			b.WriteString(" whole")
		case !inOutline[a] && known:
			fmt.Fprintf(b, " %d tokens", n)
		}
		b.WriteString("\n")
	}
	if len(outlines) > 0 {
		b.WriteString("Outlines (#section tokens; * planned):\n")
	}
	for _, h := range outlines {
		fmt.Fprintf(b, "`%s` %s, %d: ", h.ID, h.Title, h.Tokens)
		writeOutline(b, h.ID, h.Outline, planned)
		b.WriteString("\n")
	}
}

// TextOutlineMax bounds the entries of one document's outline in the text:
// its planned sections and their ancestors always, then the sections
// nearest them in the document, where an agent that did not find its
// answer in a planned section looks next (the whole outline is in
// structuredContent). "…" marks where sections are left out.
const TextOutlineMax = 12

// writeOutline writes an outline on one line, subsections in parentheses
// after their section: #a 40, #b 300 (#c* 120, #d 90), …, #e 10.
func writeOutline(b *strings.Builder, id string, outline []docir.OutlineEntry, planned map[string]bool) {
	show := nearPlanned(outline, planned, TextOutlineMax)
	top := outline[0].Level
	for _, o := range outline {
		top = min(top, o.Level)
	}
	depth, first, gap := 0, true, false
	for i, o := range outline {
		if !show[i] {
			gap = true
			continue
		}
		level := min(o.Level-top, depth+1) // a heading that skips a level nests once
		switch {
		case first:
			level = 0
			if gap {
				b.WriteString("…, ")
			}
		case level > depth:
			b.WriteString(" (")
		default:
			b.WriteString(strings.Repeat(")", depth-level) + ", ")
		}
		if gap && !first {
			b.WriteString("…, ")
		}
		first, gap, depth = false, false, level
		fmt.Fprintf(b, "#%s", strings.TrimPrefix(o.Address, id+"#"))
		if planned[o.Address] {
			b.WriteString("*")
		}
		fmt.Fprintf(b, " %d", o.Tokens)
	}
	b.WriteString(strings.Repeat(")", depth))
	if gap {
		b.WriteString(", …")
	}
}

// nearPlanned picks at most max entries of an outline to show: the planned
// ones and their ancestors, then, nearest first in document order, the
// others (all of them when there are few).
func nearPlanned(outline []docir.OutlineEntry, planned map[string]bool, max int) []bool {
	show := make([]bool, len(outline))
	if len(outline) <= max {
		for i := range show {
			show[i] = true
		}
		return show
	}
	n := 0
	var at []int
	for i, o := range outline {
		if !planned[o.Address] {
			continue
		}
		at = append(at, i)
		level := o.Level
		for j := i; j >= 0; j-- {
			if j == i || outline[j].Level < level {
				if !show[j] {
					show[j] = true
					n++
				}
				level = outline[j].Level
			}
		}
	}
	if len(at) == 0 {
		at = []int{0}
	}
	for d := 1; n < max && d < len(outline); d++ {
		for _, i := range at {
			for _, j := range []int{i - d, i + d} {
				if j >= 0 && j < len(outline) && !show[j] && n < max {
					show[j] = true
					n++
				}
			}
		}
	}
	return show
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

// encodedLen is the length of s as a JSON string the way the SDK writes
// it (encoding/json, which escapes HTML): \" \\ \b \f \n \r \t take 2
// bytes, another control character and each of < > & 6 (\u00XX), an
// invalid UTF-8 byte 6 (\ufffd), U+2028 and U+2029 6. A document full of
// < is six times its size on the wire.
func encodedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += size
		}
		i += size
	}
	return n
}

// htmlEscapedLen is the length of the JSON raw as the SDK writes it (a
// json.RawMessage marshalled by encoding/json): each < > & in it as
// \u00XX, U+2028 and U+2029 as \u2028 and \u2029, as json.HTMLEscape has
// it.
func htmlEscapedLen(raw []byte) int {
	n := len(raw)
	for i, c := range raw {
		switch {
		case c == '<' || c == '>' || c == '&':
			n += 5
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && raw[i+2]&^1 == 0xA8:
			n += 3
		}
	}
	return n
}
