package docir

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/docir/docir/address"
)

// LinkRef is one link as a markdown file writes it: part of the IR, before
// anything is resolved. A record lists the links before its first heading
// (Record.Links); each section, the links in its own text (Section.Links).
type LinkRef struct {
	// Target is the destination as written, backslash escapes and entities
	// decoded; for a ref or relref shortcode, its path argument.
	Target string `json:"target"`
	Kind   string `json:"kind"` // one of the Link* kinds
	Line   int    `json:"line"` // 1-based line of the file where the link starts
	// Column is the 1-based byte column of the link's first byte in that
	// line (as Go's compilers and ripgrep count columns); 0 in a record
	// made before markdown rules 24.
	Column int `json:"column,omitempty"`
	// Alt is a wikilink's part after '|': its text as Obsidian writes
	// it ([[Note|text]]), its page as a GitHub wiki does ([[text|Page]]).
	Alt string `json:"alt,omitempty"`
	// Undefined marks a full or collapsed reference ([text][label],
	// [label][]) whose label the file defines nowhere: CommonMark shows
	// it as text, so the link the author wrote is lost. Target is the
	// label as written; the link is broken (ReasonNoDefinition).
	Undefined bool `json:"undefined,omitempty"`
}

// How a link is written (LinkRef.Kind, Link.Kind).
const (
	LinkInline     = "inline"    // [text](target "title")
	LinkReference  = "reference" // [text][label], [label][], [label] with a definition [label]: target
	LinkAutolink   = "autolink"  // <https://…>, <user@host>, a bare http(s):// URL
	LinkHugoRef    = "ref"       // Hugo's {{< ref "path" >}}
	LinkHugoRelRef = "relref"    // Hugo's {{< relref "path" >}}
	LinkWiki       = "wikilink"  // [[Note]], [[Note#Heading|text]], ![[file]] (Obsidian's, Foam's)
	LinkHTML       = "html"      // <a href="…">, <area href>, an MDX component's href="…" (<LinkCard href="/x/" />)
)

// What a link leads to (Link.Status).
const (
	LinkResolved  = "resolved"  // a document or section of the store: Address
	LinkBroken    = "broken"    // an internal link to nothing: Reason is no_document, no_section or no_definition
	LinkExternal  = "external"  // a URL with a scheme (https:, mailto:, …): URL; never fetched
	LinkUnchecked = "unchecked" // internal, but nothing docir can check: Reason says why
)

// Why a link is unchecked (Link.Reason beside LinkUnchecked). Broken links
// use ReasonNoDocument and ReasonNoSection, and ReasonNoDefinition.
const (
	ReasonNotMarkdown    = "not_markdown"    // a file that is not markdown (an image, a PDF, a .html page of no .md)
	ReasonOutsideSources = "outside_sources" // a path that leaves every source folder
	ReasonOutsideBase    = "outside_base"    // a root-relative path outside the site base (links.base)
	ReasonTemplate       = "template"        // a template expression other than ref/relref ({{% eturl x %}})
	ReasonIgnored        = "ignored"         // the target matches a links.ignore pattern
	ReasonWikilink       = "wikilink"        // a wikilink, where links.wikilinks is off (not a vault)
	// ReasonNoDefinition: a reference whose label its file does not
	// define (LinkRef.Undefined), broken; markdownlint's MD052.
	ReasonNoDefinition = "no_definition"
)

// Link is one link resolved against one generation of a store.
type Link struct {
	// From is the section that holds the link, as an address get accepts
	// (id#slug), or the document id for a link before its first heading.
	From   string `json:"from"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"` // LinkRef.Column
	Target string `json:"target"`           // as written (LinkRef.Target)
	Kind   string `json:"kind"`
	Status string `json:"status"`
	// Address is where a resolved link leads (id, or id#slug); for a link
	// broken by no_section, the document it reaches and the heading it
	// asks for.
	Address string `json:"address,omitempty"`
	URL     string `json:"url,omitempty"`    // an external link's URL
	Reason  string `json:"reason,omitempty"` // why it is broken or unchecked
	// ResolvesWith, on a broken link, names the link rules that are off
	// in the store's configuration and with which the link would resolve
	// (the fewest that do; LinkRule*), so that a check of a site written
	// for Hugo says which setting it lacks rather than only how many links
	// break. Worked out when a read returns the link, never kept.
	ResolvesWith []string `json:"resolves_with,omitempty"`
}

