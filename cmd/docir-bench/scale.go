package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/docir/docir/docir/corpustest"
)

// A scale size: the corpus the cost curve is measured on.
type scaleSize struct {
	name  string // as -scale-sizes spells it
	label string
}

var scaleSizes = []scaleSize{
	{"648", "rfcs (648)"},
	{"38k", "tldr (38k)"},
	{"192k", "tldr ×5 (192k)"},
}

// point is one size's figures on the cost curve.
type point struct {
	label          string
	docs           int
	markdownBytes  int64
	scratch        row
	storeOneGen    int64 // bytes on disk after the from-scratch index
	noop           row
	get, search    row
	searchAnchor   row // search against the -anchor binary on its own store, with -anchor
	query, context row
	serve          row
	refresh        row
	growth         []float64 // bytes each 100-file refresh added
	storeRetained  int64     // bytes on disk with every generation retained
	gens           int
}

// scaleRun measures every row of issue 16's table at each selected size,
// then the growth pairs across sizes.
func (e *env) scaleRun() ([]row, []point, error) {
	sizes, err := e.selectedSizes()
	if err != nil {
		return nil, nil, err
	}
	rows := []row{}
	version, err := e.vsFloor("docir --version", "-", command{path: e.docir, args: []string{"--version"}}, e.o.runs)
	if err != nil {
		return nil, nil, err
	}
	rows = append(rows, version)
	built := map[string]*corpus{}
	var curve []point
	for _, sz := range sizes {
		c, err := e.scaleCorpus(sz)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", sz.label, err)
		}
		p, prows, err := e.scalePoint(c)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", sz.label, err)
		}
		built[sz.name] = c
		curve = append(curve, p)
		rows = append(rows, prows...)
	}
	// Growth: the same read on the larger store against the smaller one,
	// interleaved.
	cross := []struct {
		label      string
		big, small string
		args       func(c *corpus) []string
		n          int
	}{
		{"query", "192k", "38k", func(c *corpus) []string { return []string{"query", c.expr} }, e.o.runs},
		{"search", "192k", "38k", func(c *corpus) []string { return []string{"search", c.query} }, e.o.runs},
		{"get 1 document", "192k", "648", func(c *corpus) []string { return append([]string{"get"}, c.one...) }, e.o.runs},
		{"index, no-op", "192k", "38k", func(c *corpus) []string { return []string{"index"} }, e.o.refreshRuns},
	}
	for _, x := range cross {
		big, small := built[x.big], built[x.small]
		if big == nil || small == nil {
			continue
		}
		r, err := e.versus(x.label, big.name, big.cmd(e.docir, x.args(big)...), x.label+", "+small.name, small.cmd(e.docir, x.args(small)...), x.n)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, r)
	}
	return rows, curve, nil
}

func (e *env) selectedSizes() ([]scaleSize, error) {
	var out []scaleSize
	for _, name := range strings.Split(e.o.sizes, ",") {
		i := slices.IndexFunc(scaleSizes, func(s scaleSize) bool { return s.name == strings.TrimSpace(name) })
		if i < 0 {
			return nil, fmt.Errorf("-scale-sizes: unknown size %q (known: 648, 38k, 192k)", name)
		}
		out = append(out, scaleSizes[i])
	}
	return out, nil
}

