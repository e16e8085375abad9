package fulltext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A question's frame. "How do I change the font size in the terminal?"
// asks about the font size in the terminal; "how do I" is the form of the
// question, and a corpus whose FAQ headings all begin "How do I …" would
// rank every one of them for it, on three of the question's words, above
// the section about fonts. So a question is ranked by its topic: the
// words of each of its clauses from the first one that is not a function
// word of the frame (an interrogative, an auxiliary or modal verb, a
// pronoun, an article or a preposition), the frame before it left out.
// A query is a question when it ends with "?" or its first word is an
// interrogative; a clause starts the query or follows a ";", ":", "?",
// "!" or a "." that ends a word, or is an interrogative after "and", "or"
// or a comma (a second question joined to the first). Only the words
// before a clause's first topic word are left out: "where does hugo look
// for the archetype" keeps "for the". A query that is all frame ("how do I") is kept whole,
// as is a query with phrases or exclusions (their words are chosen), and
// a query that names a document by its title ("How to Write a PowerShell
// Script Module") still names it: names are matched as typed (see
// Named). A "how" that asks for a measure ("how long does a build take",
// "how many pages") is the topic's.
//
// The words are English: a question in another language is ranked as it
// is written.
// isInterrogative and isFrameWord are switches, not sets built at start-up:
// every docir call is a fresh process, and most ask no question.
func isInterrogative(w string) bool {
	switch w {
	case "how", "what", "which", "why", "when", "where", "who", "whom", "whose":
		return true
	}
	return false
}

func isFrameWord(w string) bool {
	switch w {
	case // auxiliary and modal verbs
		"am", "is", "are", "was", "were", "be", "been", "do", "does", "did", "have", "has", "had", "can", "could",
		"shall", "should", "will", "would", "may", "might", "must",
		// pronouns and determiners that open a question
		"i", "me", "my", "we", "us", "our", "you", "your", "it", "its", "there", "this", "that",
		// articles
		"a", "an", "the",
		// prepositions that open one ("in which folder", "for a page")
		"in", "of", "to", "for", "on", "at", "with", "by", "from", "into", "about":
		return true
	}
	return isInterrogative(w)
}

// FunctionWord reports whether term (a query's term, as analyzed) is one
// of the function words a question's frame is made of (isFrameWord: an
// interrogative, an auxiliary or modal verb, a pronoun, an article, a
// preposition): a word that says how something is asked, not what about.
// A term is analyzed, and the plural rule takes a final "s" off ("was"
// is wa, "has" ha, "this" thi: TestFunctionWordAnalyzed), so a term that
// is a frame word with an "s" is one too. English only.
func FunctionWord(term string) bool { return isFrameWord(term) || isFrameWord(term+"s") }

// questionTopic returns text without the frame of each of its clauses
// when it is a question (see above), else text itself.
func questionTopic(text string) string {
	fields := strings.Fields(text)
	if len(fields) < 2 || !isQuestion(fields) {
		return text
	}
	out := make([]string, 0, len(fields))
	lead := true // at a clause's start, before its first topic word
	for i, f := range fields {
		if joined, ok := joinsQuestion(fields, i); ok {
			lead = true
			if joined && len(out) > 0 && out[len(out)-1] == fields[i-1] {
				out = out[:len(out)-1] // the "and" that joins it is not the topic's
			}
		}
		if !lead || !isFrameWord(frameKey(f)) || howMuch(fields, i) {
			out = append(out, f)
			// A negated auxiliary is asked about, and the frame goes on
			// after it: "why can't I index into a String" asks about
			// indexing, not about "I" (which the Rust book's I/O pages
			// hold in their titles).
			lead = lead && negated(frameKey(f))
		}
		if endsClause(f) {
			lead = true
		}
	}
	if len(out) == 0 || len(out) == len(fields) {
		return text
	}
	return strings.Join(out, " ")
}

// joinsQuestion says fields[i] is an interrogative that opens a clause
// joined to the one before it ("… do and when should I enable it?", "…
// images, and how do I change it?", "Why, and how should my app handle
// it?"): after "and" or "or" (joined is then true: the conjunction is
// the frame's too), or after a word that ends with a comma.
func joinsQuestion(fields []string, i int) (joined, ok bool) {
	if i == 0 || !isInterrogative(frameKey(fields[i])) {
		return false, false
	}
	switch frameKey(fields[i-1]) {
	case "and", "or":
		return true, true
	}
	return false, strings.HasSuffix(fields[i-1], ",")
}

