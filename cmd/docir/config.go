package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/federation"
	"github.com/docir/docir/store"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/store/links"
	"github.com/docir/docir/workspace"
)

// ConfigFileName is the config file docir looks for, from the current
// folder up to the root, when --config is not given.
const ConfigFileName = "docir.yaml"

// Config is docir.yaml, typed. Relative paths in it are relative to the
// folder of the config file.
type Config struct {
	// Name and Description say which corpus this is, to agents: `serve
	// --mcp` names it in its instructions and tool descriptions. Default:
	// the source folders.
	Name         string         `mapstructure:"name"`
	Description  string         `mapstructure:"description"`
	Store        string         `mapstructure:"store"`
	Format       string         `mapstructure:"format"`
	Sources      []SourceConfig `mapstructure:"sources"`
	Retain       int            `mapstructure:"retain"`
	MaxFileBytes int64          `mapstructure:"max_file_bytes"`
	// FrontMatter lists the front-matter fields search reads as text
	// (default: title, description, summary, keywords, tags, aliases,
	// and every field whose name ends in title or description: "*title",
	// "*description").
	FrontMatter []string `mapstructure:"front_matter"`
	// Exclude are patterns in .gitignore syntax of files and folders to
	// leave out of every source, relative to each source folder
	// (`_common/`, `*.draft.md`).
	Exclude []string     `mapstructure:"exclude"`
	Peers   []PeerConfig `mapstructure:"peers"`
	// Links are the link rules (docs/links.md): the site base of
	// root-relative links and the targets not to check.
	Links LinksConfig `mapstructure:"links"`
	// Search tunes how queries match (docs/ranking.md).
	Search SearchConfig `mapstructure:"search"`
}

// SearchConfig is `search:`.
type SearchConfig struct {
	// Stemming "english" matches a query word in its other English forms
	// ("configure" finds "configuration"); "" (the default) as written,
	// less plurals. It changes no index: a search after the edit uses it.
	Stemming string `mapstructure:"stemming"`
}

// LinksConfig is `links:`.
type LinksConfig struct {
	Base   string   `mapstructure:"base"`   // root-relative links are paths below it ("/docs/"); default "/"
	Ignore []string `mapstructure:"ignore"` // targets not to check: '*' any run of characters, '?' one
	// Site: the URLs the site is served at; a link to a URL below one is the root-relative link of the path after it.
	Site          []string `mapstructure:"site"`
	IgnoreCase    bool     `mapstructure:"ignore_case"`    // a path may name a file whose path differs in case (Hugo lower-cases URLs)
	DefinitionIDs bool     `mapstructure:"definition_ids"` // definition terms are anchors (Hugo's autoDefinitionTermID)
	RootFallback  bool     `mapstructure:"root_fallback"`  // a relative path is tried below each source folder too (Hugo's GetPage)
	MkDocsAnchors bool     `mapstructure:"mkdocs_anchors"` // an anchor may be the one MkDocs gives a heading (head-branch-tracking)
	DirectoryURLs bool     `mapstructure:"directory_urls"` // a relative link not written as x.md starts from the page's URL folder (/fr/page/)
	// VitePressAnchors: an anchor may be the one VitePress gives a heading (server-open for server.open).
	VitePressAnchors bool `mapstructure:"vitepress_anchors"`
	// HugoAliases: a root-relative link may name a path a page lists under its front matter's aliases (Hugo's redirects) or redirect_from (Jekyll's).
	HugoAliases bool `mapstructure:"hugo_aliases"`
	// BlackfridayAnchors: an anchor may be the one Hugo gives a heading with autoHeadingIDType blackfriday (kubernetes-io-arch).
	BlackfridayAnchors bool `mapstructure:"blackfriday_anchors"`
	// MDNAnchors: an anchor may be the one MDN Web Docs gives a heading (formal_syntax, result_2).
	MDNAnchors bool `mapstructure:"mdn_anchors"`
	// NumberPrefixes: a path may name a file or folder by its name without its number prefix (load for 20-load.md), as Docusaurus and svelte.dev serve them.
	NumberPrefixes bool `mapstructure:"number_prefixes"`
	// Wikilinks: [[Note]] links are resolved as Obsidian resolves them; unset, on when a source folder holds .obsidian/ (a vault) or _Sidebar.md or _Footer.md (a GitHub wiki).
	Wikilinks *bool `mapstructure:"wikilinks"`
}

