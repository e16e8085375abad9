package rank

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/markdown"
)

const ellipsis = "…"

// Snippet returns at most limit bytes of text around the place where the
// most distinct words of the query occur close together (matched without
// regard to case), whitespace folded, cut on rune boundaries, with "…"
// where text was cut. Highlighting is left to the printer (see
// MatchSpans): the wire carries plain text.
func Snippet(text, query string, limit int) string {
	text = foldSpaces(plainBlocks(text))
	if len(text) <= limit {
		return text
	}
	budget := limit - 2*len(ellipsis)
	from, to := 0, 0
	if spans := MatchSpans(text, query); len(spans) > 0 {
		from, to = densest(spans, budget)
	}
	// The matches a sixth of the way in, and all of them in.
	start := max(0, from-budget/6, to-budget)
	end := min(len(text), start+budget)
	if end == len(text) {
		start = max(0, end-budget)
	}
	// On rune boundaries (a text of continuation bytes alone, which no
	// indexed document is, has none: the cut stays in its bounds).
	for start > 0 && start < end && !utf8.RuneStart(text[start]) {
		start++
	}
	for end > start && end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	// Prefer to start and end on a word boundary when one is near and
	// outside the matches.
	if start > 0 {
		if i := strings.IndexByte(text[start:max(start, min(end, start+24, from))], ' '); i >= 0 {
			start += i + 1
		}
	}
	if end < len(text) {
		if lo := max(start, end-24, to); lo < end {
			if i := strings.LastIndexByte(text[lo:end], ' '); i >= 0 {
				end = lo + i
			}
		}
	}
	out := text[start:end]
	if start > 0 {
		out = ellipsis + out
	}
	if end < len(text) {
		out += ellipsis
	}
	return out
}

// foldSpaces folds text's runs of white space to one space, and drops the
// run between a link's text and the punctuation after it: a link's
// destination is blanked where it stood (store/passage Prose), and
// "refer to [Provisioning Grafana](/x)." read "refer to [Provisioning
// Grafana] ." in 122 of 704 snippets of a review of Grafana's docs.
func foldSpaces(text string) string {
	words := strings.Fields(text)
	var b strings.Builder
	b.Grow(len(text))
	for i, w := range words {
		if i > 0 && !(strings.HasSuffix(words[i-1], "]") && closingMarks(w)) {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// maxWikilink bounds the bytes a wikilink's brackets may hold: a "[[" with
// no "]]" near is text, and the scan for its end stays linear.
const maxWikilink = 512

// plainMarks reads one paragraph's marks outside code spans (as
// markdown.NewCodeSpans reads them: a span opened by two backticks may hold
// one; an escaped backtick opens none) as a reader
// sees them, in one pass: a wikilink shows its text (`[[Internal
// links|internal link]]` is "internal link"; `[[Note#Heading]]` is "Note >
// Heading", as Obsidian shows it; `[[#Heading]]` "Heading"), an embed
// (`![[diagram.png]]`, `![[Note]]`) shows nothing of its markup, a
// backslash escape is kept whole for plainEmphasis, which shows its
// character (`\[\[` is "[[", and opens no wikilink here), and a block id
// that ends the paragraph (`^intro-block`, Obsidian's) is not shown. A
// review of an Obsidian vault found `[[…|…]]`, `![[icon.svg#icon]]` and
// `^ids` in its snippets.
func plainMarks(text string) string {
	if !strings.ContainsAny(text, "[\\^") {
		return text
	}
	b := make([]byte, 0, len(text))
	code := markdown.NewCodeSpans(text) // a code span's marks are its text
	closeAt := -1                       // the next "]]" at or after the scan (-2: none): found once, linear
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c != '\\' && c != '[' && c != '!': // no mark: code or not, as it is
		case code.Holds(i):
		case c == '\\' && i+1 < len(text) && asciiPunct(text[i+1]):
			// An escape stays for plainEmphasis, which reads the code spans
			// of this text again (an escaped backtick opens none) and drops
			// the backslash; its character is no wikilink's bracket.
			b = append(b, c, text[i+1])
			i += 2
			continue
		case c == '[' || c == '!' && strings.HasPrefix(text[i+1:], "[["):
			embed := c == '!'
			open := i + 2
			if embed {
				open++
			}
			if !strings.HasPrefix(text[i:], "[[") && !embed {
				break
			}
			if closeAt != -2 && closeAt < open {
				if k := strings.Index(text[open:], "]]"); k >= 0 {
					closeAt = open + k
				} else {
					closeAt = -2
				}
			}
			end, inner := -1, ""
			if closeAt >= open && closeAt-open <= maxWikilink {
				end = closeAt - open
				inner = text[open:closeAt]
			}
			if end <= 0 || strings.ContainsAny(inner, "[]\n") && !strings.Contains(inner, "\\|") || inner[0] == ' ' {
				break
			}
			if !embed {
				b = append(b, wikiText(inner)...)
			}
			i = open + end + 2
			continue
		}
		b = append(b, c)
		i++
	}
	// A block id ends its paragraph, as the index reads one.
	out := string(b)
	if k := markdown.BlockIDStart(out); k >= 0 {
		out = strings.TrimRight(out[:k], " ")
	}
	return out
}

// wikiText is what a reader sees of a wikilink whose brackets hold inner:
// its text after '|' (a table's "\|" too), else its target without ".md",
// a heading after '#' shown as Obsidian shows it ("Note > Heading").
func wikiText(inner string) string {
	inner = strings.ReplaceAll(inner, "\\|", "|")
	if _, text, ok := strings.Cut(inner, "|"); ok {
		return strings.TrimSpace(text)
	}
	note, heading, _ := strings.Cut(inner, "#")
	note = strings.TrimSuffix(strings.TrimSpace(note), ".md")
	heading = strings.TrimSpace(strings.ReplaceAll(heading, "#", " > "))
	switch {
	case note == "":
		return heading
	case heading == "":
		return note
	}
	return note + " > " + heading
}

// emphasisMark says c is a mark plainEmphasis may read as a delimiter.
func emphasisMark(c byte) bool { return c == '*' || c == '_' || c == '~' || c == '=' }

// asciiPunct says c is ASCII punctuation, which a backslash escapes
// (CommonMark).
func asciiPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !('0' <= c && c <= '9') && !('a' <= c|0x20 && c|0x20 <= 'z')
}

