package main

import (
	"cmp"
	"context"
	"fmt"
	"github.com/docir/docir/address"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/render"
	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/links"
	"github.com/docir/docir/workspace"
)

// CheckOptions is everything `docir check` needs.
type CheckOptions struct {
	IO       *IOStreams
	Reader   func() (docir.Reader, error)
	WantText func() (bool, error)
	Evidence func(method string, params, result any) error
	// Sources are the configured source folders, to name each broken
	// link's file as a path from the working folder.
	Sources func() ([]store.Source, error)
	// Changes, when set, tells what changed in the source folders srcs
	// (Sources') since the current generation (nil for a pinned check): a
	// check reads the index, so a file edited since passes or fails as it
	// was.
	Changes func(ctx context.Context, srcs []store.Source) (*statusChanges, error)
	// Generation reads what the hints that weigh a setting need of
	// generation gen (genLinks): a hint must not advise a setting that
	// takes more links out of the check than it resolves, and the broken
	// links alone do not say how many resolved ones it would take. When it
	// is nil or fails, those hints (a site base, a folder to index) are
	// not given.
	Generation func(ctx context.Context, gen uint64) (*genLinks, error)
	// Nearest is what `docir get a` suggests of the address a, a section
	// its document lacks, in generation gen (workspace.SuggestSections,
	// as get calls it): a hint that names the read must not promise more
	// than it gives. When it is nil or fails, get is taken to suggest
	// nothing.
	Nearest func(ctx context.Context, gen uint64, a address.Address) ([]string, error)

	External bool
	Format   string // check's own --format: "" (the global one), auto, json, text, github
}

func newCmdCheck(f *Factory, runF func(context.Context, *CheckOptions) error) *cobra.Command {
	reader := func() (docir.Reader, error) {
		f.noStaleCheck = true // check walks the files itself (checkStale)
		return f.Reader()
	}
	opts := &CheckOptions{IO: f.IO, Reader: reader, WantText: f.wantText, Evidence: f.recordEvidence, Sources: f.sources, Changes: f.changesIn, Generation: f.genLinks,
		Nearest: f.nearestSections}
	cmd := &cobra.Command{
		Use:   "check [--external] [--format github]",
		Short: "Every broken internal link and anchor, with its file and line; exit 1 when any",
		Long: `List every broken internal link of the corpus: a link to no document, or to a
heading the document lacks, with the file, line and column that hold it and its
section's address. Exit 1 when any is broken, 0 when none is.

The list is kept by the index (docir index resolves the links of what
changed), so a check costs a read, not a parse of the corpus. External URLs
are never fetched; --external lists them.

--format github prints GitHub Actions annotations (::error file=…,line=…,col=…::…),
one per broken link, for a docs-CI step (docs/links.md).`,
		Example: `  docir check
  docir check --format github     # in CI: annotations on the pull request
  docir check --external --jq '.external[].url' | sort -u`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch opts.Format {
			case "", "auto", "json", "text", "github":
			default:
				return docir.Errorf(docir.CodeUsage, "--format %q: want auto, json, text or github", opts.Format)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return checkRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.External, "external", false, "list the external links (URLs) too; they are never fetched")
	// A flag of its own: the global --format has no github.
	cmd.Flags().StringVar(&opts.Format, "format", "", "output format: auto, json, text, or github (GitHub Actions annotations)")
	_ = cmd.Flags().SetAnnotation("format", ownFlag, []string{"true"}) // not the shared --format: bindFlags leaves it alone
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"auto", "json", "text", "github"}, cobra.ShellCompDirectiveNoFileComp))
	f.addFlags(cmd, storeFlags|jqFlag|verboseFlag|pinFlagSet)
	return cmd
}

func checkRun(ctx context.Context, opts *CheckOptions) error {
	var text bool
	switch opts.Format {
	case "github":
		if opts.IO.jq != nil {
			return docir.Errorf(docir.CodeUsage, "--jq filters JSON output: drop --format github")
		}
	case "json":
	case "text":
		if opts.IO.jq != nil {
			return docir.Errorf(docir.CodeUsage, "--jq filters JSON output: drop --format text")
		}
		text = true
	default:
		var err error
		if text, err = opts.WantText(); err != nil {
			return err
		}
	}
	r, err := opts.Reader()
	if err != nil {
		return err
	}
	p := docir.CheckParams{External: opts.External, MaxBytes: MaxGetBytes}
	res, err := r.Check(ctx, p)
	if err == nil && res.More != nil {
		// The command line lists the whole report or nothing.
		err = docir.Errorf(docir.CodeReplyTooLarge,
			"check: the links listed pass the %d-byte bound after %d of %d broken links and %d of %d external ones; fix some, or leave targets out of the check with links.ignore (docs/links.md)",
			MaxGetBytes, len(res.Broken), res.Counts.Broken, len(res.External), res.Counts.External)
	}
	if err == nil {
		err = opts.Evidence(wire.MethodCheck, p, res)
	}
	if err != nil {
		return err
	}
	srcs, err := opts.Sources()
	if err != nil {
		return err
	}
	base, _ := os.Getwd()
	if opts.Format == "github" {
		base = repoRoot(base)
	}
	fileOf := fileNamer(srcs, base)
	switch {
	case opts.Format == "github":
		err = printCheckGitHub(opts.IO.Out, res, fileOf)
	case text:
		err = printCheckText(opts.IO.Out, res, fileOf)
	default:
		err = opts.IO.printJSON(res)
	}
	if err != nil {
		return err
	}
	checkStale(ctx, opts, srcs, res.Generation)
	if n := len(res.Broken); n > 0 {
		docs := map[string]bool{}
		for _, l := range res.Broken {
			docs[docOf(l)] = true
		}
		// Read once, and only when a hint has a setting to weigh.
		gen := sync.OnceValue(func() *genLinks {
			if opts.Generation == nil {
				return nil
			}
			g, _ := opts.Generation(ctx, res.Generation)
			return g
		})
		nearest := func(a address.Address) (got []string, known bool) {
			if opts.Nearest == nil {
				return nil, false
			}
			got, err := opts.Nearest(ctx, res.Generation, a)
			return got, err == nil
		}
		hints := checkHints(res.Broken, gen, nearest)
		if h := siteRootHint(res.Broken, srcs, gen); h != "" {
			hints = append([]string{h}, hints...)
		}
		if h := frontMatterIDHint(ctx, r, res.Broken, srcs); h != "" {
			hints = append(hints, h)
		}
		for _, h := range hints {
			fmt.Fprintf(opts.IO.ErrOut, "docir: %s\n", h)
		}
		return docir.BrokenLinksError(n, len(docs))
	}
	return nil
}

