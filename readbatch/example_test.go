package readbatch_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/docir/docir/docir/wire"
	"github.com/docir/docir/readbatch"
)

// okReads answers every read {"ok":true}.
type okReads struct{}

func (okReads) Call(context.Context, string, json.RawMessage) (json.RawMessage, *wire.Error) {
	return json.RawMessage(`{"ok":true}`), nil
}

// A server hands Run the read methods on the generation it holds, the read
// allowlist, the host's worker count, that generation's number and its
// authenticator.
func ExampleRun() {
	cfg := readbatch.Config{
		Reads:        okReads{},
		Allow:        readbatch.ReadMethods(),
		Workers:      2,
		Revision:     3,
		Authenticate: func(context.Context) error { return nil }, // the held source is unchanged
		MaxReply:     wire.MaxReplyBytes,
		MaxResult:    1 << 20,
	}
	params := `{"image_revision":3,"batch":{"frames":[
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"workspace/status\"}",
		"",
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"workspace/refresh\"}"]}}`
	out, err := readbatch.Run(context.Background(), cfg, json.RawMessage(params))
	if err != nil {
		fmt.Println(err)
		return
	}
	var res readbatch.Result
	json.Unmarshal(out, &res)
	for i, row := range res.Responses {
		if row == nil {
			fmt.Println(i, "null")
			continue
		}
		fmt.Printf("%d %q\n", i, *row)
	}
	// Output:
	// 0 "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true}}\n"
	// 1 null
	// 2 "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,\"message\":\"method \\\"workspace/refresh\\\" is not allowed inside workspace/read-batch (allowed: docir/check, docir/context, docir/get, docir/links, docir/query, docir/search, workspace/discover, workspace/status); it was not run\",\"data\":{\"code\":\"method_not_found\"}}}\n"
}
