package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/corpustest"
)

// TestStatusReportsFrontMatterID: status says each source's
// front_matter_id as `docir sources` does, in the JSON (front_matter_id)
// and after the prefix in the text, and leaves it out for a source that
// keeps the default (written as whole, or not at all). Before, status
// listed path and prefix only, so a store whose ids came from a name rule
// looked like one that took the `id:` whole.
func TestStatusReportsFrontMatterID(t *testing.T) {
	project := t.TempDir()
	if err := corpustest.WriteFiles(project, map[string]string{
		"docir.yaml": "sources:\n" +
			"  - path: site\n    prefix: v1\n    front_matter_id: name\n" +
			"  - path: paths\n    front_matter_id: off\n" +
			"  - path: plain\n" +
			"  - path: whole\n    front_matter_id: whole\n",
		"site/guide/hello.md": "---\nid: intro\n---\n# Intro\n",
		"paths/a.md":          "---\nid: elsewhere\n---\n# A\n",
		"plain/b.md":          "# B\n",
		"whole/c.md":          "---\nid: see\n---\n# C\n",
	}); err != nil {
		t.Fatal(err)
	}
	if r := runDocir(t, project, nil, "index"); r.code != 0 {
		t.Fatalf("index: %+v", r)
	}
	real, err := filepath.EvalSymlinks(project) // the store records real paths
	if err != nil {
		t.Fatal(err)
	}
	want := []docir.SourceInfo{
		{Path: filepath.Join(real, "site"), Prefix: "v1", FrontMatterID: "name"},
		{Path: filepath.Join(real, "paths"), FrontMatterID: "off"},
		{Path: filepath.Join(real, "plain")},
		{Path: filepath.Join(real, "whole")},
	}
	for _, args := range [][]string{{"status"}, {"status", "--at", "1"}} { // now, and pinned
		r := runDocir(t, project, nil, append([]string{"--format", "json"}, args...)...)
		var st docir.Status
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil {
			t.Fatalf("%v: %+v", args, r)
		}
		if diff := cmp.Diff(want, st.Sources); diff != "" {
			t.Errorf("%v: sources (-want +got):\n%s", args, diff)
		}
		if n := len(regexp.MustCompile(`"front_matter_id"`).FindAllString(r.stdout, -1)); n != 2 {
			t.Errorf("%v: front_matter_id %d times; want 2 (left out for the default):\n%s", args, n, r.stdout)
		}
	}
	r := runDocir(t, project, nil, "--format", "text", "status")
	if r.code != 0 {
		t.Fatalf("status text: %+v", r)
	}
	for _, line := range []string{
		`(?m)^source +\S+/site \(prefix v1\) \(front_matter_id name\)$`,
		`(?m)^source +\S+/paths \(front_matter_id off\)$`,
		`(?m)^source +\S+/plain$`,
		`(?m)^source +\S+/whole$`,
	} {
		if !regexp.MustCompile(line).MatchString(r.stdout) {
			t.Errorf("status text has no line %s:\n%s", line, r.stdout)
		}
	}
}

// TestStatusMissingSourceEscaped: a configured source folder that cannot
// be read is named in status's warning (stderr) and text (stdout) with its
// control characters escaped, as every other message names what was
// typed; before, a NUL and an ESC sequence from docir.yaml reached the
// terminal raw.
func TestStatusMissingSourceEscaped(t *testing.T) {
	project := t.TempDir()
	if err := corpustest.WriteFiles(project, map[string]string{
		"docir.yaml": "sources: [{path: docs}]\n",
		"docs/d.md":  "# D\n",
	}); err != nil {
		t.Fatal(err)
	}
	if r := runDocir(t, project, nil, "index"); r.code != 0 {
		t.Fatalf("index: %+v", r)
	}
	if err := corpustest.WriteFiles(project, map[string]string{"docir.yaml": "sources: [{path: \"docs\\u001b[2Jy\"}]\n"}); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "text"} {
		r := runDocir(t, project, nil, "status", "--format", format)
		if regexp.MustCompile(`\x1b`).MatchString(r.stdout + r.stderr) {
			t.Errorf("--format %s: a raw ESC in the output: %+v", format, r)
		}
		if !regexp.MustCompile(`docs\\x1b\[2Jy`).MatchString(r.stdout + r.stderr) {
			t.Errorf("--format %s: the source is not named escaped: %+v", format, r)
		}
	}
}
