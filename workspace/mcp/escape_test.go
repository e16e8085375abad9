package mcp

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docir/docir/workspace/session"
)

// TestEncodedLen: the lengths the reply bound is measured with are the
// lengths encoding/json writes (HTML escaped, as the SDK writes a tool
// result), for every byte, invalid UTF-8, U+2028 and U+2029, and random
// strings of them.
func TestEncodedLen(t *testing.T) {
	pieces := []string{"a", "<", ">", "&", `"`, `\`, "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f",
		"é", "检", "😀", "\u2028", "\u2029", "\xff", "\xe2\x80", "\xed\xa0\x80"}
	for b := range 256 {
		pieces = append(pieces, string([]byte{byte(b)}))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 2000 {
		var s strings.Builder
		for range k % 40 {
			s.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := s.String()
		want, _ := json.Marshal(text)
		if got := encodedLen(text); got != len(want) {
			t.Fatalf("encodedLen(%q) = %d, encoding/json writes %d bytes", text, got, len(want))
		}
		raw, _ := json.Marshal(map[string]string{"body": strings.ToValidUTF8(text, "")})
		raw = []byte(strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&", `\u2028`, "\u2028", `\u2029`, "\u2029").Replace(string(raw)))
		enc, _ := json.Marshal(json.RawMessage(raw))
		if got := htmlEscapedLen(raw); got != len(enc) {
			t.Fatalf("htmlEscapedLen(%s) = %d, encoding/json writes %d bytes", raw, got, len(enc))
		}
	}
}

// TestEscapedReplyIsAToolError: a get whose result is under the reply
// bound as text but over it as the SDK writes it (400 KB of <, each 6
// bytes on the wire as \u003c) is an isError tool result with the
// reply_too_large code, as the tool bound says. Before, the bound was
// measured before escaping, and the reply became a JSON-RPC -32003 error.
func TestEscapedReplyIsAToolError(t *testing.T) {
	checkLeaks(t)
	src := t.TempDir()
	doc := "# LT\n\n" + strings.Repeat(strings.Repeat("<", 99)+"\n", 4000)
	if err := os.WriteFile(filepath.Join(src, "lt.md"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := storeOf(t, src)
	s := newRawSession(t, session.New(session.Config{Reader: ws, Version: "test"}))
	s.initialize("2025-06-18")
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{"doc_id":"lt"}}}`)
	got := s.next()
	var reply struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got), &reply); err != nil || reply.Result == nil || !reply.Result.IsError ||
		len(reply.Result.Content) != 1 || !strings.HasSuffix(reply.Result.Content[0].Text, "(reply_too_large, JSON-RPC -32003)") ||
		reply.Result.StructuredContent != nil {
		t.Errorf("a get that passes the bound once escaped: %.300s", got)
	}
}