// PeerConfig is one entry of `peers:`: another store folder (path) or a
// `docir serve --http` endpoint (url, token_env, timeout). Order is
// priority: local first, then the peers as listed.
type PeerConfig struct {
	Name     string `mapstructure:"name"`
	Path     string `mapstructure:"path"`
	URL      string `mapstructure:"url"`
	TokenEnv string `mapstructure:"token_env"`
	Timeout  string `mapstructure:"timeout"` // a Go duration: "5s", "1500ms"
}

// SourceConfig is one entry of `sources:`.
type SourceConfig struct {
	Path   string `mapstructure:"path" yaml:"path"`
	Prefix string `mapstructure:"prefix" yaml:"prefix,omitempty"`
	// FrontMatterID is how a front-matter `id:` makes the id of a file of
	// this source: whole (default), name (Docusaurus), off (ingest's
	// FrontMatterID* values).
	FrontMatterID string `mapstructure:"front_matter_id" yaml:"front_matter_id,omitempty"`
	// Exclude are more patterns like Config.Exclude, for this source only;
	// they come after the global ones.
	Exclude []string `mapstructure:"exclude" yaml:"exclude,omitempty"`
}

// sameSource reports whether a and b are one entry, exclude patterns and
// all.
func sameSource(a, b SourceConfig) bool {
	return a.Path == b.Path && a.Prefix == b.Prefix && a.FrontMatterID == b.FrontMatterID && slices.Equal(a.Exclude, b.Exclude)
}

// loadedConfig is the config with where it came from resolved.
type loadedConfig struct {
	Config
	File string // the config file, "" when there is none
	// BaseDir is where relative paths start: the config's folder; with no
	// config, the folder of the nearest .docir at or above the working
	// folder, else the working folder.
	BaseDir string
	// storeNamed: the store folder is --store's or DOCIR_STORE's, not the
	// config file's nor the one found beside it; reads elsewhere do not
	// find it by themselves.
	storeNamed bool
	// peers are Peers as the federation engine takes them, checked and
	// resolved once by validate.
	peers []federation.PeerConfig
	// force lets a refresh drop recorded sources or most documents: the
	// user changed the source list on purpose, or said --force.
	force bool
	// beforePublish, when set, runs just before a refresh publishes (see
	// ingest.Options.BeforePublish): index writes the config there.
	beforePublish func() error
}

// findConfig returns the config file to read: explicit when given, else
// the nearest docir.yaml from dir upwards, else "".
func findConfig(explicit, dir string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", docir.Errorf(docir.CodeConfig, "config %s: %w", explicit, err)
		}
		return filepath.Abs(explicit)
	}
	if at := nearestHolding(dir, ConfigFileName, false); at != "" {
		return filepath.Join(at, ConfigFileName), nil
	}
	return "", nil
}