// scaleCorpus writes the sources of a size, with small front matter added
// to every page, and the store's config.
//
//   - 648: the Rust RFCs, with kind: rfc, lang: en, tags: [rfc, rfc-Nxxx];
//   - 38k: tldr in every language, with kind: <platform folder>,
//     lang: <language of the pages folder>, tags: [tldr, <platform>, set1];
//   - 192k: tldr five times, each copy under its own prefix (t1 … t5) and
//     tagged set1 … set5.
func (e *env) scaleCorpus(sz scaleSize) (*corpus, error) {
	c := &corpus{name: sz.label, dir: filepath.Join(e.work, "scale-"+sz.name), retain: e.o.gens + 1}
	switch sz.name {
	case "648":
		src, err := e.unpack(corpustest.RustRFCs)
		if err != nil {
			return nil, err
		}
		dst := filepath.Join(e.work, "scale-src", "rfcs")
		if err := withFrontMatter(filepath.Join(src, "rfcs"), dst, rfcFrontMatter); err != nil {
			return nil, err
		}
		c.sources = []source{{path: dst}}
		c.query, c.expr = "object safety dyn trait method receiver", "kind:rfc tags:rfc-2xxx"
	case "38k", "192k":
		src, err := e.unpack(corpustest.TLDRPages)
		if err != nil {
			return nil, err
		}
		copies := 1
		if sz.name == "192k" {
			copies = 5
		}
		for k := 1; k <= copies; k++ {
			// Each size has folders of its own: the refreshes of one size
			// must not change the sources of another.
			dst := filepath.Join(e.work, "scale-src", fmt.Sprintf("tldr-%s-%d", sz.name, k))
			if _, err := os.Stat(dst); err != nil {
				set := fmt.Sprintf("set%d", k)
				if err := withFrontMatter(filepath.Join(src, "tldr"), dst, func(rel string) string { return tldrFrontMatter(rel, set) }); err != nil {
					return nil, err
				}
			}
			s := source{path: dst}
			if copies > 1 {
				s.prefix = fmt.Sprintf("t%d", k)
			}
			c.sources = append(c.sources, s)
		}
		c.query, c.expr = "extract files from a tar archive", "kind:linux lang:en"
	}
	if err := c.prepare(); err != nil {
		return nil, err
	}
	return c, nil
}

func rfcFrontMatter(rel string) string {
	bucket := "rfc-0xxx"
	if name := filepath.Base(rel); len(name) > 0 && name[0] >= '0' && name[0] <= '9' {
		bucket = "rfc-" + name[:1] + "xxx"
	}
	return fmt.Sprintf("kind: rfc\nlang: en\ntags: [rfc, %s]\n", bucket)
}

// tldrFrontMatter derives a page's fields from where it lies:
// pages.<lang>/<platform>/<command>.md (pages/ is English).
func tldrFrontMatter(rel, set string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	lang, platform := "en", "common"
	if len(parts) >= 3 {
		if l, ok := strings.CutPrefix(parts[0], "pages."); ok {
			lang = l
		}
		platform = parts[1]
	}
	return fmt.Sprintf("kind: %s\nlang: %s\ntags: [tldr, %s, %s]\n", platform, lang, platform, set)
}

// withFrontMatter copies every .md file below src to dst with the fields
// fm gives it: a new front-matter block, or the fields added at the top of
// the file's own block.
func withFrontMatter(src, dst string, fm func(rel string) string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !strings.HasSuffix(p, ".md") {
			return nil
		}
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fields := fm(rel)
		var out []byte
		if rest, ok := bytes.CutPrefix(body, []byte("---\n")); ok {
			out = append([]byte("---\n"+fields), rest...)
		} else {
			out = append([]byte("---\n"+fields+"---\n\n"), body...)
		}
		return os.WriteFile(filepath.Join(dst, rel), out, 0o644)
	})
}

