package binding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/gowebpki/jcs"

	"github.com/docir/docir/docir"
)

var update = flag.Bool("update", false, "rewrite the golden receipts in testdata/receipts")

const (
	wsA = "5f0c3a1e9b7d4c2a8e6f1b3d5a7c9e0f"
	wsB = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
)

var rejected = &docir.Error{Code: docir.CodeBindingRejected}

func wantRejected(t *testing.T, what string, err error) {
	t.Helper()
	t.Logf("%s: %v", what, err)
	if !errors.Is(err, rejected) {
		t.Errorf("%s: got %v (code %q), want binding_rejected", what, err, docir.CodeOf(err))
	}
}

// wantStale fails unless err is a stale_revision: a pin on a generation
// the store no longer retains (a receipt may be genuine, but its
// generation is gone).
func wantStale(t *testing.T, what string, err error) {
	t.Helper()
	t.Logf("%s: %v", what, err)
	if docir.CodeOf(err) != docir.CodeStaleRevision {
		t.Errorf("%s: got %v (code %q), want stale_revision", what, err, docir.CodeOf(err))
	}
}

// The receipt's wire shape, pinned field by field.
func TestReceiptShape(t *testing.T) {
	ctx := context.Background()
	f := newFake(wsA, 3)
	b, err := Bind(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	r := b.Receipt()
	want := `{"authority":false,"manifest_digest":"` + fakeDigest(wsA, 1) + `","revision":1,"schema":"docir.workspace-binding.v1","workspace":"` + wsA + `"}`
	if diff := cmp.Diff(want, string(r.Canonical())); diff != "" {
		t.Fatalf("receipt (-want +got):\n%s", diff)
	}
	if r.Digest() != digest(SchemaBinding, []byte(want)) || r.Schema() != SchemaBinding {
		t.Fatalf("digest %s", r.Digest())
	}
	file := r.Marshal()
	if diff := cmp.Diff(`{"digest":"`+r.Digest()+`","receipt":`+want+"}\n", string(file)); diff != "" {
		t.Fatalf("receipt file (-want +got):\n%s", diff)
	}
	if canon, err := jcs.Transform(bytes.TrimSuffix(file, []byte("\n"))); err != nil || !bytes.Equal(canon, bytes.TrimSuffix(file, []byte("\n"))) {
		t.Fatalf("receipt file not canonical: %v", err)
	}
	if len(file) > MaxReceiptBytes {
		t.Fatalf("receipt file of %d bytes", len(file))
	}
	c, err := ParseReceipt(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Claim{Workspace: wsA, Revision: 1, ManifestDigest: fakeDigest(wsA, 1), Digest: r.Digest()}, c, cmpopts.IgnoreUnexported(Claim{})); diff != "" {
		t.Fatalf("claim (-want +got):\n%s", diff)
	}
}

// The evidence's wire shape, pinned field by field.
func TestEvidenceShape(t *testing.T) {
	f := newFake(wsA, 3)
	b, err := Bind(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	req, resp := []byte(`{"addresses":["a"]}`), []byte(`{"documents":[]}`)
	e := b.Evidence("docir/get", req, resp)
	want := `{"authority":false,"binding_digest":"` + b.Receipt().Digest() + `","method":"docir/get","request_digest":"` +
		sha256Hex(req) + `","response_digest":"` + sha256Hex(resp) + `","schema":"docir.read-evidence.v1"}`
	if diff := cmp.Diff(want, string(e.Canonical())); diff != "" {
		t.Fatalf("evidence (-want +got):\n%s", diff)
	}
	if e.Digest() != digest(SchemaEvidence, []byte(want)) || e.Method() != "docir/get" || e.Binding().Digest() != b.Receipt().Digest() {
		t.Fatalf("evidence %s", e.Digest())
	}
	file := e.Marshal()
	var env map[string]json.RawMessage
	if err := json.Unmarshal(file, &env); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"binding", "digest", "evidence", "request"}, slices.Sorted(maps.Keys(env))); diff != "" {
		t.Fatalf("evidence file fields (-want +got):\n%s", diff)
	}
	if canon, err := jcs.Transform(bytes.TrimSuffix(file, []byte("\n"))); err != nil || !bytes.Equal(canon, bytes.TrimSuffix(file, []byte("\n"))) {
		t.Fatalf("evidence file not canonical: %v", err)
	}
	c, err := ParseEvidence(file)
	if err != nil {
		t.Fatal(err)
	}
	if c.Method != "docir/get" || string(c.Request) != string(req) || c.ResponseDigest != sha256Hex(resp) || c.Digest != e.Digest() || c.Binding.Revision != 1 {
		t.Fatalf("claim %+v", c)
	}
}

