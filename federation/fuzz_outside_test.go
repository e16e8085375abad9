package federation

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/docir/docir/docir"
)

// FuzzPeerURL: a peer url written as PRE USER:PASS@POST never shows PASS:
// hideUserinfo keeps at most what precedes it and what follows the last
// '@', endpoint's errors quote that and nothing of PASS, and endpoint
// never takes a url with user info.
func FuzzPeerURL(f *testing.F) {
	for _, s := range [][4]string{
		{"ftp://", "alice", "s3cret", "host/x"},
		{"http://", "alice", "s3cret", "host:badport/"},
		{"http://", "alice", "s3cret", "host/x?y=1"},
		{"http://", "alice", "s3%zzret", "host/"},
		{"http://", "alice", "s3cret/x", "host:1/"},
		{"http://", "alice", "s3cret?x", "host:1/"},
		{"http://", "alice", "s3cret#x", "host:1/rpc"},
		{"", "alice", "s3cret", "host"},
		{"https://", "", "", "team.example:7420/rpc"},
		{"http://", "u", "p@q", "h@k"},
		{"http://host/", "x", "y", "z"},
		{"//", "alice", "s3cret", "host"},
		{"", "alice", "pa//ss", "host:7420"}, // a "//" in the password of a url without a scheme
		{"A", "", "//", "0"},                 // PRE USER: a scheme, PASS its "//" (found by CI's fuzzing)
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, pre, user, pass, post string) {
		raw := pre + user + ":" + pass + "@" + post
		passAt := len(pre) + len(user) + 1 // where PASS starts in raw
		tail := raw[strings.LastIndexByte(raw, '@')+1:]
		shown, bare := hideUserinfo(raw)
		head, ok := strings.CutSuffix(shown, "…@"+tail)
		limit := passAt
		if strings.HasPrefix(pass, "//") && schemePart(raw[:passAt]) {
			// PRE USER: is a scheme and PASS starts with its "//": raw is
			// as much a url whose user info follows that "//", which is
			// syntax shown, not a secret ("A://@0", "A://x@0").
			limit += 2
		}
		if !ok || !strings.HasPrefix(raw, head) || len(head) > limit || bare != head+tail {
			t.Fatalf("hideUserinfo(%q) = %q, %q: shows some of the password %q", raw, shown, bare, pass)
		}
		u, err := endpoint(raw)
		if err == nil {
			if u.User != nil {
				t.Fatalf("endpoint(%q) took user info %q", raw, u.User)
			}
			return
		}
		msg := err.Error()
		rest, ok := strings.CutPrefix(msg, "url "+strconv.Quote(shown)+": ")
		if !ok {
			t.Fatalf("endpoint(%q): error %q does not quote the url as %q", raw, msg, shown)
		}
		if len(pass) >= 6 && isAlnumString(pass) && strings.Contains(rest, pass) && !strings.Contains(bare, pass) {
			t.Fatalf("endpoint(%q): the error shows the password: %q", raw, msg)
		}
		if pu, perr := url.Parse(raw); perr == nil && pu.User != nil {
			if _, set := pu.User.Password(); set && !strings.Contains(rest, "credentials in a url are refused") {
				t.Fatalf("endpoint(%q): a url with a password refused for another reason first: %q", raw, msg)
			}
		}
	})
}

func isAlnumString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

// FuzzCheckChangesReply: whatever a peer's HTTP reply holds, httpPeer's
// Check and Changes either fail with one printable line of bounded length
// or return a result with the lists the reply must have.
func FuzzCheckChangesReply(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"generation":3,"documents":2,"counts":{"resolved":1,"broken":1,"external":0,"unchecked":0},"broken":[{"from":"a","line":3,"target":"b.md","kind":"doc","status":"broken","path":"a.md"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"generation":3,"documents":0,"counts":{},"broken":[],"external":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"since":1,"until":2,"documents":{"added":["a"],"changed":[],"removed":[]},"sections":{"added":["a#x"],"changed":[],"removed":[]}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"since":1,"until":2,"documents":{"added":null},"sections":{}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"broken":null}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"m\nx","data":{"code":"not_found"}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"broken":[]}}`,
		`{"jsonrpc":"1.0","id":1,"result":{"broken":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":[]}`,
		`{`, ``, `null`,
		"{\"jsonrpc\":\"2.0\",\"id\":[1,\n\"docir: error: forged\"],\"result\":{}}", // a peer's id quoted on one line
		`{"jsonrpc":"` + strings.Repeat("x", 5000) + `","id":1,"result":{}}`,        // and bounded
	} {
		f.Add([]byte(s), 200)
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32006,"message":"missing or wrong bearer token","data":{"code":"unauthorized"}}}`), 401)
	f.Add([]byte("docir serve: oops\n\x1b[31m"), 500)
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"m","data":{"code":"not_found"}}}`), 404)
	var reply atomic.Pointer[[]byte]
	var status atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(int(status.Load()))
		w.Write(*reply.Load())
	}))
	f.Cleanup(srv.Close)
	peer := &httpPeer{url: srv.URL + "/rpc", client: srv.Client()}
	f.Fuzz(func(t *testing.T, body []byte, code int) {
		if code < 200 || code > 599 {
			code = 200
		}
		reply.Store(&body)
		status.Store(int64(code))
		checkErr := func(what string, err error) {
			msg := err.Error()
			if len(msg) > 2048 || docir.Printable(msg, false) != msg {
				t.Fatalf("%s: an error of %d bytes, or not one printable line: %.300q", what, len(msg), msg)
			}
		}
		peer.nextID.Store(0) // every request is id 1, as the reply says
		if res, err := peer.Check(context.Background(), docir.CheckParams{}); err != nil {
			checkErr("check", err)
		} else if res.Broken == nil {
			t.Fatalf("check result without broken: %+v", res)
		}
		peer.nextID.Store(0)
		if res, err := peer.Changes(context.Background(), docir.ChangesParams{Since: 1}); err != nil {
			checkErr("changes", err)
		} else if res.Documents.Added == nil || res.Sections.Added == nil {
			t.Fatalf("changes result without its added lists: %+v", res)
		}
	})
}
