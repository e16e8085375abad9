package links

import (
	"strconv"
	"strings"
	"unicode"
)

// BlackfridayAnchors returns the anchors Hugo gives a document's headings,
// in order, when its site sets markup.goldmark.parser.autoHeadingIDType to
// "blackfriday" (the rule of Hugo before 0.60, kept for old sites: the
// Kubernetes docs set it), which is not GitHub's: every run of characters
// that are not letters or numbers is one '-' between the letters and
// numbers around it, none at either end, and letters are lower-cased
// (Hugo's markup/blackfriday SanitizedAnchorName): "kubernetes.io/arch" is
// kubernetes-io-arch (GitHub: kubernetesioarch), "What's next" is
// what-s-next (GitHub: whats-next), "Configure IPv4/IPv6 dual-stack" is
// configure-ipv4-ipv6-dual-stack. A heading with no letter or number is
// "heading"; a repeated anchor gets "-1", "-2", the first free one
// (Hugo's idFactory), as GitHub's does. A heading with an id of its own
// ({#id}) is not told apart (see MkDocsAnchors).
func BlackfridayAnchors(headings []string) []string {
	return uniqueAnchors(headings, func(h string, taken map[string]bool) string {
		id := blackfridaySlug(h)
		if id == "" {
			id = "heading"
		}
		if !taken[id] {
			return id
		}
		for i := 1; ; i++ {
			if next := id + "-" + strconv.Itoa(i); !taken[next] {
				return next
			}
		}
	})
}

// blackfridaySlug is Hugo's SanitizedAnchorName.
func blackfridaySlug(heading string) string {
	var b strings.Builder
	dash := false // a run of other characters since the last letter or number
	for _, r := range heading {
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
