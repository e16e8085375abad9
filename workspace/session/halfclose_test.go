package session

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/docir/wire"
)

// TestHTTPHalfClose: a client that sends its request and half-closes its
// connection (a real TCP half-close: CloseWrite) while the request runs
// still reads the reply: an unavailable error to its id (the code of a
// request cancelled before its answer) whose message says the client's
// connection ended. Go's server cancels the request on that EOF; the reply
// was "context canceled" (and before a0f3399 -32603 internal), which
// blames no one and tells the client nothing it can change.
func TestHTTPHalfClose(t *testing.T) {
	checkLeaks(t)
	e := New(Config{Reader: slowReader{&gatedReader{}}, Version: "test"})
	url := startHTTP(t, e, HTTPOptions{Loopback: true})
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), RPCPath)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second)) // a hang fails, not a timing
	body := `{"jsonrpc":"2.0","id":7,"method":"docir/search","params":{"query":"x"}}`
	req := "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no reply after a half-close: %v", err)
	}
	defer resp.Body.Close()
	var reply struct {
		ID    json.RawMessage `json:"id"`
		Error *wire.Error     `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		t.Fatal(err)
	}
	want := "docir/search: cancelled: the client's connection ended (closed or half-closed) before the answer; keep it open until the reply is read"
	if resp.StatusCode != 200 || string(reply.ID) != "7" || reply.Error == nil || reply.Error.Code != docir.RPCNumber(docir.CodeUnavailable) ||
		reply.Error.StableCode() != docir.CodeUnavailable || reply.Error.Message != want {
		t.Errorf("%d id %s %+v\nwant 200, id 7, unavailable %q", resp.StatusCode, reply.ID, reply.Error, want)
	}
}
