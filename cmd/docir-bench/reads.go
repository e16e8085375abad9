package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docir/docir/docir/corpustest"
	"github.com/docir/docir/store/markdown"
)

// source is one source root of a store's config.
type source struct {
	path, prefix string
}

// corpus is one store and the reads timed against it.
type corpus struct {
	name    string
	dir     string // holds docir.yaml; the store is dir/.docir
	stem    string // the config's search.stemming ("" none)
	sources []source
	retain  int // 0: docir's default
	docs    int
	files   []string // the source files, sorted

	one, five []string // ids of documents to read
	section   string   // one section address
	query     string   // a search/context query
	expr      string   // a query expression over front matter ("" for none)
}

func (c *corpus) store() string { return filepath.Join(c.dir, ".docir") }

func (c *corpus) cmd(docir string, args ...string) command {
	return command{path: docir, dir: c.dir, args: args}
}

// readsRun is the default mode: start-up-bound reads on three stores, each
// paired with the floor.
func (e *env) readsRun() ([]row, error) {
	rfcsDir, err := e.unpack(corpustest.RustRFCs)
	if err != nil {
		return nil, err
	}
	tldrDir, err := e.unpack(corpustest.TLDRPages)
	if err != nil {
		return nil, err
	}
	rfcs, tldr := filepath.Join(rfcsDir, "rfcs"), filepath.Join(tldrDir, "tldr")
	corpora := []*corpus{
		{name: "rfcs (648)", sources: []source{{path: rfcs}}, query: "object safety dyn trait method receiver"},
		{name: "tldr-en (7.4k)", sources: []source{{path: filepath.Join(tldr, "pages")}}, query: "extract files from a tar archive"},
		{name: "rfcs+tldr-all (39k)", sources: []source{{path: rfcs}, {path: tldr}}, query: "extract files from a tar archive"},
	}
	if e.o.smoke {
		// CI: one store; the scale steps that follow build the RFCs.
		corpora = corpora[1:2]
	}
	if e.o.only != "" {
		corpora = slices.DeleteFunc(corpora, func(c *corpus) bool { return !strings.Contains(c.name, e.o.only) })
	}
	rows := []row{}
	version, err := e.vsFloor("docir --version", "-", command{path: e.docir, args: []string{"--version"}}, e.o.runs)
	if err != nil {
		return nil, err
	}
	rows = append(rows, version)
	for i, c := range corpora {
		c.dir = filepath.Join(e.work, fmt.Sprintf("reads%d", i))
		if err := c.prepare(); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		e.say("%s: %d documents", c.name, c.docs)
		scratch, err := e.fromScratch(c)
		if err != nil {
			return nil, err
		}
		rows = append(rows, scratch)
		steps := []struct {
			label string
			n     int
			cmd   command
		}{
			{"get 1 document", e.o.runs, c.cmd(e.docir, append([]string{"get"}, c.one...)...)},
			{"get 5 documents", e.o.runs, c.cmd(e.docir, append([]string{"get"}, c.five...)...)},
			{"get 1 section", e.o.runs, c.cmd(e.docir, "get", c.section)},
			{"search", e.o.runs, c.cmd(e.docir, "search", c.query)},
			{"context", e.o.runs, c.cmd(e.docir, "context", c.query)},
			{"index, no-op", e.o.refreshRuns, c.cmd(e.docir, "index")},
		}
		for _, s := range steps {
			r, err := e.vsFloor(s.label, c.name, s.cmd, s.n)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
		}
		rt, err := e.serveRoundTrip(c)
		if err != nil {
			return nil, fmt.Errorf("serve round trip (%s): %w", c.name, err)
		}
		rows = append(rows, rt)
	}
	return rows, nil
}

// vsFloor times cmd interleaved with the floor.
func (e *env) vsFloor(label, corpusName string, cmd command, n int) (row, error) {
	return e.versus(label, corpusName, cmd, "floor", command{path: e.floor}, n)
}

// versus times cmd interleaved with base.
func (e *env) versus(label, corpusName string, cmd command, baseLabel string, base command, n int) (row, error) {
	e.say("timing %s, %s (against %s)", label, corpusName, baseLabel)
	a, b, err := e.r.pair(cmd, base, e.o.warmup, n)
	if err != nil {
		return row{}, fmt.Errorf("%s (%s): %w", label, corpusName, err)
	}
	return row{label: label, corpus: corpusName, a: a, base: baseLabel, b: b}, nil
}

// fromScratch indexes c from nothing, scratchRuns times; the store is left
// built. With -anchor, a corpus below 10k documents is indexed interleaved
// with the -anchor binary indexing the same sources into a folder of its
// own: a figure measured against a binary of another day (an issue's qmd
// ratio) then compares as a ratio from one run, whatever the machine's
// speed today.
func (e *env) fromScratch(c *corpus) (row, error) {
	e.say("timing index from scratch, %s", c.name)
	cmd := c.cmd(e.docir, "index")
	cmd.prepare = func() error { return os.RemoveAll(c.store()) }
	r := row{label: "index from scratch", corpus: c.name}
	var err error
	if e.o.anchor != "" && c.docs < 10000 {
		var base command
		if base, err = e.anchorCmd(c); err == nil {
			e.say("… against %s", e.o.anchor)
			r.base = "docir at -anchor"
			r.a, r.b, err = e.r.pair(cmd, base, 1, e.scratchRuns(c))
		}
	} else {
		r.a, err = e.r.repeat(cmd, 0, e.scratchRuns(c))
	}
	if err != nil {
		return row{}, fmt.Errorf("index from scratch (%s): %w", c.name, err)
	}
	e.built = append(e.built, c)
	r.note = fmt.Sprintf("%.0f documents/s", float64(c.docs)/(statsOf(walls(r.a)).median/1e9))
	if r.b != nil {
		r.note += "; -anchor is " + e.o.anchor
	}
	return r, nil
}

