package main

import (
	"encoding/json"
	"fmt"
	"io"
)

// wantText resolves --format: text for "text", or for "auto" when stdout
// is a terminal; JSON otherwise.
func (f *Factory) wantText() (bool, error) {
	lc, err := f.Config()
	if err != nil {
		return false, err
	}
	switch lc.Format {
	case "text":
		return true, nil
	case "json":
		return false, nil
	default:
		return isTerminal(f.IO.Out), nil
	}
}

// printJSON writes v as indented JSON, without HTML escaping (bodies are
// markdown, and `<`, `>`, `&` must read as themselves).
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printWarnings prints each warning as one line on stderr.
func printWarnings(w io.Writer, warnings []string) {
	for _, warn := range warnings {
		fmt.Fprintln(w, "docir: warning: "+warn)
	}
}