// LinkSet is the reply of a links read for one address: the links leaving
// the document (or the section, with its subsections) and the links of
// the store that lead into it. It never carries a body.
type LinkSet struct {
	Address    string      `json:"address"` // as asked
	ID         string      `json:"id"`
	Title      string      `json:"title"`
	Path       string      `json:"path"`
	Store      string      `json:"store"`
	Generation uint64      `json:"generation"`
	Section    *SectionRef `json:"section,omitempty"`
	Outgoing   []Link      `json:"outgoing"` // in document order
	// Incoming are the links that resolve to the document (for a section:
	// to the section or one of its subsections), by source address and
	// line; From names where each one is.
	Incoming []Link `json:"incoming"`
	// Next, on a doc_id read, is the cursor of the next page while links
	// remain: a page holds the set's links from where its cursor says, the
	// outgoing ones, then the incoming ones, in the order above. Absent on
	// the last page, and on every set of a doc_ids read.
	Next string `json:"next,omitempty"`
	// More is where the next page starts when links remain (the session
	// cuts Next from it); never sent.
	More *PagePos `json:"-"`
}

// LinksParams asks for the links of documents or sections, keyed like
// GetParams: DocID answers with LinkResult, DocIDs with LinksResult.
type LinksParams struct {
	DocID  *string  `json:"doc_id,omitempty"`
	DocIDs []string `json:"doc_ids,omitempty"`
	// Limit and Cursor page the links of a doc_id read (the outgoing,
	// then the incoming), as CheckParams's page its links; a doc_ids read
	// takes neither.
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	Selector
}

// LinkResult is the reply to a doc_id links read.
type LinkResult struct {
	Links LinkSet `json:"links"`
}

// LinksResult is the reply to a doc_ids links read: one LinkSet per
// address that resolved, in request order, and the addresses that did not.
type LinksResult struct {
	Links    []LinkSet `json:"links"`
	Missing  []Missing `json:"missing"`
	Warnings []string  `json:"warnings,omitempty"`
}

// LinkResolution is what a store made of one address of a links read.
type LinkResolution struct {
	Set         *LinkSet // nil when the address did not resolve
	Reason      string   // a Reason* when Set is nil
	Suggestions []string // as Resolution.Suggestions
}

// LinksResolved is a Reader's answer to a links read: one LinkResolution
// per address, in order, and the warnings of stores that could not answer.
type LinksResolved struct {
	Items    []LinkResolution
	Warnings []string
}

// AddLinks counts one link set as Add counts a document, by an estimate
// of its JSON: the text of its links and an allowance for the keys and
// punctuation around each. Its reply_too_large names the set's links and
// that estimate, not a file's size. It still says "after N of M addresses",
// where N is the set that passed the bound (Add says "at address N of M"),
// because workspace's TestLinksStopAtTheReplyBound pins those words.
func (t *Tally) AddLinks(s *LinkSet, done, total int) error {
	n := len(s.Address) + len(s.ID) + len(s.Title) + len(s.Path) + len(s.Store) + 128
	if s.Section != nil {
		n += len(s.Section.Slug) + len(s.Section.Heading) + 48
	}
	for _, ls := range [][]Link{s.Outgoing, s.Incoming} {
		for i := range ls {
			n += LinkBytes(&ls[i])
		}
	}
	if !t.add(n) {
		return nil
	}
	return Errorf(CodeReplyTooLarge,
		"the links asked for pass the %d-byte reply bound after %d of %d addresses (%s: %d outgoing and %d incoming links, about %d bytes of reply); ask for fewer addresses, or for sections (id#heading), in several calls",
		t.Bound, done, total, s.Address, len(s.Outgoing), len(s.Incoming), n)
}

// LinkBytes is what a Tally counts for one link of a set: its strings and
// room for their names, so that a read gathering links one by one can
// stop where AddLinks would.
func LinkBytes(l *Link) int {
	n := len(l.From) + len(l.Target) + len(l.Kind) + len(l.Status) + len(l.Address) + len(l.URL) + len(l.Reason) + 64
	for _, r := range l.ResolvesWith {
		n += len(r) + 3
	}
	return n
}

