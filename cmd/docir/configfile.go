package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/workspace"
)

// This file reads docir.yaml as a YAML node tree, to check it before
// viper sees it (unknown keys with a did-you-mean, numbers in range, each
// error naming the file, line and key) and to edit its `sources:` in
// place, leaving every other byte of the file as it was.

// checkConfigFile checks the keys and scalar types of the config file's
// node tree against the Config struct.
func checkConfigFile(file string, data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return docir.Errorf(docir.CodeConfig, "config %s: %w", file, err)
	}
	// One document: what follows a second "---" would be read by no one
	// (viper reads the first), so it is refused, not dropped.
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == io.EOF:
	case err != nil:
		return docir.Errorf(docir.CodeConfig, "config %s: %w", file, err)
	case !emptyDocument(&next):
		return docir.Errorf(docir.CodeConfig, "config %s: line %d: a second YAML document (after a \"---\" line); docir reads one: put its keys in the first", file, next.Content[0].Line)
	}
	if emptyDocument(&doc) {
		return nil // an empty file, or only comments
	}
	return checkNode(file, "", doc.Content[0], reflect.TypeFor[Config]())
}

// emptyDocument reports whether a decoded YAML document holds nothing: no
// node, or only comments (a null).
func emptyDocument(doc *yaml.Node) bool {
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return true
	}
	root := doc.Content[0]
	return root.Kind == yaml.ScalarNode && root.Tag == "!!null"
}