// checkStale says on stderr when files changed since generation gen was
// indexed: a check is a gate (CI, a pre-commit hook), and it reads the
// links the index kept, so a link broken by an edit not yet indexed
// passes. A read's own check looks at folder times only, which an edit
// in place leaves alone; check walks the files (a stat each, no read), as
// status does. A walk that fails says nothing: status reports it.
func checkStale(ctx context.Context, opts *CheckOptions, srcs []store.Source, gen uint64) {
	if opts.Changes == nil {
		return
	}
	c, err := opts.Changes(ctx, srcs)
	if err != nil || c == nil {
		return
	}
	if n := len(c.Added) + len(c.Changed) + len(c.Removed); n > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "docir: warning: %s changed since generation %d was indexed (%d added, %d changed, %d removed); check read the index, not them: run docir index first (docir status lists them)\n",
			render.Counted(n, "file", "files"), gen, len(c.Added), len(c.Changed), len(c.Removed))
	} else if c.SourcesChanged {
		fmt.Fprintln(opts.IO.ErrOut, "docir: warning: the sources changed since they were indexed; check read the index: run docir index first")
	}
	if c.SettingsChanged {
		// The link rules decide what is broken.
		fmt.Fprintf(opts.IO.ErrOut, "docir: warning: the index settings (%s's links, front_matter, exclude, max_file_bytes, or this docir's markdown rules) changed since generation %d was indexed; check read the links resolved with the old ones: run docir index first\n", ConfigFileName, gen)
	}
}

// checkHints says how many broken links resolve with link rules the
// store has off (CheckedLink.ResolvesWith), each rule's share; how many
// root-relative ones resolve with another site base (docir.BaseRule;
// with links.ignore_case where they take both), the one that resolves
// the most, and how many links that base would take out of the check
// (baseHint) — unless that is more than it resolves: then no base is
// named; and the target broken most
// often, of the links none of that touches, when several links share it:
// a site written for a generator breaks by the hundred for one setting
// (Hugo lower-cases URLs, ids its definition lists, and its docs' link
// render hook gives `[term](g)` a meaning; vscode-docs serves its docs
// folder at /docs/). links.ignore is named for the links no setting
// resolves only: ignoring a target a setting resolves would hide its
// real breakage; and never for links to a missing section of a page of
// the sources (no_section), the site's own breakage: the section broken
// most often, when several links share it, is named with what get says
// of it (sectionHint; nearest is get's suggestions of an address).
func checkHints(broken []docir.CheckedLink, gen func() *genLinks, nearest func(address.Address) ([]string, bool)) []string {
	rules, bases := map[string]int{}, map[string]int{}
	basePath := map[string]string{} // a key of bases -> its links.base
	fixed, based := 0, 0
	for _, l := range broken {
		if b, ok := baseOf(l.ResolvesWith); ok {
			// A base, alone or with ignore_case (store fillBase): one setting.
			var with []string
			for _, r := range l.ResolvesWith {
				if r != docir.BaseRule(b) {
					r += ": true"
				}
				with = append(with, r)
			}
			key := strings.Join(with, " and ")
			bases[key]++
			basePath[key] = b
			based++
			continue
		}
		for _, r := range l.ResolvesWith {
			rules[r]++
		}
		if len(l.ResolvesWith) > 0 {
			fixed++
		}
	}
	var out []string
	if fixed > 0 {
		var each []string
		for _, r := range slices.Sorted(maps.Keys(rules)) {
			each = append(each, fmt.Sprintf("%s: true for %d", r, rules[r]))
		}
		out = append(out, fmt.Sprintf("%d of the broken links resolve with link rules this store has off (docir.yaml; docs/links.md): %s", fixed, strings.Join(each, ", ")))
	}
	with, n := mostOf(bases, 0)
	base, baseLine := baseHint(broken, basePath[with], with, n, based-n, gen)
	targets := map[string]int{}           // by the page a target names (targetPage)
	forms := map[string]map[string]bool{} // a page's targets as written
	sections := map[string]int{}          // the addresses of the no_section links
	folders := map[string]int{}           // the folders climbed to by links to no file (upFolder)
	for _, l := range broken {
		if len(l.ResolvesWith) > 0 || base != "" && outsideBase(l.Link, base) || l.Reason == docir.ReasonNoDefinition {
			continue // a label undefined names no target: links.ignore is no fix
		}
		// A link that reaches a page of the sources and misses its
		// anchor (no_section) is this site's own breakage (a heading
		// renamed or removed), which links.ignore would hide.
		if l.Reason == docir.ReasonNoSection && l.Address != "" {
			sections[l.Address]++
			continue
		}
		page := targetPage(l.Target)
		targets[page]++
		if forms[page] == nil {
			forms[page] = map[string]bool{}
		}
		forms[page][l.Target] = true
		if f := upFolder(l.Target); f != "" && l.Reason == docir.ReasonNoDocument {
			folders[f]++ // a sibling site's page is no file here
		}
	}
	if baseLine != "" {
		out = append(out, baseLine)
	}
	top, n := mostOf(targets, 1)
	if f, m := mostOf(folders, max(n, 1)); f != "" {
		out = append(out, siblingHint(folders, f, m))
	} else if top != "" {
		out = append(out, ignoreHint(top, n, forms[top]))
	}
	if a, m := mostOf(sections, 1); a != "" {
		out = append(out, sectionHint(a, m, gen, nearest))
	}
	return out
}