// Golden v1 receipts: bytes made once and never to change. The digests are
// pinned here too, so -update cannot quietly move them.
const (
	goldenManifest       = "9b3c6f0e2d1a4b5c8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"
	goldenBindingDigest  = "83b93af50a19330ffc49d67d5d3e2c13b27075249fdf9d97e5bf3b44964ffa7f"
	goldenEvidenceDigest = "a39cc0c8feea0a6f4415304b8af4aa2be2d0032a520995e9d19e89ff0b1ed421"
	goldenRequest        = `{"addresses":["runbooks/disk-full#Mitigate"]}`
	goldenResponse       = `{"documents":[{"address":"runbooks/disk-full#Mitigate"}],"missing":[]}`
)

// goldenService holds generation 7 of workspace wsA with goldenManifest.
func goldenService() *fakeService {
	return &fakeService{workspace: wsA, retain: 3, next: 7, gens: []Generation{{Revision: 7, ManifestDigest: goldenManifest}}}
}

func TestGoldenV1(t *testing.T) {
	ctx := context.Background()
	svc := goldenService()
	b, err := Select(ctx, svc, wsA, 7)
	if err != nil {
		t.Fatal(err)
	}
	e := b.Evidence("docir/get", []byte(goldenRequest), []byte(goldenResponse))
	for _, g := range []struct {
		name   string
		bytes  []byte
		digest string
		pinned string
	}{
		{"binding-v1.json", b.Receipt().Marshal(), b.Receipt().Digest(), goldenBindingDigest},
		{"evidence-v1.json", e.Marshal(), e.Digest(), goldenEvidenceDigest},
	} {
		path := filepath.Join("..", "..", "testdata", "receipts", g.name)
		if *update {
			if err := os.WriteFile(path, g.bytes, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(g.bytes)); diff != "" {
			t.Errorf("%s changed (-golden +now):\n%s", g.name, diff)
		}
		if g.digest != g.pinned {
			t.Errorf("%s: digest %s, pinned %s", g.name, g.digest, g.pinned)
		}
	}
	file, err := os.ReadFile(filepath.Join("..", "..", "testdata", "receipts", "binding-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Replay(ctx, svc, file); err != nil {
		t.Errorf("the v1 receipt no longer replays: %v", err)
	}
	ev, err := os.ReadFile(filepath.Join("..", "..", "testdata", "receipts", "evidence-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(_ context.Context, b *Binding, method string, req []byte) ([]byte, error) {
		if b.Revision() != 7 || method != "docir/get" || string(req) != goldenRequest {
			t.Errorf("re-ran %s %q on %d", method, req, b.Revision())
		}
		return []byte(goldenResponse), nil
	}
	if _, err := VerifyEvidence(ctx, svc, ev, run); err != nil {
		t.Errorf("the v1 evidence no longer verifies: %v", err)
	}
}

// Every forgery of a genuine receipt is rejected: by ParseReceipt when the
// file is not self-consistent, by Replay when it is but does not match the
// store.
func TestForgeriesRejected(t *testing.T) {
	ctx := context.Background()
	f := newFake(wsA, 3)
	f.publish() // generations 1 and 2 retained; 2 current
	b1, err := Select(ctx, f, wsA, 1)
	if err != nil {
		t.Fatal(err)
	}
	good := string(b1.Receipt().Marshal())
	d1, d2 := fakeDigest(wsA, 1), fakeDigest(wsA, 2)
	remint := func(ws string, rev uint64, md string) string { return string(newReceipt(ws, rev, md).Marshal()) }
	body := string(b1.Receipt().Canonical())
	reordered := strings.Replace(good, body, `{"schema":"docir.workspace-binding.v1","authority":false,"manifest_digest":"`+d1+`","revision":1,"workspace":"`+wsA+`"}`, 1)
	var pretty bytes.Buffer
	json.Indent(&pretty, []byte(good), "", "  ")

	foreign, err := Bind(ctx, newFake(wsB, 3))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		file string
	}{
		{"edited manifest digest", strings.Replace(good, d1, d2, 1)},
		{"edited revision", strings.Replace(good, `"revision":1`, `"revision":2`, 1)},
		{"edited digest", strings.Replace(good, b1.Receipt().Digest(), digest(SchemaBinding, []byte("x")), 1)},
		{"edited authority", strings.Replace(good, `"authority":false`, `"authority":true`, 1)},
		{"reordered keys", reordered},
		{"reordered envelope", `{"receipt":` + body + `,"digest":"` + b1.Receipt().Digest() + `"}`},
		{"pretty-printed", pretty.String()},
		{"space added", strings.Replace(good, `"revision":1`, `"revision": 1`, 1)},
		{"escaped character", strings.Replace(good, `"schema"`, `"sch\u0065ma"`, 1)},
		{"remint over an edited manifest digest", remint(wsA, 1, d2)},
		{"remint of generation 2 with generation 1's manifest", remint(wsA, 2, d1)},
		{"remint of an unknown generation", remint(wsA, 9, d1)},
		{"foreign workspace", string(foreign.Receipt().Marshal())},
		{"remint onto this workspace", remint(wsA, 1, fakeDigest(wsB, 1))},
		{"duplicate key", strings.Replace(good, `"authority":false,`, `"authority":false,"authority":false,`, 1)},
		{"key in another case", strings.Replace(strings.Replace(good, `"revision":1,`, "", 1), `"receipt":{`, `"receipt":{"Revision":1,`, 1)},
		{"unknown field", strings.Replace(good, `"authority":false,`, `"authority":false,"extra":1,`, 1)},
		{"missing field", remintWithout(good, d1)},
		{"other schema", strings.Replace(good, "workspace-binding.v1", "workspace-binding.v2", 1)},
		{"two trailing newlines", good + "\n"},
		{"trailing data", strings.TrimSuffix(good, "\n") + " {}"},
		{"empty", ""},
		{"not json", "receipt"},
		{"array", "[" + strings.TrimSuffix(good, "\n") + "]"},
		{"oversize", strings.TrimSuffix(good, "}\n") + `,"pad":"` + strings.Repeat("a", MaxReceiptBytes) + `"}`},
		{"machine path as workspace", remint("/home/me/docs/.docir", 1, d1)},
		// encoding/json matches keys whatever their case: these stay in
		// RFC 8785 order, and were accepted (issue 28).
		{"envelope key upper case", strings.Replace(good, `"digest"`, `"DIGEST"`, 1)},
		{"envelope key case changed", strings.Replace(good, `"receipt"`, `"rECEIPT"`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Replay(ctx, f, []byte(tt.file))
			wantRejected(t, "replay", err)
		})
	}
	// The genuine receipt, and a genuine one of generation 2, replay.
	for _, file := range []string{good, strings.TrimSuffix(good, "\n"), remint(wsA, 2, d2)} {
		if _, err := Replay(ctx, f, []byte(file)); err != nil {
			t.Errorf("genuine receipt rejected: %v\n%s", err, file)
		}
	}
}

// remintWithout drops the manifest_digest field and reseals the envelope.
func remintWithout(good, md string) string {
	var env struct {
		Receipt json.RawMessage `json:"receipt"`
	}
	json.Unmarshal([]byte(good), &env)
	body := strings.Replace(string(env.Receipt), `"manifest_digest":"`+md+`",`, "", 1)
	return `{"digest":"` + digest(SchemaBinding, []byte(body)) + `","receipt":` + body + "}\n"
}

func TestEvidenceForgeriesRejected(t *testing.T) {
	ctx := context.Background()
	f := newFake(wsA, 3)
	b, err := Bind(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	req, resp := []byte(`{"query":"disk"}`), []byte(`{"hits":[]}`)
	good := string(b.Evidence("docir/search", req, resp).Marshal())
	bd := b.Receipt().Digest()
	answer := func(r []byte) Runner {
		return func(context.Context, *Binding, string, []byte) ([]byte, error) { return r, nil }
	}
	if _, err := VerifyEvidence(ctx, f, []byte(good), answer(resp)); err != nil {
		t.Fatalf("genuine evidence: %v", err)
	}
	otherReq := `{"query":"other"}`
	tests := []struct {
		name string
		file string
		run  Runner
	}{
		{"other response", good, answer([]byte(`{"hits":[1]}`))},
		{"edited request", strings.Replace(good, b64enc(req), b64enc([]byte(otherReq)), 1), answer(resp)},
		{"edited method", strings.Replace(good, `"docir/search"`, `"docir/query"`, 1), answer(resp)},
		{"remint over another response", string(b.Evidence("docir/search", req, []byte(`{"hits":[2]}`)).Marshal()), answer(resp)},
		{"edited response digest", strings.Replace(good, sha256Hex(resp), sha256Hex([]byte("x")), 1), answer(resp)},
		{"reordered", strings.Replace(good, `{"authority":false,"binding_digest":"`+bd+`"`, `{"binding_digest":"`+bd+`","authority":false`, 1), answer(resp)},
		{"authority", strings.Replace(good, `"authority":false,"binding`, `"authority":true,"binding`, 1), answer(resp)},
		// Keys whatever their case, still in RFC 8785 order (issue 28).
		{"binding key case changed", strings.Replace(good, `{"binding":`, `{"bINDING":`, 1), answer(resp)},
		{"binding key upper case", strings.Replace(good, `{"binding":`, `{"BINDING":`, 1), answer(resp)},
		{"evidence key case changed", strings.Replace(good, `"evidence":`, `"eVIDENCE":`, 1), answer(resp)},
		{"request key case changed", strings.Replace(good, `"request":`, `"rEQUEST":`, 1), answer(resp)},
		{"inner receipt key case changed", strings.Replace(good, `"receipt":`, `"rECEIPT":`, 1), answer(resp)},
		{"inner digest key case changed", strings.Replace(good, `{"digest":`, `{"dIGEST":`, 1), answer(resp)},
		// Self-consistent files of methods workspace/evidence never
		// attests: replaying one must not run it (issue 23.6).
		{"method workspace/discover", string(b.Evidence("workspace/discover", []byte(`{}`), resp).Marshal()), answer(resp)},
		{"method workspace/bind", string(b.Evidence("workspace/bind", []byte(`{}`), resp).Marshal()), answer(resp)},
		{"method workspace/read-batch", string(b.Evidence("workspace/read-batch", req, resp).Marshal()), answer(resp)},
		{"method docir/fields", string(b.Evidence("docir/fields", []byte(`{}`), resp).Marshal()), answer(resp)},
		{"method unknown", string(b.Evidence("no/such", []byte(`{}`), resp).Marshal()), answer(resp)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := VerifyEvidence(ctx, f, []byte(tt.file), tt.run)
			wantRejected(t, "verify", err)
		})
	}
	// Evidence of a generation no longer retained is rejected through its
	// binding; an error of the runner passes through with its code.
	f.publish()
	boom := docir.Errorf(docir.CodeNotFound, "no such document")
	_, err = VerifyEvidence(ctx, f, []byte(good), func(context.Context, *Binding, string, []byte) ([]byte, error) { return nil, boom })
	if docir.CodeOf(err) != docir.CodeNotFound {
		t.Errorf("runner error: %v", err)
	}
	f.publish()
	f.publish()
	_, err = VerifyEvidence(ctx, f, []byte(good), answer(resp))
	wantStale(t, "evidence of a pruned generation", err)
}

func TestRequireCurrentAndRunCurrent(t *testing.T) {
	ctx := context.Background()
	f := newFake(wsA, 3)
	b, err := Bind(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.RequireCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	started, done := make(chan struct{}), make(chan struct{})
	ran := false
	err = b.RunCurrent(ctx, func(ctx context.Context) error {
		ran = true
		if f.refresh.TryLock() {
			f.refresh.Unlock()
			t.Error("a refresh could take the refresh lock during RunCurrent")
		}
		go func() {
			close(started)
			f.publish()
			close(done)
		}()
		<-started
		select {
		case <-done:
			t.Error("a refresh finished while RunCurrent held it off")
		case <-time.After(20 * time.Millisecond):
		}
		return b.RequireCurrent(ctx) // still current: the refresh waits
	})
	if err != nil || !ran {
		t.Fatalf("RunCurrent: %v (ran %v)", err, ran)
	}
	<-done
	wantRejected(t, "RequireCurrent after a refresh", b.RequireCurrent(ctx))
	ran = false
	err = b.RunCurrent(ctx, func(context.Context) error { ran = true; return nil })
	wantRejected(t, "RunCurrent after a refresh", err)
	if ran {
		t.Error("RunCurrent ran fn on a stale binding")
	}
	// The hold is released after a rejection too.
	if !f.refresh.TryLock() {
		t.Fatal("RunCurrent left refreshes held off")
	}
	f.refresh.Unlock()
	// An error of fn passes through, and the hold is released.
	b2, _ := Bind(ctx, f)
	boom := errors.New("boom")
	if err := b2.RunCurrent(ctx, func(context.Context) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("fn's error: %v", err)
	}
	if !f.refresh.TryLock() {
		t.Fatal("RunCurrent left refreshes held off after fn failed")
	}
	f.refresh.Unlock()
}

func TestRetention(t *testing.T) {
	ctx := context.Background()
	f := newFake(wsA, 3)
	b, err := Bind(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	file := b.Receipt().Marshal()
	f.publish()
	f.publish() // generations 1..3 retained
	if _, err := Replay(ctx, f, file); err != nil {
		t.Fatalf("retained generation: %v", err)
	}
	f.publish() // 1 is pruned
	_, err = Replay(ctx, f, file)
	wantStale(t, "replay of a pruned generation", err)
	_, err = Select(ctx, f, wsA, 1)
	wantStale(t, "select of a pruned generation", err)
	var de *docir.Error
	if !errors.As(err, &de) || docir.CodeOf(de.Err) != docir.CodeStaleRevision {
		t.Errorf("the rejection does not carry the stale_revision cause: %v", err)
	}
	_, err = Select(ctx, f, wsA, 0)
	wantRejected(t, "select of revision 0", err)
	_, err = Select(ctx, f, wsB, 4)
	wantRejected(t, "select of another workspace", err)
}

var absPath = regexp.MustCompile(`(^|[^A-Za-z0-9._-])/[A-Za-z0-9._-]+/`)

// scanReceipt fails when a receipt file holds an absolute path or any of
// the given private strings (bodies, store and source folders).
func scanReceipt(t *testing.T, what string, file []byte, private ...string) {
	t.Helper()
	text := string(file)
	if what == "evidence" {
		// The request travels in base64 (whose alphabet has '/') and the
		// method is "docir/…": scan the decoded parts separately.
		c, err := ParseEvidence(file)
		if err != nil {
			t.Fatal(err)
		}
		text = string(c.Binding.canonical) + " " + string(c.Request)
	}
	if m := absPath.FindString(text); m != "" {
		t.Errorf("%s holds an absolute path %q: %s", what, m, file)
	}
	for _, p := range private {
		if p != "" && strings.Contains(string(file), p) {
			t.Errorf("%s holds %q: %s", what, p, file)
		}
	}
	if len(file) > MaxReceiptBytes && what == "receipt" {
		t.Errorf("%s of %d bytes", what, len(file))
	}
}

// TestNotJSONQuotesNothing (hostile review, finding 10): a receipt or
// evidence file that is not JSON was refused with the parser's message,
// which quoted the file's first bytes (`docir replay /etc/shadow` printed
// a line of it). The error says what the file is not, and where it
// stopped parsing, and quotes none of it.
func TestNotJSONQuotesNothing(t *testing.T) {
	for _, file := range []string{
		"root:*:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n",
		"secret-token-1234\n",
		`{"digest": secret-token}`,
		"[1e400]", // JSON, but not one RFC 8785 takes
		"",
	} {
		_, rerr := ParseReceipt([]byte(file))
		_, eerr := ParseEvidence([]byte(file))
		for what, err := range map[string]error{"receipt": rerr, "evidence": eerr} {
			if err == nil || docir.CodeOf(err) != docir.CodeBindingRejected {
				t.Fatalf("%s of %q: %v; want binding_rejected", what, file, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, "not JSON") || !strings.Contains(msg, "not a docir "+what+" file") {
				t.Errorf("%s of %q: %q; want it to say it is not JSON, not a %s", what, file, msg, what)
			}
			for _, secret := range []string{"root", "daemon", "secret", "token", "1e400", "99999"} {
				if strings.Contains(msg, secret) {
					t.Errorf("%s of %q: %q quotes the file (%q)", what, file, msg, secret)
				}
			}
		}
	}
}