// checkNode checks node against the struct type t: every key is one of t's
// mapstructure keys, every integer field holds a whole number that fits.
func checkNode(file, at string, node *yaml.Node, t reflect.Type) error {
	if node.Kind != yaml.MappingNode {
		return configErr(file, node, at, "want a mapping of keys")
	}
	known := map[string]reflect.StructField{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if k := f.Tag.Get("mapstructure"); k != "" && k != "-" {
			known[k] = f
			names = append(names, k)
		}
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], node.Content[i+1]
		key := k.Value
		f, ok := known[key]
		if !ok {
			msg := fmt.Sprintf("unknown key %q", key)
			if near := nearest(key, names); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			return configErr(file, k, at, msg+"; known keys: "+strings.Join(names, ", "))
		}
		where := join(at, key)
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int64:
			n, err := strconv.ParseInt(v.Value, 0, 64)
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || n < 1 {
				return configErr(file, v, where, fmt.Sprintf("%q: want a whole number from 1 up (leave the key out for the default)", v.Value))
			}
		case reflect.String:
			if v.Kind != yaml.ScalarNode {
				return configErr(file, v, where, "want a single value")
			}
			if key == "format" && at == "" && !slices.Contains([]string{"auto", "json", "text"}, v.Value) {
				return configErr(file, v, where, fmt.Sprintf("%q: want auto, json or text", v.Value))
			}
			if key == "front_matter_id" && ingest.CheckFrontMatterID(v.Value) != nil {
				return configErr(file, v, where, fmt.Sprintf("%q: want %s (the `id:` is the whole id, the default), %s (it replaces the file's name, as Docusaurus reads it) or %s (ids from paths only)", v.Value, ingest.FrontMatterIDWhole, ingest.FrontMatterIDName, ingest.FrontMatterIDOff))
			}
			if where == "search.stemming" && !slices.Contains(fulltext.Stemmings, v.Value) {
				return configErr(file, v, where, fmt.Sprintf("%q: want english, or nothing for none", v.Value))
			}
		case reflect.Slice:
			if v.Kind != yaml.SequenceNode {
				return configErr(file, v, where, "want a list")
			}
			for j, item := range v.Content {
				at := fmt.Sprintf("%s[%d]", where, j)
				if f.Type.Elem().Kind() != reflect.Struct {
					if item.Kind != yaml.ScalarNode {
						return configErr(file, item, at, "want a single value")
					}
					continue
				}
				if err := checkNode(file, at, item, f.Type.Elem()); err != nil {
					return err
				}
			}
		case reflect.Struct:
			if err := checkNode(file, where, v, f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func configErr(file string, n *yaml.Node, at, msg string) error {
	if at != "" {
		msg = at + ": " + msg
	}
	return docir.Errorf(docir.CodeConfig, "config %s:%d: %s", file, n.Line, msg)
}

// nearest is the candidate closest to s by edit distance, if it is near
// enough to be a typo; else "".
func nearest(s string, candidates []string) string {
	return closest(s, candidates, max(2, len(s)/3))
}

// closest is the candidate closest to s by edit distance, if that is at
// most within; else "".
func closest(s string, candidates []string, within int) string {
	best, bestD := "", within+1
	for _, c := range candidates {
		if d := docir.EditDistance(s, c, within); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// writeSources sets the `sources:` key of the YAML file at path to list,
// creating the file if needed (from initial, other keys it is to hold). Only the lines of the old `sources:` value
// are replaced; every other byte of the file, comments and blank lines
// included, is kept. Entries that stay keep their own comments.
//
// The file is replaced by a rename, so it must be a regular file: a link is
// followed and the file it names is written (the link stays), and anything
// else (/dev/null, a FIFO, a folder) is refused before anything is
// written, never replaced by a file.
func writeSources(path string, list []SourceConfig, initial []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	var perm fs.FileMode = 0o644 // a new file's, less the umask
	keep := false
	if info, err := os.Stat(path); err == nil {
		if !info.Mode().IsRegular() {
			return fmt.Errorf("not a regular file (%s): docir keeps the source list in its config file; give --config a file", info.Mode().Type())
		}
		perm, keep = info.Mode().Perm(), true // the file's own, whatever the umask
	}
	data, err := workspace.ReadFile(path, maxConfigBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = initial
	case err != nil:
		return err
	}
	out, err := editSources(data, list)
	if err != nil {
		return err
	}
	return replaceFile(path, out, perm, keep)
}

// replaceFile writes data to a new file beside path, with a name no other
// writer uses, and renames it over path. perm is the new file's
// permissions: less the umask, or exactly them when exact (those of the
// file it replaces).
func replaceFile(path string, data []byte, perm fs.FileMode, exact bool) error {
	var f *os.File
	for {
		var err error
		f, err = os.OpenFile(fmt.Sprintf("%s.%08x.tmp", path, rand.Uint32()), os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	var err error
	if exact {
		err = f.Chmod(perm)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// editSources returns data with its `sources:` set to list. The result is
// read back: a layout it cannot edit in place is refused, never written.
// Besides sources, every other top-level key must read as before: a block
// scalar (`key: |`) that ends the file without a newline gains one when
// sources are appended after it, so that file is refused too.
func editSources(data []byte, list []SourceConfig) ([]byte, error) {
	out, err := spliceSources(data, list)
	if err != nil {
		return nil, err
	}
	refused := fmt.Errorf("cannot rewrite sources: in this layout; edit the file by hand")
	var back struct {
		Sources []SourceConfig `yaml:"sources"`
	}
	if err := yaml.Unmarshal(out, &back); err != nil || !slices.EqualFunc(back.Sources, list, sameSource) {
		return nil, refused
	}
	var before, after map[string]any
	if yaml.Unmarshal(data, &before) != nil || yaml.Unmarshal(out, &after) != nil {
		return nil, refused
	}
	delete(before, "sources")
	delete(after, "sources")
	if !maps.EqualFunc(before, after, func(a, b any) bool { return reflect.DeepEqual(a, b) }) {
		return nil, refused
	}
	return out, nil
}

func spliceSources(data []byte, list []SourceConfig) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var root *yaml.Node
	if len(doc.Content) > 0 {
		root = doc.Content[0]
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			root = nil // only comments
		} else if root.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("top level is not a mapping")
		}
	}
	var key, old, next *yaml.Node
	if root != nil {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "sources" {
				key, old = root.Content[i], root.Content[i+1]
				if i+2 < len(root.Content) {
					next = root.Content[i+2]
				}
			}
		}
	}
	seq := sourcesNode(old, list)
	block, err := encodeSources(key, old, seq)
	if err != nil {
		return nil, err
	}
	if key == nil {
		// Append at the end, after a newline if the file lacks one.
		out := append([]byte(nil), data...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, block...), nil
	}
	// Replace the lines from the key to the last line of its value: up to
	// the next key, less the blank and comment lines before that key (they
	// are its own, or the list's foot comments, and stay).
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	first, last := key.Line-1, len(lines)-1
	if next != nil {
		last = next.Line - 2
	}
	for last >= lastLine(old) {
		l := bytes.TrimSpace(lines[last])
		if len(l) > 0 && l[0] != '#' {
			break
		}
		last--
	}
	if key.Column != 1 || first < 0 || last >= len(lines) || last < first {
		return nil, fmt.Errorf("sources: unexpected layout (line %d)", key.Line)
	}
	var out []byte
	for _, l := range lines[:first] {
		out = append(out, l...)
	}
	out = append(out, block...)
	for _, l := range lines[last+1:] {
		out = append(out, l...)
	}
	return out, nil
}

// sourcesNode builds the new sequence: entries of old whose path is still
// listed keep their node (and comments), with the prefix updated; new
// entries are appended as plain mappings.
func sourcesNode(old *yaml.Node, list []SourceConfig) *yaml.Node {
	kept := map[string]*yaml.Node{}
	if old != nil && old.Kind == yaml.SequenceNode {
		for _, item := range old.Content {
			if p := mapValue(item, "path"); p != nil {
				kept[p.Value] = item
			}
		}
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, s := range list {
		item := kept[s.Path]
		if item == nil {
			item = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			setMapValue(item, "path", s.Path)
		}
		setMapValue(item, "prefix", s.Prefix)
		setMapValue(item, "front_matter_id", s.FrontMatterID)
		item.Style = 0 // block style, whatever it was
		seq.Content = append(seq.Content, item)
	}
	if len(seq.Content) == 0 {
		seq.Style = yaml.FlowStyle // sources: []
	}
	return seq
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setMapValue sets key to value in m; an empty value removes the key.
func setMapValue(m *yaml.Node, key, value string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if value == "" {
				m.Content = append(m.Content[:i], m.Content[i+2:]...)
			} else {
				m.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value, LineComment: m.Content[i+1].LineComment}
			}
			return
		}
	}
	if value != "" {
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
	}
}

// encodeSources renders `sources:` and its value as YAML lines. The key's
// head comment and the value's foot comments stay where they are in the
// file, outside the replaced lines, so they are not written again.
func encodeSources(key, old, seq *yaml.Node) ([]byte, error) {
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "sources"}
	if key != nil {
		k.LineComment = key.LineComment
		if k.LineComment == "" {
			k.LineComment = old.LineComment // `sources: [a, b] # comment`
		}
	}
	seq.FootComment = ""
	if n := len(seq.Content); n > 0 {
		seq.Content[n-1].FootComment = ""
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{k, seq}}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// lastLine is the last line any node under n starts on (a multi-line
// scalar goes on below it).
func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}

// asWritten is how a source folder the user typed (relative to the
// working folder) is recorded in the config: relative to the config's
// folder, or absolute when typed absolute.
func (lc *loadedConfig) asWritten(dir string) (string, error) {
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir), nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(lc.BaseDir, abs)
	if err != nil {
		return abs, nil
	}
	return filepath.ToSlash(rel), nil
}