// nearestHolding returns the nearest folder at or above dir that holds
// name (a folder, when dirOnly), else "": how a docir.yaml, a project's
// .docir and a git work tree are found, as git finds .git.
func nearestHolding(dir, name string, dirOnly bool) string {
	for {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && (!dirOnly || st.IsDir()) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// StoreFolderName is the store folder beside a docir.yaml, or in the
// folder a zero-setup read indexed.
const StoreFolderName = ".docir"

// maxConfigBytes bounds what docir reads of a config file (docir.yaml,
// --config FILE). A config file is a few hundred bytes, a few KiB with a
// long source list; 1 MiB is far past any a person writes, and small
// enough that a link to /dev/zero or a huge file is refused at once
// instead of filling memory before YAML parsing starts.
const maxConfigBytes = 1 << 20

// findStore returns the nearest folder at or above dir that holds a
// .docir folder, else "".
func findStore(dir string) string {
	return nearestHolding(dir, StoreFolderName, true)
}

// loadConfig builds the one viper instance: the config file, DOCIR_*
// environment variables, and the global flags bound to their keys.
func loadConfig(v *viper.Viper, explicit string) (*loadedConfig, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	file, err := findConfig(explicit, wd)
	if err != nil {
		return nil, err
	}
	lc := &loadedConfig{File: file, BaseDir: wd}
	v.SetEnvPrefix("DOCIR")
	v.AutomaticEnv()
	v.SetDefault("format", "auto")
	if file != "" {
		lc.BaseDir = filepath.Dir(file)
		data, err := workspace.ReadFile(file, maxConfigBytes)
		if err != nil {
			return nil, docir.Errorf(docir.CodeConfig, "config: %w", err)
		}
		if err := checkConfigFile(file, data); err != nil {
			return nil, err
		}
		v.SetConfigType("yaml")
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, docir.Errorf(docir.CodeConfig, "config %s: %w", file, err)
		}
	}
	if err := v.UnmarshalExact(&lc.Config); err != nil {
		return nil, docir.Errorf(docir.CodeConfig, "config %s: %w", orNone(file), err)
	}
	lc.storeNamed = lc.Store != "" && !v.InConfig("store")
	if file == "" && lc.Store == "" {
		// No docir.yaml at or above: the project is the folder of the
		// nearest store at or above, as git finds .git.
		if project := findStore(wd); project != "" {
			lc.BaseDir = project
		}
	}
	if err := lc.validate(); err != nil {
		return nil, err
	}
	return lc, nil
}

func orNone(file string) string {
	if file == "" {
		return "(none)"
	}
	return file
}

func (lc *loadedConfig) validate() error {
	switch lc.Format {
	case "auto", "json", "text":
	default:
		// The config file's value was checked with its line; this one
		// came from the flag or the environment.
		return docir.Errorf(docir.CodeUsage, "--format %s (or DOCIR_FORMAT): want auto, json or text", lc.Format)
	}
	for i, s := range lc.Sources {
		if strings.TrimSpace(s.Path) == "" {
			return docir.Errorf(docir.CodeConfig, "config %s: sources[%d] has no path", orNone(lc.File), i)
		}
		if slices.ContainsFunc(s.Exclude, blank) {
			return docir.Errorf(docir.CodeConfig, "config %s: sources[%d] (%s): an empty exclude pattern", orNone(lc.File), i, s.Path)
		}
		if err := ingest.CheckFrontMatterID(s.FrontMatterID); err != nil {
			return docir.Errorf(docir.CodeConfig, "config %s: sources[%d] (%s): %w", orNone(lc.File), i, s.Path, err)
		}
	}
	if slices.ContainsFunc(lc.Exclude, blank) {
		return docir.Errorf(docir.CodeConfig, "config %s: exclude: an empty pattern", orNone(lc.File))
	}
	for i, u := range lc.Links.Site {
		if !links.SiteURL(u) {
			return docir.Errorf(docir.CodeConfig, "config %s: links.site[%d] %q: want the http or https URL a site is served at, such as https://golang.org/", orNone(lc.File), i, u)
		}
	}
	if lc.Retain < 0 || lc.MaxFileBytes < 0 {
		return docir.Errorf(docir.CodeConfig, "config %s: retain and max_file_bytes must not be negative", orNone(lc.File))
	}
	peers, err := lc.federationPeers(os.Getenv)
	if err != nil {
		return err
	}
	lc.peers = peers
	return nil
}

// federationPeers are the configured peers as the federation engine takes
// them: paths absolute, timeouts parsed, each token read from its
// environment variable with getenv. A bad entry is a config error naming it.
func (lc *loadedConfig) federationPeers(getenv func(string) string) ([]federation.PeerConfig, error) {
	out := make([]federation.PeerConfig, len(lc.Peers))
	var badTimeout error
	for i, p := range lc.Peers {
		fp := federation.PeerConfig{Name: p.Name, URL: strings.TrimSpace(p.URL), TokenEnv: p.TokenEnv, Stemming: lc.Search.Stemming}
		if strings.TrimSpace(p.Path) != "" {
			fp.Path = lc.abs(p.Path)
			if lc.isOwnStore(fp.Path) {
				return nil, docir.Errorf(docir.CodeConfig, "config %s: peers[%d] (%s): path %s is this project's own store (%s): a store is not its own peer; remove the entry", orNone(lc.File), i, p.Name, fp.Path, lc.StoreDir())
			}
		}
		if p.Timeout != "" {
			d, err := time.ParseDuration(p.Timeout)
			if (err != nil || d <= 0) && badTimeout == nil {
				badTimeout = docir.Errorf(docir.CodeConfig, "config %s: peers[%d] (%s): timeout %q: want a duration such as 5s or 1500ms", orNone(lc.File), i, p.Name, p.Timeout)
			}
			fp.Timeout = max(d, 0)
		}
		if p.TokenEnv != "" {
			fp.Token = getenv(p.TokenEnv)
		}
		out[i] = fp
	}
	// Names and shapes first, so that a timeout error can name its entry.
	if err := federation.Check(out); err != nil {
		return nil, docir.Errorf(docir.CodeConfig, "config %s: %w", orNone(lc.File), err)
	}
	if badTimeout != nil {
		return nil, badTimeout
	}
	return out, nil
}

// isOwnStore reports whether a path peer's folder is the local store, or
// the folder holding it as .docir (path: . in its own project): its
// documents would be counted twice in every fused ranking.
//
// The paths are compared as written too: before the project's first index
// its store does not exist, and `docir index` passed with the entry, after
// which every command failed on it.
func (lc *loadedConfig) isOwnStore(path string) bool {
	store := filepath.Clean(lc.StoreDir())
	dirs := []string{filepath.Clean(path), filepath.Join(path, StoreFolderName)}
	if slices.Contains(dirs, store) {
		return true
	}
	own, err := os.Stat(store)
	if err != nil {
		return false
	}
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err == nil && os.SameFile(fi, own) {
			return true
		}
	}
	return false
}