// sectionHint is the line that names the address a, which m broken
// links lead to and whose document lacks its section, with what a reader
// can do of it, promising no more than that gives: `docir get a` when get
// suggests a section (nearest, workspace.SuggestSections as get calls
// it); else a section of that slug in another document, which links of
// the generation resolve to (genLinks.sectionNamed: prometheus's
// api.md links "#staleness", a section of basics.md); else that get
// suggests none (said only when get was asked: with no local store to
// ask, nothing is said of it). A check said "docir get … names the
// nearest" where get named nothing.
func sectionHint(a string, m int, gen func() *genLinks, nearest func(address.Address) ([]string, bool)) string {
	id, slug, _ := strings.Cut(a, "#")
	line := fmt.Sprintf("%d of the broken links are to %s, a section %s does not have (a heading renamed or removed?)", m, strconv.Quote(slug), id)
	var got []string
	known := false
	if parsed, err := address.Parse(a); err == nil {
		got, known = nearest(parsed)
	}
	if len(got) > 0 {
		return line + fmt.Sprintf("; docir get %s names the nearest", shellQuote(a))
	}
	if known {
		line += "; get suggests no section of " + id
	}
	if g := gen(); g != nil {
		if other := g.sectionNamed(slug, id); other != "" && known {
			line += fmt.Sprintf(", but %s is one of that name", other)
		} else if other != "" {
			line += fmt.Sprintf("; %s is one of that name", other)
		}
	}
	return line
}

// baseHint is the line that names the site base base (links.base; with
// links.ignore_case too where with, its key in checkHints, names both),
// which resolves n of the broken links and others more with another base,
// and base again; "" for both when base is "" or would take more links
// out of the check than it resolves. It takes out the broken links
// outside it, which become unchecked (outside_base), and the resolved
// links it would lose (genLinks.lostUnder): on Starlight's docs, whose
// translations link the English pages an untranslated one is served by
// (/uk/guides/x/), following base /uk/ took the resolved links from 2055
// to 645 and left 1476 unchecked (a new-user review); MDN's
// /en-US/docs/Web/URI/Schemes/ is a path that, cut short, names a page.
// A base that cannot be weighed (gen gives nil) is not named.
func baseHint(broken []docir.CheckedLink, base, with string, n, others int, gen func() *genLinks) (string, string) {
	if base == "" {
		return "", ""
	}
	outside := 0
	for _, l := range broken {
		if len(l.ResolvesWith) == 0 && outsideBase(l.Link, base) {
			outside++
		}
	}
	if outside > n {
		return "", "" // no need to read the resolved links
	}
	g := gen()
	if g == nil {
		return "", ""
	}
	lost := g.lostUnder(base, strings.Contains(with, docir.LinkRuleIgnoreCase))
	if outside+lost > n {
		return "", ""
	}
	h := fmt.Sprintf("%d of the broken links are root-relative and resolve with %s, the URL path the sources are served at (docir.yaml; docs/links.md)", n, with)
	if others > 0 {
		h += fmt.Sprintf("; %d more with another base", others)
	}
	if outside > 0 {
		h += fmt.Sprintf("; it leaves %d more, outside it, unchecked (outside_base)", outside)
	}
	if lost > 0 {
		h += fmt.Sprintf("; %d links that resolve now would not (outside it, or naming another page below it)", lost)
	}
	return base, h
}

