package session

import (
	"bufio"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkGetRoundTrip times one docir/get inside the server, from the
// request frame to the reply line, over the fixture store:
//
//   - handle/doc_id and handle/doc_ids-3: Engine.Handle, the work every
//     transport shares (decode, closed params, read, encode, bound check);
//   - ndjson/doc_id: the same through the NDJSON session over pipes, as a
//     host sees it: write a line, read the reply line.
//
// Besides ns/op it reports the median of the individual round trips
// (median-µs), which the target (≤ 0.3 ms) is stated for.
func BenchmarkGetRoundTrip(b *testing.B) {
	ws, _ := testStore(b, nil)
	e := New(Config{Reader: ws})
	ctx := context.Background()
	frames := map[string][]byte{
		"doc_id":    []byte(`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_id":"runbooks/disk-full#mitigate"}}`),
		"doc_ids-3": []byte(`{"jsonrpc":"2.0","id":1,"method":"docir/get","params":{"doc_ids":["runbooks/disk-full#mitigate","adr/0001-record-architecture-decisions","nope"]}}`),
	}
	for _, name := range []string{"doc_id", "doc_ids-3"} {
		frame := frames[name]
		b.Run("handle/"+name, func(b *testing.B) {
			if r := e.Handle(ctx, frame); !strings.Contains(string(r), `"result"`) {
				b.Fatalf("reply %s", r)
			}
			var times []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				e.Handle(ctx, frame)
				times = append(times, time.Since(start))
			}
			reportMedian(b, times)
		})
	}
	b.Run("ndjson/doc_id", func(b *testing.B) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- Serve(ctx, e, inR, outW) }()
		replies := bufio.NewReader(outR)
		line := append(frames["doc_id"], '\n')
		var times []time.Duration
		b.ReportAllocs()
		for b.Loop() {
			start := time.Now()
			if _, err := inW.Write(line); err != nil {
				b.Fatal(err)
			}
			if _, err := replies.ReadSlice('\n'); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		reportMedian(b, times)
		inW.Close()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	})
}

func reportMedian(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	med := times[len(times)/2]
	b.ReportMetric(float64(med.Nanoseconds())/1e3, "median-µs")
	if testing.Verbose() {
		b.Logf("%d round trips: median %v, p99 %v", len(times), med, times[len(times)*99/100])
	}
}
