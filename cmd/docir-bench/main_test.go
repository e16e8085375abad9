package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseInitTrace(t *testing.T) {
	in := strings.Join([]string{
		"init internal/bytealg @0.008 ms, 0 ms clock, 0 bytes, 0 allocs",
		"init github.com/blevesearch/bleve/v2/index/scorch @3.1 ms, 2.750 ms clock, 1089208 bytes, 25787 allocs",
		"docir version dev",
		"init broken @x ms",
		"",
	}, "\n")
	got := parseInitTrace(strings.NewReader(in))
	want := []initRecord{
		{pkg: "internal/bytealg"},
		{pkg: "github.com/blevesearch/bleve/v2/index/scorch", clockMS: 2.75, bytes: 1089208, allocs: 25787},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(initRecord{})); diff != "" {
		t.Errorf("parseInitTrace (-want +got):\n%s", diff)
	}
}

func FuzzParseInitTrace(f *testing.F) {
	f.Add("init os @0.1 ms, 0.2 ms clock, 3 bytes, 4 allocs\n")
	f.Add("init  @ ms, ms clock\n\x00")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range parseInitTrace(strings.NewReader(s)) {
			if r.pkg == "" {
				t.Errorf("a record without a package from %q", s)
			}
		}
	})
}

func TestStatsAndRatios(t *testing.T) {
	ms := func(n int) sample {
		return sample{wall: time.Duration(n) * time.Millisecond, cpu: time.Duration(n) * time.Microsecond}
	}
	r := row{
		a: []sample{ms(10), ms(30), ms(20), ms(40)},
		b: []sample{ms(5), ms(10), ms(10), ms(10)},
	}
	tests := []struct {
		name string
		got  stats
		want stats
	}{
		{"walls, even count", statsOf(walls(r.a)), stats{min: 10e6, median: 25e6, max: 40e6}},
		{"per-pair ratios", statsOf(r.ratios()), stats{min: 2, median: 2.5, max: 4}},
		{"per-pair CPU ratios", statsOf(r.cpuRatios()), stats{min: 2, median: 2.5, max: 4}},
		{"odd count", statsOf([]float64{3, 1, 2}), stats{min: 1, median: 2, max: 3}},
		{"none", statsOf(nil), stats{}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, tc.got, cmp.AllowUnexported(stats{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	// A base run with no time is left out, not divided by.
	if got := pairRatios([]sample{ms(1)}, []sample{{}}, func(s sample) time.Duration { return s.wall }); len(got) != 0 {
		t.Errorf("ratio over a zero base: %v", got)
	}
}

func TestFrontMatter(t *testing.T) {
	tests := []struct{ rel, want string }{
		{"pages/linux/tar.md", "kind: linux\nlang: en\ntags: [tldr, linux, set2]\n"},
		{"pages.pt_BR/common/ls.md", "kind: common\nlang: pt_BR\ntags: [tldr, common, set2]\n"},
		{"README.md", "kind: common\nlang: en\ntags: [tldr, common, set2]\n"},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, tldrFrontMatter(tc.rel, "set2")); diff != "" {
			t.Errorf("tldrFrontMatter(%q) (-want +got):\n%s", tc.rel, diff)
		}
	}
	if got, want := rfcFrontMatter("3327-lang-team-advisors.md"), "kind: rfc\nlang: en\ntags: [rfc, rfc-3xxx]\n"; got != want {
		t.Errorf("rfcFrontMatter = %q, want %q", got, want)
	}
}

func TestWithFrontMatter(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	files := map[string]string{
		"plain.md":      "# Plain\n\ntext\n",
		"sub/has-fm.md": "---\ntitle: Kept\n---\n\nbody\n",
		"sub/notes.txt": "not markdown",
	}
	for name, body := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := withFrontMatter(src, dst, func(rel string) string { return "kind: x\n" }); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"plain.md":      "---\nkind: x\n---\n\n# Plain\n\ntext\n",
		"sub/has-fm.md": "---\nkind: x\ntitle: Kept\n---\n\nbody\n",
	}
	got := map[string]string{}
	err := filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dst, p)
		got[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("withFrontMatter (-want +got):\n%s", diff)
	}
}

func TestDiskUsageCountsALinkOnce(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	if err := os.WriteFile(a, make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	one, err := diskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(a, filepath.Join(dir, "b")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	two, err := diskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	if one < 64<<10 || two != one {
		t.Errorf("diskUsage: %d with one file, %d with a second link to it; want ≥ 64 KiB and equal", one, two)
	}
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{512 << 10, "512 KiB"},
		{72142028, "68.8 MiB"},
		{281 << 20, "281 MiB"},
		{-(2 << 20), "-2.0 MiB"},
	}
	for _, tc := range tests {
		if got := byteSize(tc.in); got != tc.want {
			t.Errorf("byteSize(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
