package fulltext

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestQuestionTopic: a question loses the frame each of its clauses opens
// with, and nothing else; a query that is not a question, or is all
// frame, is kept whole.
func TestQuestionTopic(t *testing.T) {
	for in, want := range map[string]string{
		"How do I change the font size in the terminal?":             "change the font size in the terminal?",
		"how do I change the font size in the terminal":              "change the font size in the terminal",
		"What is swizzling?":                                         "swizzling?",
		"In which directory do I create my own shortcode templates?": "directory do I create my own shortcode templates?",
		"I renamed a page; how do I keep the old URLs working?":      "renamed a page; keep the old URLs working?",
		"Can I set Hugo configuration with environment variables?":   "set Hugo configuration with environment variables?",
		"how long does a build take":                                 "how long does a build take",
		"How many pages does each pager hold?":                       "How many pages does each pager hold?",
		"What's new in the editor?":                                  "new in the editor?",
		"I’m seeing a blank page; what’s wrong?":                     "seeing a blank page; wrong?",
		"Why doesn't my page render?":                                "doesn't page render?",
		"Why can't I index into a String?":                           "can't index into a String?",
		"Why won't it build when I add a file?":                      "won't build when I add a file?",
		// a yes/no question without its "?": a verb before a pronoun
		"can I index into a String":      "index into a String",
		"is there a way to skip a test":  "way to skip a test",
		"does my page need front matter": "page need front matter",
		"can't we share the cache":       "can't share the cache",
		"can openers open cans":          "can openers open cans",
		"in it together":                 "in it together",
		"it is what it is":               "it is what it is",
		// a second question joined to the first by "and", "or" or a comma
		"What does the relativeURLs setting do and when should I enable it?":  "relativeURLs setting do enable it?",
		"What quality does Hugo use for JPEG images, and how do I change it?": "quality does Hugo use for JPEG images, change it?",
		"NOSCRIPT after a failover. Why, and how should my app handle it?":    "NOSCRIPT after a failover. app handle it?",
		"How many pages does a pager hold and how many can it hold?":          "How many pages does a pager hold how many can it hold?",
		"What is a counter or when is it reset?":                              "counter reset?",
		"how do I add this and that?":                                         "add this and that?",
		"how do I":                                                            "how do I",
		"How?":                                                                "How?",
		// not questions: a copied sentence, a topic
		"the type checker will then reject the program": "the type checker will then reject the program",
		"add page to main menu":                         "add page to main menu",
		"is index.md a page":                            "is index.md a page",
		// "." ends a clause after a letter only
		"what is index.md for?":           "index.md for?",
		"Builds are slow. What can I do?": "Builds are slow.",
	} {
		if got := questionTopic(in); got != want {
			t.Errorf("questionTopic(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzQuestionTopic: the topic is the query's words, in order, less some
// (never all of them, never a word of a query that is no question), and
// it is its own topic.
func FuzzQuestionTopic(f *testing.F) {
	for _, s := range []string{"How do I add a menu?", "what is it", "how long; how do I?", "a b. c", "¿Cómo?", "how\tdo\x00 i"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := questionTopic(s)
		in, out := strings.Fields(s), strings.Fields(got)
		if got == s {
			return
		}
		if len(out) == 0 || len(out) >= len(in) || !isQuestion(in) {
			t.Fatalf("questionTopic(%q) = %q", s, got)
		}
		i := 0 // out is a subsequence of in
		for _, w := range out {
			for i < len(in) && in[i] != w {
				i++
			}
			if i == len(in) {
				t.Fatalf("questionTopic(%q) = %q: not its words in order", s, got)
			}
			i++
		}
		if again := questionTopic(got); again != got {
			t.Fatalf("questionTopic(%q) = %q, and again %q", s, got, again)
		}
	})
}

// TestFunctionWordAnalyzed: every frame word, analyzed as the index
// analyzes a query ("was" is wa, "this" thi), is a function word.
func TestFunctionWordAnalyzed(t *testing.T) {
	x, err := Create(filepath.Join(t.TempDir(), "x"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	words := strings.Fields(`how what which why when where who whom whose am is are was were be been do does did have has
		had can could shall should will would may might must i me my we us our you your it its there this that a an the
		in of to for on at with by from into about`)
	for _, w := range words {
		if !isFrameWord(w) {
			t.Fatalf("%q is no frame word: the list is isFrameWord's", w)
		}
		for _, term := range x.Terms(w) {
			if !FunctionWord(term) {
				t.Errorf("%q analyzes to %q, which FunctionWord does not take", w, term)
			}
		}
	}
}