// frontMatterIDHint says, when ids are read whole (no source reads them
// by name), how many broken links (no_document) name a page by the
// front-matter id its file does not spell — Docusaurus's way: "/users/
// configs" and "environment-setup" for pages whose `id:` is configs and
// environment-setup (a React Native review: `get environment-setup` read
// the page that check said was no document, and no hint named the
// setting) — and that front_matter_id: name reads them so. At most
// maxIDProbe distinct names are looked up (a link set each); "" for none.
func frontMatterIDHint(ctx context.Context, r docir.Reader, broken []docir.CheckedLink, srcs []store.Source) string {
	for _, s := range srcs {
		if s.FrontMatterID == store.FrontMatterIDName {
			return ""
		}
	}
	count := map[string]int{}
	for _, l := range broken {
		p := links.TargetPath(l.Target)
		if l.Reason != docir.ReasonNoDocument || strings.Contains(p, "://") {
			continue
		}
		if name := strings.TrimSuffix(path.Base(strings.TrimSuffix(p, "/")), ".md"); name != "" && name != "." && name != "/" {
			count[name]++
		}
	}
	names := slices.SortedFunc(maps.Keys(count), func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	var addrs []address.Address
	for _, name := range names[:min(len(names), maxIDProbe)] {
		if a, err := address.Parse(name); err == nil && a.Heading == "" {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) == 0 {
		return ""
	}
	res, err := r.Links(ctx, addrs, 0)
	if err != nil {
		return ""
	}
	n, example := 0, ""
	for i, it := range res.Items {
		// A page whose file spells the name is found by its path: the
		// link is broken for another reason.
		if it.Set != nil && i < len(addrs) && path.Base(it.Set.Path) != addrs[i].ID+".md" {
			n += count[addrs[i].ID]
			if example == "" {
				example = fmt.Sprintf("%q is %s's", addrs[i].ID, it.Set.Path)
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of the broken links name a page by its front-matter id (%s); with front_matter_id: name (docir.yaml's sources; docs/ingest.md) a link's path names a page by its folder and id, as Docusaurus reads them", n, example)
}

// maxIDProbe bounds the names frontMatterIDHint looks up.
const maxIDProbe = 32

// siteRootHint says, when a folder of a source is where the site is
// served from, to index that folder as the source: a repository indexed
// at its root whose docs live in www/docs/ (GoReleaser's MkDocs) or docs/
// (Helm's Docusaurus) writes "/customization/ko" for
// www/docs/customization/ko.md. That advice drops every document outside
// the folder, so it needs evidence a reader can state: the folder holds
// the pages of the links it counts (of the folders that hold a linking
// page, the one that resolves the most, the shorter on a tie), and those
// links are more than one, more than half of the broken root-relative
// links tried (none that a rule or base resolves), and more than the
// links indexing it alone would take out of the check
// (genLinks.outsideFolder). One link written "/x.md" in a/b/y.md for
// a/b/x.md is no evidence: it named a/b/ and dropped README.md. A link
// names a file as links.md says (x, x.md, x/index.md, x/_index.md,
// x/README.md). Else, when a folder at the top of a source resolves more
// of the links tried, from any page, than the links to the most broken
// single target, the site serves that folder at its root and the rest
// elsewhere (the Docker docs serve content/manuals/ at /, Hugo's
// permalinks): the folder as a source of its own, with the prefix its ids
// keep, resolves both its URLs and its content paths, and no document is
// dropped. At most maxRootProbe links are tried, with a few stats each.
// "" when no folder has that evidence.
func siteRootHint(broken []docir.CheckedLink, srcs []store.Source, gen func() *genLinks) string {
	t := probeRoots(broken, srcs)
	if best, n := mostOf(t.held, 1); best != "" && 2*n > t.tried {
		s, dir := t.src[best], best[strings.IndexByte(best, 0)+1:]
		if g := gen(); g != nil {
			if out := g.outsideFolder(s.Path, dir, broken); out < n {
				h := fmt.Sprintf("%d of the %d broken root-relative links tried name files below %s: the site is served from that folder; index it as the source (sources: [{path: %s, prefix: %s}] keeps the ids; docs/links.md)",
					n, t.tried, strconv.Quote(dir+"/"), filepath.Join(s.Path, filepath.FromSlash(dir)), strings.TrimSuffix(path.Join(s.Prefix, dir), "/"))
				if out > 0 {
					h += fmt.Sprintf("; %d links leave the check with the documents outside it, or lead out of it", out)
				}
				return h
			}
		}
	}
	best, n := mostOf(t.by, 0)
	if best == "" {
		return ""
	}
	s, dir := t.src[best], best[strings.IndexByte(best, 0)+1:]
	if _, most := mostOf(t.targets, 0); strings.Contains(dir, "/") || n <= most {
		return ""
	}
	parent := "{path: " + s.Path + ", exclude: [" + dir + "/]"
	if s.Prefix != "" {
		parent += ", prefix: " + s.Prefix
	}
	return fmt.Sprintf("%d of the %d broken root-relative links tried name files below %s: the site serves that folder at its root; index it as a source of its own with the prefix its ids keep (sources: [%s}, {path: %s, prefix: %s}]; docs/links.md)",
		n, t.tried, strconv.Quote(dir+"/"), parent, filepath.Join(s.Path, filepath.FromSlash(dir)), strings.TrimSuffix(path.Join(s.Prefix, dir), "/"))
}

// rootTries is what probeRoots found. Its keys name a folder of a source:
// the source's path, NUL, the folder below it.
type rootTries struct {
	by      map[string]int          // the links tried that a folder resolves
	held    map[string]int          // of those, the ones whose page it holds
	src     map[string]store.Source // a key's source
	targets map[string]int          // the links tried, by target
	tried   int
}

// probeRoots tries the broken root-relative links that no rule or base
// resolves (at most maxRootProbe) below the folders of each source that
// hold the linking page and the folders at the top of each source.
func probeRoots(broken []docir.CheckedLink, srcs []store.Source) rootTries {
	t := rootTries{by: map[string]int{}, held: map[string]int{}, src: map[string]store.Source{}, targets: map[string]int{}}
	named := map[string]bool{}   // a path looked up -> whether it names a file
	top := map[string][]string{} // a source -> its folders at the top
	for _, s := range srcs {
		entries, _ := os.ReadDir(s.Path)
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				top[s.Path] = append(top[s.Path], e.Name())
			}
		}
	}
	for _, l := range broken {
		p := links.TargetPath(l.Target)
		if len(l.ResolvesWith) > 0 || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || l.Kind == docir.LinkHugoRef || l.Kind == docir.LinkHugoRelRef {
			continue
		}
		if t.tried == maxRootProbe {
			break
		}
		t.tried++
		t.targets[l.Target]++
		rel := strings.Trim(p, "/")
		if rel != "" && !filepath.IsLocal(filepath.FromSlash(rel)) {
			continue // climbs out of any folder: no file of the sources
		}
		holds := map[string]bool{} // the folders that hold the linking page
		for dir := path.Dir(l.Path); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
			holds[dir] = true
		}
		for _, s := range srcs {
			dirs := maps.Clone(holds)
			for _, dir := range top[s.Path] {
				dirs[dir] = true
			}
			for dir := range dirs {
				f := filepath.Join(s.Path, filepath.FromSlash(dir), filepath.FromSlash(rel))
				names, ok := named[f]
				if !ok {
					// A site links a page from many: each path is
					// looked up once.
					names = namesFile(f)
					named[f] = names
				}
				if names {
					key := s.Path + "\x00" + dir
					t.by[key]++
					t.src[key] = s
					if holds[dir] {
						t.held[key]++
					}
				}
			}
		}
	}
	return t
}

// maxRootProbe bounds the links siteRootHint tries.
const maxRootProbe = 500

// namesFile says a link's path p (joined to a folder) names a file as a
// link does: p itself, p.md, or p/index.md, p/_index.md, p/README.md.
func namesFile(p string) bool {
	for _, c := range []string{p, p + ".md", filepath.Join(p, "index.md"), filepath.Join(p, "_index.md"), filepath.Join(p, "README.md")} {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// siblingHint names the folders beside the sources that broken links
// climb into: top, with m links, and the others its links climb as far
// to (the Cargo book links to nine sibling books, "../../reference/",
// "../../rustc/", …), at most maxSiblings of them by count, each a
// links.ignore pattern of its own: a pattern for the climb alone
// ("../../*") would leave out links that resolve too.
func siblingHint(folders map[string]int, top string, m int) string {
	climb := top[:strings.LastIndex(strings.TrimSuffix(top, "/"), "../")+3]
	var same []string
	total := 0
	for f, k := range folders {
		if f != top && strings.HasPrefix(f, climb) && !strings.Contains(f[len(climb):], "../") {
			same = append(same, f)
			total += k
		}
	}
	if len(same) == 0 {
		return fmt.Sprintf("%d of the broken links are to %s, a folder beside the sources (a sibling site's pages); links.ignore: [%s] leaves them out of the check", m, strconv.Quote(top), strconv.Quote(top+"*"))
	}
	slices.SortFunc(same, func(a, b string) int { return cmp.Or(folders[b]-folders[a], strings.Compare(a, b)) })
	same = append([]string{top}, same...)
	names, patterns, covered := []string{}, []string{}, 0
	for i, f := range same {
		if i == maxSiblings {
			names = append(names, fmt.Sprintf("and %d more", len(same)-i))
			break
		}
		names = append(names, fmt.Sprintf("%s %d", strconv.Quote(f), folders[f]))
		patterns = append(patterns, strconv.Quote(f+"*"))
		covered += folders[f]
	}
	them := "them"
	if covered < m+total {
		them = fmt.Sprintf("%d of them", covered)
	}
	return fmt.Sprintf("%d of the broken links are to %d folders beside the sources (sibling sites' pages: %s); links.ignore: [%s] leaves %s out of the check",
		m+total, len(same), strings.Join(names, ", "), strings.Join(patterns, ", "), them)
}

// maxSiblings bounds the folders siblingHint names.
const maxSiblings = 6

// upFolder is the folder a relative target that climbs out of its page's
// folder leads into ("../std/" of "../std/prelude/index.html": mdBook's
// links to the standard library's docs, served beside the book), or ""
// for any other target. Links into such a folder break together, and one
// pattern names them all.
func upFolder(target string) string {
	rest := target
	for strings.HasPrefix(rest, "../") {
		rest = rest[3:]
	}
	i := strings.IndexByte(rest, '/')
	if rest == target || i <= 0 || rest[:i] == "." || rest[:i] == ".." {
		return ""
	}
	return target[:len(target)-len(rest)+i+1]
}

// outsideBase reports whether the site base (links.base) base leaves l
// unchecked (outside_base): store/links's reading of its target under
// that base.
func outsideBase(l docir.Link, base string) bool {
	ref := docir.LinkRef{Target: l.Target, Kind: l.Kind, Line: l.Line, Column: l.Column}
	return links.Rules{Base: base}.Classify("", "", ref).Reason == docir.ReasonOutsideBase
}

// genLinks is what the hints that weigh a setting read of the generation
// a check read: its link rules, its files, and its resolved links. A
// hint must not advise a setting that takes more links out of the check
// than it resolves, and the resolved side is not in the broken list.
type genLinks struct {
	rules    links.Rules       // the generation's source folders, prefixes and base
	caseless bool              // links.ignore_case is on
	idOf     map[string]string // a file key (store.FileKey) -> its document's id
	foldOf   map[string]string // a lower-cased file key -> the id of the first file it folds, in key order
	keyOf    map[string]string // a document id -> its file key
	resolved []genLink
}

// genLink is one resolved link: as written, and the ids of the documents
// that hold it and that it leads to.
type genLink struct {
	ref      docir.LinkRef
	from, to string
	slug     string // the section it leads to; "" for a whole document
}

// sectionNamed is the address of a section whose slug is slug, in a
// document other than id, that a resolved link leads to (the least such
// address, for a stable hint); "" for none.
func (g *genLinks) sectionNamed(slug, id string) string {
	best := ""
	for _, l := range g.resolved {
		if a := l.to + "#" + l.slug; l.slug == slug && l.to != id && (best == "" || a < best) {
			best = a
		}
	}
	return best
}

// genLinks reads generation gen of the local store (a check answers for it
// alone) for the hints that weigh a setting.
func (f *Factory) genLinks(ctx context.Context, gen uint64) (g *genLinks, err error) {
	err = f.readPinned(ctx, gen, func(snap *store.Snapshot) error {
		g, err = readGenLinks(snap)
		return err
	})
	return g, err
}

// nearestSections is what get suggests of the address a, a section its
// document lacks, in generation gen of the local store (CheckOptions.
// Nearest).
func (f *Factory) nearestSections(ctx context.Context, gen uint64, a address.Address) (got []string, err error) {
	err = f.readPinned(ctx, gen, func(snap *store.Snapshot) error {
		got, err = workspace.SuggestSections(snap, a, 3)
		return err
	})
	return got, err
}

// readPinned calls read with generation gen of the local store, pinned
// while it reads.
func (f *Factory) readPinned(ctx context.Context, gen uint64, read func(*store.Snapshot) error) error {
	ws, err := f.Workspace()
	if err != nil {
		return err
	}
	v, err := ws.Pin(ctx, gen)
	if err != nil {
		return err
	}
	defer v.Close()
	return read(v.Snapshot())
}

// readGenLinks reads snap's rules, files and resolved links (genLinks).
func readGenLinks(snap *store.Snapshot) (*genLinks, error) {
	srcs, err := snap.Sources()
	if err != nil {
		return nil, err
	}
	cfg, err := snap.LinkConfig()
	if err != nil {
		return nil, err
	}
	g := &genLinks{rules: links.Rules{Base: cfg.Base, ReadmeFirst: cfg.ReadmeFirst}.Normalize(), caseless: cfg.IgnoreCase,
		idOf: map[string]string{}, foldOf: map[string]string{}, keyOf: map[string]string{}}
	for _, s := range srcs {
		g.rules.Roots = append(g.rules.Roots, s.Path)
		g.rules.Prefixes = append(g.rules.Prefixes, s.Prefix)
	}
	err = snap.EachFile(func(key []byte, e store.FileEntry) error {
		if e.ID == "" {
			return nil
		}
		k := string(key)
		g.idOf[k], g.keyOf[e.ID] = e.ID, k
		if fold := strings.ToLower(k); g.foldOf[fold] == "" {
			g.foldOf[fold] = e.ID // as the store's resolver folds: the first in key order
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = snap.EachLinksFrom(0, func(_ int, id, _ string, ls []docir.Link) error {
		for _, l := range ls {
			if l.Status == docir.LinkResolved {
				to, slug, _ := strings.Cut(l.Address, "#")
				g.resolved = append(g.resolved, genLink{ref: docir.LinkRef{Target: l.Target, Kind: l.Kind}, from: id, to: to, slug: slug})
			}
		}
		return nil
	})
	return g, err
}

// lostUnder counts the resolved links that the site base base (with
// links.ignore_case too where caseless) would take out of the check: a
// root-relative link outside it becomes unchecked (outside_base), and one
// inside it reads, below it, a path shorter by the folders base adds,
// which names another page or none, unless a source's prefix or folder
// makes it the same file (it is then not counted). A link the rules as
// they are do not lead where the store resolved it (by an alias, a
// front-matter id) is not counted. A root-relative link resolves by its
// kind and target alone: each is read once.
func (g *genLinks) lostUnder(base string, caseless bool) int {
	r := g.rules
	r.Base = base
	caseless = caseless || g.caseless
	kept := map[string]bool{} // kind, target -> whether it leads where it does now
	n := 0
	for _, l := range g.resolved {
		ref := l.ref
		if p, ok := links.LiquidPath(ref.Target); ok {
			ref.Target = p // as the store resolves it (resolver.link)
		}
		p := links.TargetPath(ref.Target)
		if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || ref.Kind == docir.LinkHugoRef || ref.Kind == docir.LinkHugoRelRef || ref.Kind == docir.LinkWiki {
			continue // not read below the base
		}
		key := ref.Kind + "\x00" + ref.Target
		ok, seen := kept[key]
		if !seen {
			// A link these rules do not resolve as the store did (a Hugo
			// alias, a front-matter id, root_fallback: rules the genLinks
			// does not rebuild) is not weighed: it may or may not be lost.
			ok = g.leadsTo(g.rules.Classify("", "", ref), g.caseless) != l.to ||
				g.leadsTo(r.Classify("", "", ref), caseless) == l.to
			kept[key] = ok
		}
		if !ok {
			n++
		}
	}
	return n
}

// leadsTo is the id of the document the target t names (its first
// candidate file that the generation holds; with caseless, as
// links.ignore_case folds it), "" for none or a target that names no file
// (outside_base).
func (g *genLinks) leadsTo(t links.Target, caseless bool) string {
	if t.Status != "" {
		return ""
	}
	for _, f := range t.Files {
		k := store.FileKey(f.Root, f.Rel)
		if id := g.idOf[k]; id != "" {
			return id
		}
		if caseless {
			if id := g.foldOf[strings.ToLower(k)]; id != "" {
				return id
			}
		}
	}
	return ""
}

// outsideFolder counts the links that indexing the folder dir of the
// source folder root alone would take out of the check: every link,
// resolved or broken (broken), of a document outside it, which is no
// longer indexed; and every resolved link of its own documents to one
// outside it, which then leaves the source (outside_sources) or names no
// file. Its documents' links to each other keep resolving: the source's
// prefix keeps their ids and their root-relative paths (step 5).
func (g *genLinks) outsideFolder(root, dir string, broken []docir.CheckedLink) int {
	in := func(id string) bool {
		r, rel, _ := strings.Cut(g.keyOf[id], "\x00")
		return r == root && strings.HasPrefix(rel, dir+"/")
	}
	n := 0
	for _, l := range g.resolved {
		if !in(l.from) || !in(l.to) {
			n++
		}
	}
	for _, l := range broken {
		if !in(docOf(l)) {
			n++
		}
	}
	return n
}

// baseOf is the site base rs names (docir.BaseRule), if it names one.
func baseOf(rs []string) (string, bool) {
	for _, r := range rs {
		if b, ok := strings.CutPrefix(r, docir.BaseRule("")); ok {
			return b, true
		}
	}
	return "", false
}

// ignoreHint names the page most broken links go to, n of them, written
// as forms: for links.ignore, the target as written, or the patterns that
// leave out every way of writing it and nothing else (the page with and
// without a trailing slash, each with any anchor or query: a pattern of
// the page's path and "*" would leave out every page whose path it
// begins, kubectl-commands-v2 with kubectl-commands).
func ignoreHint(page string, n int, forms map[string]bool) string {
	if len(forms) == 1 {
		for t := range forms {
			page = t // the one way it is written, which an ignore of it matches
		}
		return fmt.Sprintf("%d of the broken links are to %s; links.ignore leaves a target out of the check", n, strconv.Quote(page))
	}
	pats := map[string]bool{}
	for t := range forms {
		p, rest := t, ""
		if k := strings.IndexAny(t, "#?"); k >= 0 {
			p, rest = t[:k], t[k:k+1]+"*"
		}
		pats[p+rest] = true
	}
	var quoted []string
	for _, p := range slices.Sorted(maps.Keys(pats)) {
		quoted = append(quoted, strconv.Quote(p))
	}
	return fmt.Sprintf("%d of the broken links are to %s (%d ways written); links.ignore: [%s] leaves them out of the check", n, strconv.Quote(page), len(forms), strings.Join(quoted, ", "))
}

// targetPage is the page a link target names, as a hint counts it: its
// path (links.TargetPath: no anchor nor query), without a trailing '/' (the
// Kubernetes docs link kubectl's generated reference 129 times, in as many
// anchors and with and without the slash, and the hint named 9 of them).
func targetPage(t string) string {
	p := links.TargetPath(t)
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	if p == "" {
		return t // an anchor alone is its own target
	}
	return p
}

// mostOf is the key of counts with the highest count above floor (the
// shortest, then the first in byte order, of those that tie), and that
// count; "" when none is above floor.
func mostOf(counts map[string]int, floor int) (string, int) {
	top, n := "", floor
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if c := counts[k]; c > n || c == n && top != "" && len(k) < len(top) {
			top, n = k, c
		}
	}
	return top, n
}

// fileNamer names the file of a checked link's document as a path from
// base (the working folder; for GitHub annotations the repository's root,
// repoRoot), as an editor or a CI annotation wants it. The link's path is
// below its source folder; the source is the one whose prefix begins the
// document's id (`api/a` of `api/a.md` with prefix api), else one without
// a prefix (`a`), else the first, each preferred where the file is on disk
// now: a check of a generation whose file has since moved or gone (a
// cached store, --at) still names it by its own source, never by a file of
// the same path in another one. With no sources, the path as it is.
func fileNamer(srcs []store.Source, base string) func(docir.CheckedLink) string {
	return func(l docir.CheckedLink) string {
		id := docOf(l)
		best, bestRank := -1, -1
		for i, s := range srcs {
			rank := 0 // another prefix: the id is not this source's
			switch {
			case s.Prefix != "" && strings.HasPrefix(id, s.Prefix+"/"):
				rank = 4
			case s.Prefix == "":
				rank = 2
			}
			if _, err := os.Stat(filepath.Join(s.Path, filepath.FromSlash(l.Path))); err == nil {
				rank++
			}
			if rank > bestRank {
				best, bestRank = i, rank
			}
		}
		if best < 0 {
			return l.Path
		}
		p := filepath.Join(srcs[best].Path, filepath.FromSlash(l.Path))
		if rel, err := filepath.Rel(base, p); err == nil && base != "" {
			return filepath.ToSlash(rel)
		}
		return p
	}
}

// repoRoot is the folder GitHub annotations name files from: the
// workspace of a GitHub Actions run ($GITHUB_WORKSPACE), else the git
// work tree holding wd (the nearest folder at or above it with a .git),
// else wd. A step that runs in a subfolder (working-directory:) or with
// --config still names files as the pull request does.
func repoRoot(wd string) string {
	if ws := os.Getenv("GITHUB_WORKSPACE"); ws != "" && filepath.IsAbs(ws) {
		return ws
	}
	if top := nearestHolding(wd, ".git", false); top != "" { // a worktree's .git is a file
		return top
	}
	return wd
}

// docOf is the id of the document that holds a checked link.
func docOf(l docir.CheckedLink) string {
	id, _, _ := strings.Cut(l.From, "#")
	return id
}

// brokenWhy says why a broken link is broken.
func brokenWhy(l docir.CheckedLink) string {
	switch l.Reason {
	case docir.ReasonNoSection:
		doc, heading, _ := strings.Cut(l.Address, "#")
		if strings.HasPrefix(heading, "^") { // an Obsidian block id
			return fmt.Sprintf("%s has no block %q%s", doc, heading, l.ResolvesWithText())
		}
		return fmt.Sprintf("%s has no section %q%s", doc, heading, l.ResolvesWithText())
	case docir.ReasonNoDefinition:
		return fmt.Sprintf("no definition for reference [%s] in the file", l.Target)
	}
	return "no such document" + l.ResolvesWithText()
}

func printCheckText(dst io.Writer, res docir.CheckResult, fileOf func(docir.CheckedLink) string) error {
	w := &errWriter{w: dst}
	for _, l := range res.Broken {
		fmt.Fprintf(w, "%s: %s: %s (in %s)\n", position(fileOf(l), l.Link), forTerminal(l.Target), brokenWhy(l), l.From)
	}
	for _, l := range res.External {
		fmt.Fprintf(w, "%s: external %s\n", position(fileOf(l), l.Link), forTerminal(l.URL))
	}
	c := res.Counts
	fmt.Fprintf(w, "generation %d, %d documents: links %d resolved, %d broken, %d external, %d unchecked\n",
		res.Generation, res.Documents, c.Resolved, c.Broken, c.External, c.Unchecked)
	return w.err
}

// printCheckGitHub prints a GitHub Actions workflow command per broken
// link: an error annotation on its file and line.
func printCheckGitHub(w io.Writer, res docir.CheckResult, fileOf func(docir.CheckedLink) string) error {
	for _, l := range res.Broken {
		_, err := fmt.Fprintf(w, "::error file=%s,line=%d%s,title=%s::%s\n",
			ghProperty(fileOf(l)), l.Line, ghColumn(l.Link), ghProperty("broken link"),
			ghData(fmt.Sprintf("%s: %s (in %s)", l.Target, brokenWhy(l), l.From)))
		if err != nil {
			return err
		}
	}
	for _, l := range res.External {
		if _, err := fmt.Fprintf(w, "::notice file=%s,line=%d%s,title=%s::%s\n", ghProperty(fileOf(l)), l.Line, ghColumn(l.Link), ghProperty("external link"), ghData(l.URL)); err != nil {
			return err
		}
	}
	return nil
}

// position is where link l stands in file, as compilers and editors
// write it: file:line:column, or file:line where the column is not known
// (a store indexed before markdown rules 24).
func position(file string, l docir.Link) string {
	if l.Column > 0 {
		return fmt.Sprintf("%s:%d:%d", file, l.Line, l.Column)
	}
	return fmt.Sprintf("%s:%d", file, l.Line)
}

// ghColumn is the col property of link l's annotation, "" where the
// column is not known.
func ghColumn(l docir.Link) string {
	if l.Column > 0 {
		return fmt.Sprintf(",col=%d", l.Column)
	}
	return ""
}

// ghData and ghProperty escape a workflow command's message and property
// values as the Actions toolkit does (toolkit/packages/core/src/command.ts).
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// sources are the configured source folders, absolute; without a config
// (a store given with --store), the ones the store records.
func (f *Factory) sources() ([]store.Source, error) {
	lc, err := f.Config()
	if err != nil {
		return nil, err
	}
	if lc.File == "" && len(lc.Sources) == 0 {
		// No config (a store given with --store, a cached one in CI): the
		// sources are the ones the store records, not the working folder,
		// while they are there (a project without docir.yaml that moved
		// records the folders it left).
		snap, err := store.Open(lc.StoreDir())
		if err == nil {
			defer snap.Close()
			if recorded, err := snap.Sources(); err == nil && len(recorded) > 0 && allFolders(recorded) {
				return recorded, nil
			}
		}
	}
	return lc.StoreSources(), nil
}

// allFolders reports whether every source folder of srcs is a folder now.
func allFolders(srcs []store.Source) bool {
	for _, s := range srcs {
		if store.CheckSourceDir(s.Path) != nil {
			return false
		}
	}
	return true
}

// shellQuote is s as a POSIX shell word: as it is when it holds only
// letters, digits and /._#-, else in single quotes (a single quote inside
// ends the quoting, is escaped with a backslash, and opens it again).
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._#-", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
