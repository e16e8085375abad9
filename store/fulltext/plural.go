package fulltext

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// PluralName is the chain's last filter: bleve's light English plural
// stemmer (stemmer_en_plural: "archives" -> "archive", "policies" ->
// "policy") with one rule of its own: a word that ends in "us" loses its
// "s" as any other plural does ("menus" -> "menu", "cpus" -> "cpu").
//
// The stemmer keeps "-us" words whole so that a singular such as
// "status" or "campus" is not printed as "statu". A term of the index is
// never printed: queries and passages are analyzed alike, so "status"
// finds "status" as "statu". What the rule changes is only which words
// are one term, and a word X+"s" with X ending in "u" is X's plural
// (menus, CPUs, GPUs, gurus, emus); on the Hugo docs, the RFCs and tldr
// the pairs it joins are menus/menu, cpus/cpu, gpus/gpu and vcpus/vcpu,
// and three of a few words each ("cus", "cmus", "gus"). The -ss rule
// ("class", "process") stays: X+"s" with X ending in "s" is seldom X's
// plural ("pass", "boss").
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
		t.Term = pluralUS(t.Term)
	}
	return input
}

// pluralUS is the rule PluralName adds, on a term stemmer_en_plural made:
// a term that ends in "us" (which that stemmer keeps) loses its "s". No
// term that stemmer makes from a word that did not end in "us" ends in
// "us": it takes off "s" or "es", or makes "ies" a "y".
func pluralUS(t []byte) []byte {
	if n := len(t); n >= 3 && t[n-1] == 's' && t[n-2] == 'u' {
		return t[:n-1]
	}
	return t
}