// GetLinks is a doc_ids links read through r, its link sets and misses
// bounded at maxBytes (see Reader.Links); a list of addresses that would
// pass it even as misses is refused before anything is read
// (CheckReplyFloor: a link set counts more than a miss, as a document does).
func GetLinks(ctx context.Context, r Reader, addrs []address.Address, maxBytes int) (LinksResult, error) {
	if err := CheckReplyFloor(addrs, maxBytes); err != nil {
		return LinksResult{}, err
	}
	res, err := r.Links(ctx, addrs, maxBytes)
	if err != nil {
		return LinksResult{}, err
	}
	if len(res.Items) != len(addrs) {
		return LinksResult{}, Errorf(CodeInternal, "a store answered %d link sets for %d addresses", len(res.Items), len(addrs))
	}
	out := LinksResult{Links: []LinkSet{}, Missing: []Missing{}, Warnings: res.Warnings}
	for i, item := range res.Items {
		if item.Set != nil {
			out.Links = append(out.Links, *item.Set)
		} else {
			out.Missing = append(out.Missing, Missing{Address: addrs[i].String(), Reason: item.Reason, Suggestions: item.Suggestions})
		}
	}
	return out, nil
}

// GetLinksOne is a doc_id links read through r: the link set, or a
// not_found error as GetOne's.
func GetLinksOne(ctx context.Context, r Reader, a address.Address, maxBytes int) (LinkResult, error) {
	res, err := r.Links(ctx, []address.Address{a}, maxBytes)
	if err != nil {
		return LinkResult{}, err
	}
	return oneLinkSet(a, res)
}

// oneLinkSet is the reply of a doc_id links read from a store's answer.
func oneLinkSet(a address.Address, res LinksResolved) (LinkResult, error) {
	if len(res.Items) != 1 {
		return LinkResult{}, Errorf(CodeInternal, "%s: a store answered %d link sets for one address", a, len(res.Items))
	}
	if s := res.Items[0].Set; s != nil {
		return LinkResult{Links: *s}, nil
	}
	warnings := res.Warnings
	if s := res.Items[0].Suggestions; len(s) > 0 {
		warnings = append([]string{"did you mean " + strings.Join(s, ", ") + "?"}, warnings...)
	}
	return LinkResult{}, NotFound(a, res.Items[0].Reason, warnings)
}

// GetLinksPage is a doc_id links read through r: one page of the link set
// (Reader.LinksPage), or a not_found error as GetLinksOne's.
func GetLinksPage(ctx context.Context, r Reader, a address.Address, p Page, maxBytes int) (LinkResult, error) {
	res, err := r.LinksPage(ctx, a, p, maxBytes)
	if err != nil {
		return LinkResult{}, err
	}
	return oneLinkSet(a, res)
}

// CheckParams asks for the broken links of a store's generation.
type CheckParams struct {
	// External lists the external links too (never fetched).
	External bool `json:"external,omitempty"`
	// Limit is the most links one page lists (1 to MaxPageLimit); 0: as
	// many as the reply bound holds.
	Limit int `json:"limit,omitempty"`
	// Cursor is a previous page's Next: the page that follows it, on the
	// generation it was cut from.
	Cursor string `json:"cursor,omitempty"`
	Selector
	// MaxBytes bounds the JSON of a page (the result, its Next included):
	// the page ends before the link that would pass it (CheckResult.More),
	// and a first link that alone passes it is reply_too_large. 0 is
	// docir serve's (wire.MaxPageBytes), less than 0 none. The caller
	// sets it; it is never sent.
	MaxBytes int `json:"-"`
	// Page is where the page starts and how many links it may list, as the
	// session reads them from Limit and Cursor; never sent.
	Page Page `json:"-"`
}

