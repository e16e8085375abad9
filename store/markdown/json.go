package markdown

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// jsonFrontMatter reads Hugo's third front-matter format: a JSON object
// that opens the file (src[base] is '{'). Hugo ends the block at the brace
// that closes the first one, counting braces outside strings (its
// lexFrontMatterJSON); so does this, and then asks more, since a markdown
// file may open with a brace that is no front matter (a Hugo shortcode,
// "{{< figure >}}", or a Pandoc attribute block): the object is front
// matter only when nothing but spaces follows the closing brace on its
// line and the block is valid JSON. Anything else is markdown, without a
// warning. A valid object over the front matter's budget is skipped as
// front matter with its fields ignored, as YAML's and TOML's are.
func jsonFrontMatter(src []byte, base int) (end int, fields map[string]any, err error) {
	rest := src[base:]
	stop := jsonObjectEnd(rest)
	if stop < 0 {
		return base, nil, nil
	}
	next, _ := lineAt(rest, stop)
	if len(bytes.TrimRight(rest[stop:next], " \t\r\n")) != 0 {
		return base, nil, nil
	}
	block := rest[:stop]
	if len(block) > MaxFrontMatterBytes {
		if !json.Valid(block) {
			return base, nil, nil
		}
		return base + next, nil, fmt.Errorf("front matter over the parse budget (%d bytes, more than %d), fields ignored", len(block), MaxFrontMatterBytes)
	}
	d := json.NewDecoder(bytes.NewReader(block))
	d.UseNumber()
	if err := d.Decode(&fields); err != nil || d.InputOffset() != int64(len(block)) || fields == nil {
		return base, nil, nil
	}
	keys := 0
	v, err := fromDecoded(fields, 0, &keys)
	if err != nil {
		return base + next, nil, fmt.Errorf("front matter over the parse budget (%w), fields ignored", err)
	}
	if len(fields) == 0 {
		return base + next, nil, nil
	}
	return base + next, jsonSafe(v).(map[string]any), nil
}

// jsonObjectEnd is the offset just past the brace that closes the one b
// opens (b[0] is '{'), counting braces outside strings as Hugo does: a
// backslash escapes the byte after it, a quote opens or closes a string.
// -1 when b ends first.
func jsonObjectEnd(b []byte) int {
	level, quoted := 0, false
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			if !quoted {
				level++
			}
		case '}':
			if !quoted {
				if level--; level == 0 {
					return i + 1
				}
			}
		case '"':
			quoted = !quoted
		case '\\':
			i++
		}
	}
	return -1
}

// jsonNumber is a JSON number as YAML front matter gives one: an int when
// it is a whole number that fits one, else a float64.
func jsonNumber(n json.Number) any {
	if i, err := strconv.ParseInt(string(n), 10, 0); err == nil {
		return int(i)
	}
	f, err := n.Float64()
	if err != nil {
		return string(n) // out of float64's range: kept as written
	}
	return f
}