// plainEmphasis drops emphasis delimiters from text, one paragraph (its
// lines joined by spaces): a run of one to three '*' or '_', or two '~',
// that opens a word (after a space, the text's start or "(", before a
// letter, digit or backtick — or before other punctuation when the next
// run of the same marks closes, as CommonMark pairs them: "**~2 days**",
// "**(now)**") or closes one (after a letter, digit or closing mark,
// before a space, the text's end or closing punctuation), outside code
// spans: "**Note:** the `_` of _emphasis_" reads "Note: the `_` of
// emphasis". A reader sees the emphasis, not its marks (26% of a Grafana
// review's snippets held "**", 131 of 895 of a Rust book review's "_").
// An identifier's underscores (snake_case), a product's stars (2 * 3) and
// a glob (file_*.txt, "delete *.txt files": no run closes it) flank no
// word so, and stay; so does an escaped mark ("\_\_init\_\_" reads
// "__init__"), and every escape outside code shows its character alone
// (plainMarks keeps them, so that both read the same code spans).
// Linear: each run is paired with the next of its marks only.
func plainEmphasis(text string) string {
	if !strings.ContainsAny(text, "*_~=\\") {
		return text
	}
	type run struct {
		i, j                 int
		opens, loose, closes bool // loose: it opens only if the next run of its marks closes
	}
	var runs []run
	code := markdown.NewCodeSpans(text)
	for i := 0; i < len(text); {
		c := text[i]
		if c != '\\' && !emphasisMark(c) || code.Holds(i) {
			i++
			continue
		}
		if c == '\\' {
			if i+1 < len(text) && asciiPunct(text[i+1]) {
				// An escape (plainMarks kept it): its backslash is dropped,
				// and an escaped mark ("\_\_init\_\_") is no delimiter.
				runs = append(runs, run{i: i, j: i + 1, opens: true})
				i++
			}
			i++
			continue
		}
		j := i
		for j < len(text) && text[j] == c {
			j++
		}
		// The characters either side, a space at the text's ends; any
		// white space is a space (a no-break space after "**" closes it).
		before, after := ' ', ' '
		if i > 0 {
			before, _ = utf8.DecodeLastRuneInString(text[:i])
		}
		if j < len(text) {
			after, _ = utf8.DecodeRuneInString(text[j:])
		}
		if unicode.IsSpace(before) {
			before = ' '
		}
		if unicode.IsSpace(after) {
			after = ' '
		}
		if delimits(c, j-i) {
			startsWord := before == ' ' || before == '('
			strict := startsWord && (wordRune(after) || after == '`')
			runs = append(runs, run{i: i, j: j, opens: strict, loose: startsWord && !strict && after != ' ',
				closes: (wordRune(before) || strings.ContainsRune(".,:;!?)`'\"", before)) && (after == ' ' || strings.ContainsRune(".,:;!?)", after))})
		}
		i = j
	}
	// A loose opener opens when the next run of its marks closes.
	next := map[string]int{}
	for k := len(runs) - 1; k >= 0; k-- {
		r := &runs[k]
		m := text[r.i:r.j]
		if n, ok := next[m]; ok && r.loose && runs[n].closes && !runs[n].opens {
			r.opens = true
		}
		next[m] = k
	}
	b := make([]byte, 0, len(text))
	last := 0
	for _, r := range runs {
		if r.opens != r.closes {
			b = append(b, text[last:r.i]...)
			last = r.j
		}
	}
	return string(append(b, text[last:]...))
}