func (lc *loadedConfig) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(lc.BaseDir, p)
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// wikilinks is links.wikilinks: as docir.yaml says, else on when a
// source folder holds .obsidian/, a vault's own settings folder, or a
// GitHub wiki's _Sidebar.md or _Footer.md (a vault's and a wiki's links
// are wikilinks; elsewhere `[[x]]` is a TOML table or an array more often
// than a link).
func (lc *loadedConfig) wikilinks() bool {
	if lc.Links.Wikilinks != nil {
		return *lc.Links.Wikilinks
	}
	dirs := []string{lc.BaseDir}
	if len(lc.Sources) > 0 {
		dirs = dirs[:0]
		for _, s := range lc.Sources {
			dirs = append(dirs, lc.abs(s.Path))
		}
	}
	for _, d := range dirs {
		if st, err := os.Stat(filepath.Join(d, ".obsidian")); err == nil && st.IsDir() {
			return true
		}
		// A GitHub wiki (Gollum's): its sidebar and footer pages.
		for _, name := range []string{"_Sidebar.md", "_Footer.md"} {
			if st, err := os.Stat(filepath.Join(d, name)); err == nil && st.Mode().IsRegular() {
				return true
			}
		}
	}
	return false
}

// sourceExcludes are the sources' own exclude patterns, by absolute path,
// as ingest takes them.
func (lc *loadedConfig) sourceExcludes() map[string][]string {
	var out map[string][]string
	for _, s := range lc.Sources {
		if len(s.Exclude) > 0 {
			if out == nil {
				out = map[string][]string{}
			}
			out[lc.abs(s.Path)] = s.Exclude
		}
	}
	return out
}

// StoreDir is --store, else the config's `store:`, else .docir beside the
// config file, else the nearest .docir at or above the working folder,
// else .docir in the working folder: BaseDir is the folder of the config,
// or of that store.
func (lc *loadedConfig) StoreDir() string {
	if lc.Store != "" {
		return lc.abs(lc.Store)
	}
	return filepath.Join(lc.BaseDir, StoreFolderName)
}

// CorpusName is the config's name, else the source folders' names.
func (lc *loadedConfig) CorpusName() string {
	if n := strings.TrimSpace(lc.Name); n != "" {
		return n
	}
	var names []string
	for _, s := range lc.StoreSources() {
		names = append(names, filepath.Base(s.Path))
	}
	return strings.Join(names, ", ")
}

// CorpusDescription is the config's description, else where the corpus
// comes from.
func (lc *loadedConfig) CorpusDescription() string {
	if d := strings.TrimSpace(lc.Description); d != "" {
		return d
	}
	var paths []string
	for _, s := range lc.StoreSources() {
		paths = append(paths, s.Path)
	}
	if len(paths) == 0 {
		return ""
	}
	return "the markdown files under " + strings.Join(paths, ", ")
}

// StoreSources are the configured sources, absolute; with no config file
// and no sources, BaseDir is the one source (the working folder, or the
// folder of the store found above it).
func (lc *loadedConfig) StoreSources() []store.Source {
	if len(lc.Sources) == 0 && lc.File == "" {
		return []store.Source{{Path: lc.BaseDir}}
	}
	out := make([]store.Source, len(lc.Sources))
	for i, s := range lc.Sources {
		out[i] = store.Source{Path: lc.abs(s.Path), Prefix: s.Prefix, FrontMatterID: s.FrontMatterID}
		if s.FrontMatterID == ingest.FrontMatterIDWhole {
			out[i].FrontMatterID = "" // the default, as the store records it
		}
	}
	return out
}