// scalePoint measures one size: the from-scratch index, a no-op refresh,
// the cold reads, a serve session, then refreshes changing 100 files each,
// all retained.
func (e *env) scalePoint(c *corpus) (point, []row, error) {
	p := point{label: c.name, docs: c.docs, gens: e.o.gens}
	for _, f := range c.files {
		if st, err := os.Stat(f); err == nil {
			p.markdownBytes += st.Size()
		}
	}
	e.say("%s: %d documents, %s of markdown", c.name, c.docs, byteSize(p.markdownBytes))
	var err error
	if p.scratch, err = e.fromScratch(c); err != nil {
		return p, nil, err
	}
	if p.storeOneGen, err = diskUsage(c.store()); err != nil {
		return p, nil, err
	}
	p.scratch.note += fmt.Sprintf("; store %s on disk (markdown %s)", byteSize(p.storeOneGen), byteSize(p.markdownBytes))
	if p.noop, err = e.vsFloor("index, no-op", c.name, c.cmd(e.docir, "index"), e.o.refreshRuns); err != nil {
		return p, nil, err
	}
	if p.get, err = e.vsFloor("get 1 document", c.name, c.cmd(e.docir, append([]string{"get"}, c.one...)...), e.o.runs); err != nil {
		return p, nil, err
	}
	search := c.cmd(e.docir, "search", c.query)
	if p.search, err = e.vsFloor("search", c.name, search, e.o.runs); err != nil {
		return p, nil, err
	}
	if e.o.anchor != "" {
		if p.searchAnchor, err = e.vsAnchor("search", c, search, "search", c.query); err != nil {
			return p, nil, err
		}
	}
	if p.query, err = e.versus("query "+c.expr, c.name, c.cmd(e.docir, "query", c.expr), "search", search, e.o.runs); err != nil {
		return p, nil, err
	}
	if p.context, err = e.vsFloor("context", c.name, c.cmd(e.docir, "context", c.query), e.o.runs); err != nil {
		return p, nil, err
	}
	requests := 500
	if e.o.smoke {
		requests = 10
	}
	if p.serve, err = e.serveSession(c, requests); err != nil {
		return p, nil, err
	}
	if err := e.refreshes(c, &p); err != nil {
		return p, nil, err
	}
	rows := []row{p.scratch, p.noop, p.get, p.search, p.query, p.context, p.serve, p.refresh}
	if e.o.anchor != "" {
		rows = slices.Insert(rows, 4, p.searchAnchor)
	}
	return p, rows, nil
}

// refreshes runs e.o.gens refreshes, each after changing 100 files (a
// line appended; a different 100 each time), with every generation
// retained, and records each one's time and the bytes it added to the
// store.
func (e *env) refreshes(c *corpus, p *point) error {
	e.say("%d refreshes changing 100 files each, %s", e.o.gens, c.name)
	before, err := diskUsage(c.store())
	if err != nil {
		return err
	}
	stride := max(len(c.files)/100, 1)
	for g := 1; g <= e.o.gens; g++ {
		for i := range min(100, len(c.files)) {
			f := c.files[(i*stride+g)%len(c.files)]
			if err := appendLine(f, fmt.Sprintf("\nRevised in bench generation %d.\n", g)); err != nil {
				return err
			}
		}
		s, err := e.r.run(c.cmd(e.docir, "index"))
		if err != nil {
			return fmt.Errorf("refresh %d: %w", g, err)
		}
		after, err := diskUsage(c.store())
		if err != nil {
			return err
		}
		p.refresh.a = append(p.refresh.a, s)
		p.growth = append(p.growth, float64(after-before))
		before = after
	}
	p.storeRetained = before
	p.refresh.label, p.refresh.corpus = "refresh changing 100 files", c.name
	g := statsOf(p.growth)
	p.refresh.note = fmt.Sprintf("store +%s per refresh (%s–%s); %d generations retained: %s = %.2f× one generation (%s)",
		byteSize(int64(g.median)), byteSize(int64(g.min)), byteSize(int64(g.max)),
		e.o.gens+1, byteSize(p.storeRetained), float64(p.storeRetained)/float64(max(p.storeOneGen, 1)), byteSize(p.storeOneGen))
	return nil
}

func appendLine(name, line string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// diskUsage is the bytes a folder takes on disk: allocated blocks, each
// file counted once however many links it has (generations may share
// files).
func diskUsage(dir string) (int64, error) {
	type key struct{ dev, ino uint64 }
	seen := map[key]bool{}
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			total += info.Size()
			return nil
		}
		k := key{uint64(st.Dev), st.Ino}
		if seen[k] {
			return nil
		}
		seen[k] = true
		total += st.Blocks * 512
		return nil
	})
	return total, err
}
