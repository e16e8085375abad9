package links

import (
	"strconv"
	"strings"
)

// MDNAnchors returns the anchors MDN Web Docs (its renderer rari, read
// from mdn/rari's rari-md anchor.rs and rari-doc's post_process_html)
// gives a document's headings, in order: each heading's mdnSlug, and a
// repeated one numbered from 2 with '_' ("Result", "Result", "Result" are
// result, result_2 and result_3; an anchor that already ends in '_' and
// digits counts on from them: "a_2" taken makes a_3), the first free
// number below 666; past that the element keeps the taken id, which
// leads to the first. A heading rari renders from a KumaScript macro
// (`{{HTTPHeader("X")}}`) takes the macro's output, which docir does not
// run: its anchor here is the text's. Ids of other elements (a <dt>, an
// HTML id) share the numbering on the site and are not counted here.
func MDNAnchors(headings []string) []string {
	return uniqueAnchors(headings, func(h string, taken map[string]bool) string {
		id := mdnSlug(h)
		if !taken[id] {
			return id
		}
		prefix, count := id, 2
		if i := strings.LastIndexByte(id, '_'); i >= 0 && allDigits(id[i+1:]) {
			// rari's rsplit_once('_'); a counter too long to parse is 0,
			// as is an empty one.
			c, err := strconv.ParseInt(id[i+1:], 10, 64)
			if err != nil {
				c = 0
			}
			prefix, count = id[:i], int(min(c, 666))+1
		}
		next := prefix + "_" + strconv.Itoa(count)
		for taken[next] && count < 666 {
			count++
			next = prefix + "_" + strconv.Itoa(count)
		}
		if taken[next] || count >= 666 {
			return id
		}
		return next
	})
}

// mdnSlug is rari's anchorize: the characters *<>"$#%&+,/:;=?@[]^`{|}~')(\
// are dropped, white space trimmed from both ends, the text lower-cased
// (as Rust's to_lowercase: a final capital sigma is 'ς'), each run of
// ASCII white space cut to its first character and a space made '_'; an
// anchor with nothing left is "sect". So "Formal syntax" is
// formal_syntax, "SignificantDigits/FractionDigits default values" is
// significantdigitsfractiondigits_default_values, "Using <code>ref()</code>"
// (code spans count as their text) is using_ref.
func mdnSlug(heading string) string {
	var b strings.Builder
	for _, r := range heading {
		if !strings.ContainsRune("*<>\"$#%&+,/:;=?@[]^`{|}~')(\\", r) {
			b.WriteRune(r)
		}
	}
	s := jsLower(strings.TrimSpace(b.String()))
	b.Reset()
	prev := ' '
	for _, r := range s {
		if !isASCIISpace(r) || !isASCIISpace(prev) {
			if r == ' ' {
				b.WriteByte('_')
			} else {
				b.WriteRune(r)
			}
		}
		prev = r
	}
	if b.Len() == 0 {
		return "sect"
	}
	return b.String()
}

// isASCIISpace is Rust's char::is_ascii_whitespace: space, tab, line
// feed, form feed and carriage return (not the vertical tab).
func isASCIISpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

// allDigits reports whether s is ASCII digits only (true for "", as
// Rust's chars().all is).
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