// sourcesAdding is the source list with dirs (as typed, relative to the
// working folder) added: a folder already listed keeps its place, and its
// prefix changes only when prefix is given. prefix applies to every dir.
func (lc *loadedConfig) sourcesAdding(dirs []string, prefix string, setPrefix bool) ([]SourceConfig, error) {
	list := slices.Clone(lc.Sources)
	for _, d := range dirs {
		w, err := lc.asWritten(d)
		if err != nil {
			return nil, err
		}
		i := lc.indexOf(list, w)
		if i < 0 {
			if err := lc.checkNotNested(list, d, w); err != nil {
				return nil, err
			}
			list = append(list, SourceConfig{Path: w, Prefix: prefix})
		} else if setPrefix {
			list[i].Prefix = prefix
		}
	}
	return list, nil
}

// settingFrontMatterID sets the front_matter_id of the source dir (as
// typed, relative to the working folder) in list, which lists it
// (sourcesAdding).
func (lc *loadedConfig) settingFrontMatterID(list []SourceConfig, dir, rule string) error {
	w, err := lc.asWritten(dir)
	if err != nil {
		return err
	}
	if i := lc.indexOf(list, w); i >= 0 {
		list[i].FrontMatterID = rule
	}
	return nil
}

// checkNotNested refuses to add the folder w (typed as d) when it is
// inside a listed source, or holds one: every file below both would be
// indexed twice, under two ids. A source that leaves such a folder out
// (its exclude) can list it in the config by hand.
func (lc *loadedConfig) checkNotNested(list []SourceConfig, d, w string) error {
	abs := lc.abs(w)
	for _, s := range list {
		other := lc.abs(s.Path)
		switch {
		case within(abs, other):
			return docir.Errorf(docir.CodeUsage, "%s (%s) is inside the source %s listed in %s: its files are indexed already; `docir index` with no folder refreshes them", d, abs, other, lc.configFileToWrite())
		case within(other, abs):
			return docir.Errorf(docir.CodeUsage, "%s (%s) holds the source %s listed in %s: its files would be indexed twice; take that source off first (docir sources --remove %s)", d, abs, other, lc.configFileToWrite(), other)
		}
	}
	return nil
}

// within says whether the absolute path p is strictly inside the folder
// dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// sourcesRemoving is the source list without dirs; each must be listed.
func (lc *loadedConfig) sourcesRemoving(dirs []string) ([]SourceConfig, error) {
	list := slices.Clone(lc.Sources)
	for _, d := range dirs {
		w, err := lc.asWritten(d)
		if err != nil {
			return nil, err
		}
		i := lc.indexOf(list, w)
		if i < 0 {
			return nil, docir.Errorf(docir.CodeUsage, "source %s is not in the sources of %s (docir sources lists them)", d, orNone(lc.File))
		}
		list = slices.Delete(list, i, i+1)
	}
	return list, nil
}

// indexOf finds the entry of list naming the folder w (as written), by
// its absolute path, so "docs" and "./docs/" are one folder.
func (lc *loadedConfig) indexOf(list []SourceConfig, w string) int {
	abs := lc.abs(w)
	return slices.IndexFunc(list, func(s SourceConfig) bool { return lc.abs(s.Path) == abs })
}

// configFileToWrite is the config file to write sources to: the one read,
// else docir.yaml in the working folder (which is then BaseDir already).
func (lc *loadedConfig) configFileToWrite() string {
	if lc.File != "" {
		return lc.File
	}
	return filepath.Join(lc.BaseDir, ConfigFileName)
}

// saveSources writes list as the config's sources, creating the config
// file when there is none, and keeps it as the loaded config's. A config
// it creates for a store named by --store or DOCIR_STORE names that store
// too: the config is the one a read below its folder finds, and without
// the store it would read (and index anew) the .docir beside it (a
// review: `docir index . --store DIR`, then a plain search, indexed a
// second store).
func (lc *loadedConfig) saveSources(list []SourceConfig) error {
	file := lc.configFileToWrite()
	var initial []byte
	if lc.File == "" && lc.storeNamed {
		store := lc.Store
		if rel, err := filepath.Rel(lc.BaseDir, store); err == nil && filepath.IsLocal(rel) {
			store = filepath.ToSlash(rel)
		}
		var err error
		if initial, err = yaml.Marshal(map[string]string{"store": store}); err != nil {
			return docir.Errorf(docir.CodeConfig, "config %s: %w", file, err)
		}
	}
	if err := writeSources(file, list, initial); err != nil {
		return docir.Errorf(docir.CodeConfig, "config %s: %w", file, err)
	}
	lc.File, lc.Sources = file, list
	if initial != nil {
		lc.storeNamed = false // the config names it now
	}
	return nil
}
