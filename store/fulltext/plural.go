package fulltext

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// PluralName is the chain's last filter: bleve's light English plural
// stemmer (stemmer_en_plural: "archives" -> "archive", "policies" ->
// "policy") with two rules of its own, each making a plural one term with
// its singular where that stemmer leaves them two:
//
//   - a word that ends in "us" loses its "s" as any other plural does
//     ("menus" -> "menu", "cpus" -> "cpu"). The stemmer keeps "-us" words
//     whole so that a singular such as "status" is not printed as
//     "statu"; a term of the index is never printed, and queries and
//     passages are analyzed alike, so "status" still finds "status". The
//     -ss rule ("class", "process") stays: X+"s" with X ending in "s" is
//     seldom X's plural ("pass", "boss");
//   - a word of five letters or more that ends in "ie" ends in "y", as
//     the stemmer makes its plural ("cookies" -> "cooky", and now
//     "cookie" -> "cooky"; "movie", "zombie", "newbie"): it reads every
//     "-ies" of more than four letters as the plural of a "-y" word.
//
// On the Hugo docs, the RFCs, tldr, the PowerShell docs and the KEPs the
// pairs the two rules join are menus/menu, cpus/cpu, gpus/gpu,
// vcpus/vcpu, movies/movie, cookies/cookie, newbies/newbie and
// zombies/zombie, and a few words of a few uses each ("cus", "cmus",
// "gus"; tldr's French "partie" with "party").
//
// An index keeps the chain it was made with (bleve stores its mapping): a
// store indexed before this filter keeps stemmer_en_plural, for its
// passages and its queries alike, until it is indexed from scratch.
const PluralName = "docir_plural_en"

func init() {
	err := registry.RegisterTokenFilter(PluralName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return pluralFilter{en.NewEnglishPluralStemmerFilter()}, nil
	})
	if err != nil {
		panic(err)
	}
}

// pluralFilter is the PluralName filter.
type pluralFilter struct {
	plural *en.EnglishPluralStemmerFilter
}

func (f pluralFilter) Filter(input analysis.TokenStream) analysis.TokenStream {
	input = f.plural.Filter(input)
	for _, t := range input {
		t.Term = pluralMore(t.Term)
	}
	return input
}

// pluralMore is the rules PluralName adds, on a term stemmer_en_plural
// made: a term that ends in "us" (which that stemmer keeps) loses its
// "s"; a term of five letters or more that ends in "ie" ends in "y". No
// term that stemmer makes from a word that did not end in "us" ends in
// "us" (it takes off "s" or "es", or makes "ies" a "y"), and none of five
// letters or more that ends in "ie" comes from a plural (it makes such
// an "-ies" a "y"): the rules change singulars only. A term made new is
// returned in new memory: terms may share bytes.
func pluralMore(t []byte) []byte {
	n := len(t)
	switch {
	case n >= 3 && t[n-1] == 's' && t[n-2] == 'u':
		return t[:n-1]
	case n >= 5 && t[n-1] == 'e' && t[n-2] == 'i':
		out := make([]byte, n-1)
		copy(out, t[:n-2])
		out[n-2] = 'y'
		return out
	}
	return t
}