// vsAnchor times cmd interleaved with the -anchor binary running args on
// its own store of c's sources (indexed once, unless the from-scratch
// index already built it): the same read, paired with the binary of
// another day, as an issue's "no slower than today's" asks.
func (e *env) vsAnchor(label string, c *corpus, cmd command, args ...string) (row, error) {
	build, err := e.anchorCmd(c)
	if err != nil {
		return row{}, err
	}
	if _, err := os.Stat(filepath.Join(build.dir, ".docir")); err != nil {
		e.say("indexing %s with %s", c.name, e.o.anchor)
		if _, err := e.r.repeat(build, 0, 1); err != nil {
			return row{}, fmt.Errorf("index %s with -anchor: %w", c.name, err)
		}
	}
	// Each side runs on copies made now by the same writer: its store
	// folder and its binary (see copyAnchor: how a file came into the page
	// cache moves a start by more than the difference timed here).
	pair := filepath.Join(e.work, "pair")
	if err := os.RemoveAll(pair); err != nil { // a run cut short left it
		return row{}, err
	}
	defer os.RemoveAll(pair)
	ours, anchor := filepath.Join(pair, "docir"), filepath.Join(pair, "anchor")
	for _, cp := range [][2]string{{c.dir, ours}, {build.dir, anchor}, {e.docir, ours + "-bin"}, {e.anchor, anchor + "-bin"}} {
		if err := copyTree(cp[0], cp[1]); err != nil {
			return row{}, fmt.Errorf("copy for the -anchor pair: %w", err)
		}
	}
	cmd.path, cmd.dir = ours+"-bin", ours
	return e.versus(label, c.name, cmd, "docir at -anchor", command{path: anchor + "-bin", dir: anchor, args: args}, e.o.runs)
}

// copyTree copies the file or folder src to dst, file by file (regular
// files and folders; a store holds nothing else).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return copyFile(p, to, info.Mode().Perm())
	})
}

// copyFile copies the file src to a new file dst, streamed (a store's
// files run to hundreds of MiB).
func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// anchorCmd is the -anchor binary's from-scratch index of c's sources, in
// a folder of its own beside c's.
func (e *env) anchorCmd(c *corpus) (command, error) {
	dir := c.dir + "-anchor"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return command{}, err
	}
	cfg, err := os.ReadFile(filepath.Join(c.dir, "docir.yaml"))
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "docir.yaml"), cfg, 0o644)
	}
	return command{path: e.anchor, dir: dir, args: []string{"index"},
		prepare: func() error { return os.RemoveAll(filepath.Join(dir, ".docir")) }}, err
}

// scratchRuns is how many times c is indexed from scratch: -index-runs;
// by default with -scale, 5 for a corpus below 10k documents (a second or
// so each: one run on a shared machine is one sample of its noise) and 1
// for the larger ones.
func (e *env) scratchRuns(c *corpus) int {
	switch {
	case e.o.indexRuns > 0:
		return e.o.indexRuns
	case c.docs < 10000:
		return 5
	}
	return 1
}

// prepare writes the corpus's config and picks the documents and the
// section the reads ask for: spread evenly over the sorted files, the same
// on every run.
func (c *corpus) prepare() error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	var cfg strings.Builder
	if c.retain > 0 {
		fmt.Fprintf(&cfg, "retain: %d\n", c.retain)
	}
	cfg.WriteString("sources:\n")
	for _, s := range c.sources {
		fmt.Fprintf(&cfg, "  - path: %s\n", s.path)
		if s.prefix != "" {
			fmt.Fprintf(&cfg, "    prefix: %s\n", s.prefix)
		}
	}
	if c.stem != "" {
		fmt.Fprintf(&cfg, "search:\n  stemming: %s\n", c.stem)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "docir.yaml"), []byte(cfg.String()), 0o644); err != nil {
		return err
	}
	var ids []string
	c.files = nil
	for _, root := range c.sources {
		err := filepath.WalkDir(root.path, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != root.path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // a hidden folder, which docir does not read
			}
			if d.IsDir() || !strings.HasSuffix(p, ".md") || strings.HasPrefix(d.Name(), ".") {
				return nil
			}
			rel, _ := filepath.Rel(root.path, p)
			id := strings.TrimSuffix(filepath.ToSlash(rel), ".md")
			if root.prefix != "" {
				id = root.prefix + "/" + id
			}
			ids = append(ids, id)
			c.files = append(c.files, p)
			return nil
		})
		if err != nil {
			return err
		}
	}
	c.docs = len(ids)
	if len(ids) < 10 {
		return fmt.Errorf("only %d documents", len(ids))
	}
	step := len(ids) / 6
	c.one = []string{ids[step]}
	c.five = nil
	for i := 1; i <= 5; i++ {
		c.five = append(c.five, ids[i*step])
	}
	// A section: the second section of the first document from the first
	// pick on (wrapping round) that has two; in a corpus of one-heading
	// pages (tldr), the first section of the first pick.
	p := markdown.NewParser()
	c.section = ""
	for k := range len(ids) {
		i := (step + k) % len(ids)
		src, err := os.ReadFile(c.files[i])
		if err != nil {
			return err
		}
		secs := p.Parse(c.files[i], src).Record.Sections
		if len(secs) > 1 {
			c.section = ids[i] + "#" + secs[1].Slug
			break
		}
		if len(secs) == 1 && c.section == "" {
			c.section = ids[i] + "#" + secs[0].Slug
		}
		if k > 200 && c.section != "" {
			break
		}
	}
	if c.section == "" {
		return errors.New("no document with a heading")
	}
	return nil
}