// CheckResult is the reply of check: every broken internal link and
// anchor of the local store's generation, by source and line, and with
// External, every external link.
type CheckResult struct {
	Generation uint64        `json:"generation"`
	Documents  int           `json:"documents"` // documents whose links were checked: all of the generation
	Counts     LinkCounts    `json:"counts"`
	Broken     []CheckedLink `json:"broken"`            // by source id, then line
	External   []CheckedLink `json:"external,omitzero"` // with External (a list, [] when there is none): by source id, then line
	// Next is the cursor of the next page while links remain (the page
	// ended at its limit or at the reply bound); absent on the last page.
	// Counts and Documents are the whole generation's on every page.
	Next string `json:"next,omitempty"`
	// More is where the next page starts when links remain (the session
	// cuts Next from it); never sent.
	More *PagePos `json:"-"`
}

// LinkCounts counts the links of a generation by status.
type LinkCounts struct {
	Resolved  int `json:"resolved"`
	Broken    int `json:"broken"`
	External  int `json:"external"`
	Unchecked int `json:"unchecked"`
}

// CheckedLink is a link with the path of the file that holds it (below
// its source folder, as Document.Path), for a report to point at.
type CheckedLink struct {
	Link
	Path string `json:"path"`
}

// ResolvesWithText is "; resolves with links.x and links.y" for a broken
// link that those rules would resolve (ResolvesWith), "" for any other:
// the one wording every text output gives it.
func (l Link) ResolvesWithText() string {
	if len(l.ResolvesWith) == 0 {
		return ""
	}
	return "; resolves with " + strings.Join(l.ResolvesWith, " and ")
}

// The link rules a broken link may resolve with (CheckedLink.ResolvesWith),
// named as docir.yaml spells them (docs/links.md).
const (
	LinkRuleIgnoreCase    = "links.ignore_case"
	LinkRuleDefinitionIDs = "links.definition_ids"
	LinkRuleRootFallback  = "links.root_fallback"
	LinkRuleMkDocsAnchors = "links.mkdocs_anchors"
	// LinkRuleBase is links.base, which ResolvesWith names with the base
	// a root-relative link resolves with: BaseRule.
	LinkRuleBase = "links.base"
)

// BaseRule is how ResolvesWith names the site base (links.base) with which
// a root-relative link resolves: "links.base: /docs/", as docir.yaml
// writes it.
func BaseRule(base string) string {
	return LinkRuleBase + ": " + base
}

// ChangesParams asks what changed between two retained generations of the
// local store: Since (a number, or the generation of a binding receipt,
// SinceReceipt: exactly one of the two) to Until (0: the current
// generation).
type ChangesParams struct {
	Since        uint64 `json:"since,omitempty"`
	SinceReceipt string `json:"since_receipt,omitempty"`
	Until        uint64 `json:"until,omitempty"`
	// Limit and Cursor page the addresses, as CheckParams's do.
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	// MaxBytes and Page are as CheckParams's; never sent.
	MaxBytes int  `json:"-"`
	Page     Page `json:"-"`
}

// ChangesResult is the reply of changes: the documents and sections added,
// changed and removed from generation Since to generation Until, as
// addresses get accepts (added and changed ones on Until, removed ones on
// Since). A section is changed when its own text (its heading line to the
// next heading of any level) changed; sections are listed for changed
// documents only (an added or removed document's sections are its own).
type ChangesResult struct {
	Since     uint64      `json:"since"`
	Until     uint64      `json:"until"`
	Documents ChangeLists `json:"documents"`
	Sections  ChangeLists `json:"sections"`
	// Next and More are as CheckResult's: a page holds the addresses
	// from where its cursor says, in the order documents.added,
	// documents.changed, documents.removed, then the sections of each
	// changed document (added, changed, removed).
	Next string   `json:"next,omitempty"`
	More *PagePos `json:"-"`
}

// ChangeLists are addresses added, changed and removed, each sorted.
type ChangeLists struct {
	Added   []string `json:"added"`
	Changed []string `json:"changed"`
	Removed []string `json:"removed"`
}

// ErrBrokenLinks is wrapped by the CLI's error of a check that found
// broken links (exit 1).
var ErrBrokenLinks = errors.New("broken links")

// BrokenLinksError is the CLI's error of a check that found n broken links
// in docs documents.
func BrokenLinksError(n, docs int) error {
	return &Error{Code: CodeBrokenLinks, Message: fmt.Sprintf("%d broken link(s) in %d document(s)", n, docs), Err: ErrBrokenLinks}
}
