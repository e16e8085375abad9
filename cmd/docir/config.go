package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/federation"
	"github.com/docir/docir/store"
)

// ConfigFileName is the config file docir looks for, from the current
// folder up to the root, when --config is not given.
const ConfigFileName = "docir.yaml"

// Config is docir.yaml, typed. Relative paths in it are relative to the
// folder of the config file.
type Config struct {
	Store        string         `mapstructure:"store"`
	Format       string         `mapstructure:"format"`
	Sources      []SourceConfig `mapstructure:"sources"`
	Retain       int            `mapstructure:"retain"`
	MaxFileBytes int64          `mapstructure:"max_file_bytes"`
	Peers        []PeerConfig   `mapstructure:"peers"`
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
	Path   string `mapstructure:"path"`
	Prefix string `mapstructure:"prefix"`
}

// loadedConfig is the config with where it came from resolved.
type loadedConfig struct {
	Config
	File    string // the config file, "" when there is none
	BaseDir string // where relative paths start: the config's folder, else the working folder
	// peers are Peers as the federation engine takes them, checked and
	// resolved once by validate.
	peers []federation.PeerConfig
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
	for {
		p := filepath.Join(dir, ConfigFileName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
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
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, docir.Errorf(docir.CodeConfig, "config %s: %v", file, err)
		}
	}
	if err := v.UnmarshalExact(&lc.Config); err != nil {
		return nil, docir.Errorf(docir.CodeConfig, "config %s: %v", orNone(file), err)
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
		return docir.Errorf(docir.CodeUsage, "format %q: want auto, json or text", lc.Format)
	}
	for i, s := range lc.Sources {
		if strings.TrimSpace(s.Path) == "" {
			return docir.Errorf(docir.CodeConfig, "config %s: sources[%d] has no path", orNone(lc.File), i)
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
		fp := federation.PeerConfig{Name: p.Name, URL: strings.TrimSpace(p.URL), TokenEnv: p.TokenEnv}
		if strings.TrimSpace(p.Path) != "" {
			fp.Path = lc.abs(p.Path)
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
		return nil, docir.Errorf(docir.CodeConfig, "config %s: %v", orNone(lc.File), err)
	}
	if badTimeout != nil {
		return nil, badTimeout
	}
	return out, nil
}

func (lc *loadedConfig) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(lc.BaseDir, p)
}

// StoreDir is --store, else the config's `store:`, else .docir beside the
// config file (or in the working folder).
func (lc *loadedConfig) StoreDir() string {
	if lc.Store != "" {
		return lc.abs(lc.Store)
	}
	return filepath.Join(lc.BaseDir, ".docir")
}

// StoreSources are the configured sources, absolute; with no config file
// and no sources, the working folder is the one source.
func (lc *loadedConfig) StoreSources() []store.Source {
	if len(lc.Sources) == 0 && lc.File == "" {
		return []store.Source{{Path: lc.BaseDir}}
	}
	out := make([]store.Source, len(lc.Sources))
	for i, s := range lc.Sources {
		out[i] = store.Source{Path: lc.abs(s.Path), Prefix: s.Prefix}
	}
	return out
}

// saveSources records dirs as the config's sources, keeping each one's
// prefix if it was configured, and writes the config file (creating
// docir.yaml in the working folder when there is none). Everything else in
// the file, comments included, is kept.
func (lc *loadedConfig) saveSources(dirs []string) ([]store.Source, error) {
	file := lc.File
	if file == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		file = filepath.Join(wd, ConfigFileName)
		lc.File, lc.BaseDir = file, wd
	}
	prefixes := map[string]string{}
	for _, s := range lc.Sources {
		prefixes[lc.abs(s.Path)] = s.Prefix
	}
	var list []SourceConfig
	var out []store.Source
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		rel := abs
		if r, err := filepath.Rel(lc.BaseDir, abs); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
		}
		list = append(list, SourceConfig{Path: rel, Prefix: prefixes[abs]})
		out = append(out, store.Source{Path: abs, Prefix: prefixes[abs]})
	}
	if err := writeSources(file, list); err != nil {
		return nil, docir.Errorf(docir.CodeConfig, "config %s: %v", file, err)
	}
	lc.Sources = list
	return out, nil
}

// writeSources sets the `sources:` key of the YAML file at path, creating
// the file if needed, through the YAML node tree so the rest is untouched.
func writeSources(path string, list []SourceConfig) error {
	var doc yaml.Node
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return err
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("top level is not a mapping")
	}
	var seq yaml.Node
	items := make([]map[string]string, len(list))
	for i, s := range list {
		items[i] = map[string]string{"path": s.Path}
		if s.Prefix != "" {
			items[i]["prefix"] = s.Prefix
		}
	}
	if err := seq.Encode(items); err != nil {
		return err
	}
	replaced := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "sources" {
			root.Content[i+1] = &seq
			replaced = true
		}
	}
	if !replaced {
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "sources"}, &seq)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