// howMuch says fields[i] is a "how" that asks for a measure with the
// topic word after it ("how long", "how much", "how many"): it is kept
// with it, as part of what is asked.
func howMuch(fields []string, i int) bool {
	return frameKey(fields[i]) == "how" && !endsClause(fields[i]) &&
		i+1 < len(fields) && !isFrameWord(frameKey(fields[i+1]))
}

// quotes says a query's quotation marks quote, not ask for phrases: the
// query is a question. A question quotes what its asker saw or typed — an
// error message, a setting's value ("I switched my package to "type":
// "module" and now __dirname is not defined. How do I …?") — and a
// phrase is required: a passage without "type" and "module" did not
// match, so the page that answers, which says __dirname and neither, was
// not among the hits. A search that means a phrase is not a sentence
// that asks. The quoted words rank as words, their order as any words'.
// The question is read in the words outside the quotes: a phrase that
// opens with an interrogative (`"where clause"`, `"how it works"`) asks
// for the phrase.
func quotes(text string) bool {
	var outside strings.Builder
	for in := false; text != ""; {
		before, after, found := strings.Cut(text, `"`)
		if !in {
			outside.WriteString(before)
			outside.WriteByte(' ')
		}
		if !found {
			break
		}
		text, in = after, !in
	}
	fields := strings.Fields(outside.String())
	return len(fields) >= 2 && isQuestion(fields)
}

// isQuestion: the query ends with "?" or opens with an interrogative.
func isQuestion(fields []string) bool {
	return strings.HasSuffix(fields[len(fields)-1], "?") || isInterrogative(frameKey(fields[0])) || inverted(fields)
}

// inverted says the query opens as an English yes/no question does, an
// auxiliary or modal verb before a pronoun: "can I index into a String",
// "does it work offline", "is there a way to", "can't we" (the Rust
// book's "can I …" without its "?" kept "I", which its I/O titles hold).
func inverted(fields []string) bool {
	if len(fields) < 3 {
		return false
	}
	verb, subject := frameKey(fields[0]), frameKey(fields[1])
	if negated(verb) {
		verb = "do" // every "n't" is an auxiliary's
	}
	if !isFrameWord(verb) || isInterrogative(verb) || endsClause(fields[0]) {
		return false
	}
	switch verb {
	case "a", "an", "the", "in", "of", "to", "for", "on", "at", "with", "by", "from", "into", "about",
		"i", "me", "my", "we", "us", "our", "you", "your", "it", "its", "there", "this", "that":
		return false // not a verb
	}
	switch subject {
	case "i", "we", "you", "it", "they", "he", "she", "there", "this", "that", "my", "our", "your", "its", "their":
		return true
	}
	return false
}

// frameKey is a word as the frame list spells it: lower case, without the
// punctuation around it ("How", "I;" and "(what" are how, i and what), and
// without a contraction of a frame verb ("what's", "I'm", "we're",
// "I've", "it'll", "I'd" are what, i, we, i, it, i; a negation, "doesn't",
// is not a frame word: it is part of what is asked).
func frameKey(f string) string {
	w := strings.ToLower(strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) }))
	w = strings.ReplaceAll(w, "’", "'")
	for _, c := range []string{"'s", "'m", "'re", "'ve", "'ll", "'d"} {
		if base, ok := strings.CutSuffix(w, c); ok && isFrameWord(base) {
			return base
		}
	}
	return w
}

// negated says a word (as frameKey spells it) is a negated auxiliary or
// modal verb: "can't", "doesn't", "won't", "isn't", every English "n't".
func negated(w string) bool { return strings.HasSuffix(w, "n't") }

// endsClause says a word ends its clause: it ends with ";", ":", "?", "!"
// or a "." after a letter (not "index.md", which goes on).
func endsClause(f string) bool {
	r, size := utf8.DecodeLastRuneInString(f)
	switch r {
	case ';', ':', '?', '!':
		return true
	case '.':
		p, _ := utf8.DecodeLastRuneInString(f[:len(f)-size])
		return unicode.IsLetter(p)
	}
	return false
}