// delimits says a run of n c's may delimit emphasis: one to three '*' or
// '_' (strong emphasis), two '~' (GFM's strikethrough, "~~gone~~"; one
// tilde is "about", as in "~2 days", more often than it strikes), two '='
// (a highlight, "==key==", Obsidian's and pymdownx's mark).
func delimits(c byte, n int) bool {
	if c == '~' || c == '=' {
		return n == 2
	}
	return n <= 3
}

// wordRune reports whether r is a letter or a digit (a word's, as far as
// emphasis goes).
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// closingMarks reports whether w is only the punctuation that closes a
// phrase: ".", ",", ";", ":", "!", "?", ")", and runs of them ("),").
func closingMarks(w string) bool {
	for i := 0; i < len(w); i++ {
		if !strings.ContainsRune(".,;:!?)", rune(w[i])) {
			return false
		}
	}
	return w != ""
}

// plainBlocks reads text block by block as a reader sees it: it drops the
// markup of headings, the leading #s of an ATX heading and the underline
// of a setext one, and the line markup around text a reader reads as
// prose: a block quote's '>'s, a GitHub alert's "[!NOTE]", a bullet
// item's marker, a thematic break and a code fence's line (its code
// stays, line for line); and each paragraph's emphasis (plainEmphasis),
// which never pairs across blocks.
func plainBlocks(text string) string {
	lines := strings.Split(text, "\n")
	var out strings.Builder
	out.Grow(len(text))
	var para []string // the lines of the paragraph read so far
	flush := func() { // a paragraph's marks are its own (plainMarks, plainEmphasis)
		if len(para) > 0 {
			out.WriteString(plainEmphasis(plainMarks(strings.Join(para, " "))))
			out.WriteByte('\n')
			para = para[:0]
		}
	}
	fence := "" // the open code fence's marker: its lines are code, kept
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if !markdown.ClosesFence(t, fence) {
				out.WriteString(l + "\n") // code: "# sysctl -a" is a prompt, "ls *.md" a glob
				continue
			}
			fence = ""
			continue // the closing fence's line
		} else if f := markdown.FenceOf(t); f != "" {
			flush()
			fence = f
			continue // the opening fence's line
		}
		if q := unquoted(t); q != t {
			t, l = q, q
		}
		switch {
		case markdown.FenceOf(t) != "" || thematicBreak(t):
			flush()
			continue // a fence's line in a block quote, a rule
		case t == "":
			flush()
			continue
		case len(t) >= 2 && strings.IndexByte("-*+", t[0]) >= 0 && (t[1] == ' ' || t[1] == '\t'):
			flush()
			l = strings.TrimSpace(t[2:]) // a bullet item: the page shows a dot, not "*"
		case strings.HasPrefix(t, "#"):
			h := strings.TrimLeft(t, "#")
			if len(t)-len(h) <= 6 && (h == "" || h[0] == ' ' || h[0] == '\t') {
				flush()
				para = append(para, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#")))
				flush() // a heading is a block of its own
				continue
			}
		case i > 0 && strings.Trim(t, "=") == "" || i > 0 && len(t) >= 2 && strings.Trim(t, "-") == "" && strings.TrimSpace(lines[i-1]) != "":
			continue // a setext underline
		}
		para = append(para, l)
	}
	flush()
	return out.String()
}

