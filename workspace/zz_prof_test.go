package workspace

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/docir/docir/docir"
)

func TestZZProf(t *testing.T) {
	dir, set := os.Getenv("ZZ_STORE"), os.Getenv("ZZ_SET")
	if dir == "" {
		t.Skip()
	}
	f, _ := os.Open(set)
	defer f.Close()
	var qs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct{ Query string }
		json.Unmarshal(sc.Bytes(), &r)
		qs = append(qs, r.Query)
	}
	ws := New(Config{Dir: dir})
	defer ws.Close()
	start := time.Now()
	for _, q := range qs {
		if _, err := ws.Search(context.Background(), docir.SearchParams{Query: q}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d queries, %.2f ms/query", len(qs), float64(time.Since(start).Microseconds())/1000/float64(len(qs)))
}