// thematicBreak says a trimmed line is a thematic break: three or more of
// one of '-', '*', '_', spaces between them allowed ("* * *").
func thematicBreak(t string) bool {
	if len(t) < 3 || strings.IndexByte("-*_", t[0]) < 0 {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case t[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// unquoted is a trimmed line without its block quote markers ("> > x" is
// "x") and the marker of a GitHub alert or an Obsidian callout after them,
// in any case, with the callout's fold sign ("> [!NOTE]" and "> [!tip]-"
// are ""; "> [!warning]+ Mind it" is "Mind it", its title).
func unquoted(t string) string {
	if !strings.HasPrefix(t, ">") {
		return t
	}
	for strings.HasPrefix(t, ">") {
		t = strings.TrimSpace(t[1:])
	}
	if rest, ok := strings.CutPrefix(t, "[!"); ok {
		if i := strings.IndexByte(rest, ']'); i > 0 && !strings.ContainsAny(rest[:i], " \t") {
			rest = rest[i+1:]
			if strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "+") {
				rest = rest[1:]
			}
			t = strings.TrimSpace(rest)
		}
	}
	return t
}

// densest returns bytes [from, to) of the text, from the first to the
// last of a run of spans: of the runs no wider than width, one that holds
// the most distinct query words, and of those the narrowest, then the
// first. A row of a table that names the query's identifier (its every
// part) is chosen over the prose before the table that says two of the
// parts, and a heading that says the query over the words scattered after
// it. Two passes of two pointers: linear in the number of spans.
func densest(spans []Span, width int) (from, to int) {
	count := map[string]int{}
	distinct := 0
	memo := map[string][]string{} // each word's units, made once a call
	unitsOf := func(w string) []string {
		u, ok := memo[w]
		if !ok {
			u = units(w)
			memo[w] = u
		}
		return u
	}
	add := func(s Span) {
		for _, u := range unitsOf(s.Word) {
			if count[u]++; count[u] == 1 {
				distinct++
			}
		}
	}
	drop := func(s Span) {
		for _, u := range unitsOf(s.Word) {
			if count[u]--; count[u] == 0 {
				distinct--
			}
		}
	}
	// The most distinct words a run no wider than width holds.
	most := 0
	for i, j := 0, 0; i < len(spans); i++ {
		if j <= i {
			j = i // the run [i, j) is empty
		}
		for j < len(spans) && spans[j].End-spans[i].Start <= width {
			add(spans[j])
			j++
		}
		most = max(most, distinct)
		if j > i {
			drop(spans[i])
		}
	}
	// The narrowest run that holds as many: each run's left end moved
	// right while the run still holds them.
	clear(count)
	distinct = 0
	from, to = 0, -1
	for l, r := 0, 0; r < len(spans); r++ {
		add(spans[r])
		for l < r && distinct-lost(count, unitsOf(spans[l].Word)) >= most {
			drop(spans[l])
			l++
		}
		if distinct >= most && (to < 0 || spans[r].End-spans[l].Start < to-from) {
			from, to = spans[l].Start, spans[r].End
		}
	}
	return from, to
}

// units are the query words a match of w counts as: w itself, or, for a
// run of three characters or more of a script written without spaces
// (the whole of a query word such as 计算属性缓存), each of its pairs of
// characters, which are the words the index reads it as and which a
// match of one pair counts as (queryWords): a heading that says the
// whole query holds every one of them, and is not outnumbered by pairs
// scattered in the text after it.
func units(w string) []string {
	if spaced(w) || utf8.RuneCountInString(w) < 3 {
		return []string{w}
	}
	rs := []rune(w)
	out := make([]string, 0, len(rs)-1)
	seen := make(map[string]bool, len(rs)-1)
	for i := 0; i+2 <= len(rs); i++ {
		if u := string(rs[i : i+2]); !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// lost is how many distinct words a run loses when a span whose units
// are units leaves it: those counted once.
func lost(count map[string]int, units []string) int {
	n := 0
	for _, u := range units {
		if count[u] == 1 {
			n++
		}
	}
	return n
}

// Span is one place in a text where a word of the query occurs: bytes
// [Start, End) of the text, and the (lower-cased) query word. A plural's
// stem ("limit" of "limits") is the query word's; each pair of characters
// of a word in a script written without spaces is a word of its own, as
// the index reads them.
type Span struct {
	Start, End int
	Word       string
}

// form is a string a printer looks for in text and the query word it is
// a form of.
type form struct{ text, word string }

// queryWords splits a query into the lower-cased words a printer can look
// for in text: runs of letters, digits and marks (so an identifier's
// parts), each with the form without a plural's "s". Runs in scripts
// written without spaces (Han, kana, Thai...) are looked for as written
// and as overlapping pairs of characters.
func queryWords(query string) []form {
	seen := map[string]bool{}
	var out []form
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !isWordRune(r)
	}) {
		if utf8.RuneCountInString(w) < 2 && w[0] < utf8.RuneSelf {
			continue // single Latin letters and digits would light up everything
		}
		forms := []form{{w, w}, {strings.TrimSuffix(w, "s"), w}}
		if !spaced(w) && utf8.RuneCountInString(w) > 2 {
			for _, p := range units(w) { // as the index does: overlapping pairs of characters
				forms = append(forms, form{p, p})
			}
		}
		for _, v := range forms {
			if !seen[v.text] && utf8.RuneCountInString(v.text) >= 2 {
				seen[v.text] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// MatchSpans finds where the query's words occur in text, ignoring case:
// sorted, not overlapping. A word matches at the start of a word of text,
// as the query's words are cut from it: after a rune that is not a letter,
// digit or mark, so at an identifier's parts too (so "budget" lights up
// "budgets" and the BUDGET of MAX_BUDGET but not "subbudget", and the
// query OTEL_METRIC_EXPORT_TIMEOUT lights up all four parts of its name).
func MatchSpans(text, query string) []Span {
	words := queryWords(query)
	if len(words) == 0 {
		return nil
	}
	lower := strings.ToLower(text)
	if len(lower) != len(text) {
		// Lower-casing changed byte lengths (rare letters such as 'İ'):
		// offsets would not line up, so match as written.
		lower = text
	}
	var spans []Span
	for _, w := range words {
		for from := 0; from < len(lower); {
			i := strings.Index(lower[from:], w.text)
			if i < 0 {
				break
			}
			i += from
			if i == 0 || !isWordRune(lastRune(lower[:i])) || !spaced(w.text) {
				spans = append(spans, Span{Start: i, End: i + len(w.text), Word: w.word})
			}
			from = i + len(w.text)
		}
	}
	sort.Slice(spans, func(a, b int) bool {
		if spans[a].Start != spans[b].Start {
			return spans[a].Start < spans[b].Start
		}
		return spans[a].End > spans[b].End
	})
	out := spans[:0]
	for _, s := range spans {
		if len(out) > 0 && s.Start < out[len(out)-1].End {
			continue
		}
		out = append(out, s)
	}
	return out
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// isWordRune reports whether r is a letter, digit or mark: a rune of a
// query's word ('_' cuts an identifier into its parts).
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// spaced reports whether w is in a script that separates words by spaces;
// words of other scripts (Han, kana, Thai...) may match anywhere.
func spaced(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return !fulltext.BigramScript(r)
}
