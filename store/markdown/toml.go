package markdown

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// decodeTOML decodes a TOML front-matter block (Hugo's "+++" format) within
// the front matter's budget, into the fields YAML front matter gives: dates
// and times become strings (in RFC 3339 form, as TOML writes them:
// 2024-01-10, 2024-01-10T10:00:00Z; a local time keeps the precision it
// was written with), tables maps, integers ints.
//
// go-toml checks a table's keys for repeats through a map, so a block of
// 64 KiB decodes in milliseconds whatever its shape; its keys and depth are
// measured after.
func decodeTOML(block []byte) (map[string]any, error) {
	if len(block) > MaxFrontMatterBytes {
		return nil, fmt.Errorf("front matter over the parse budget (%d bytes, more than %d), fields ignored", len(block), MaxFrontMatterBytes)
	}
	var fields map[string]any
	if err := toml.Unmarshal(block, &fields); err != nil {
		return nil, fmt.Errorf("front matter is not valid TOML, fields ignored: %w", err)
	}
	if len(fields) == 0 {
		return nil, nil
	}
	keys := 0
	v, err := fromDecoded(fields, 0, &keys)
	if err != nil {
		return nil, fmt.Errorf("front matter over the parse budget (%w), fields ignored", err)
	}
	return jsonSafe(v).(map[string]any), nil
}

// fromDecoded converts the value v, depth levels down, as go-toml or
// encoding/json (with UseNumber) decoded it, into what YAML front matter
// decodes to, checking it against the front matter's key and depth budget
// (adding its keys to *keys).
func fromDecoded(v any, depth int, keys *int) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		if depth++; depth > MaxFrontMatterDepth {
			return nil, fmt.Errorf("nested more than %d deep", MaxFrontMatterDepth)
		}
		if *keys += len(v); *keys > MaxFrontMatterKeys {
			return nil, fmt.Errorf("more than %d keys", MaxFrontMatterKeys)
		}
		for k, e := range v {
			c, err := fromDecoded(e, depth, keys)
			if err != nil {
				return nil, err
			}
			v[k] = c
		}
		return v, nil
	case []any:
		if depth++; depth > MaxFrontMatterDepth {
			return nil, fmt.Errorf("nested more than %d deep", MaxFrontMatterDepth)
		}
		for i, e := range v {
			c, err := fromDecoded(e, depth, keys)
			if err != nil {
				return nil, err
			}
			v[i] = c
		}
		return v, nil
	case int64:
		return int(v), nil
	case json.Number:
		return jsonNumber(v), nil
	case time.Time:
		return v.Format(time.RFC3339Nano), nil
	case toml.LocalDate:
		return v.String(), nil
	case toml.LocalDateTime:
		return v.String(), nil
	case toml.LocalTime:
		return v.String(), nil
	}
	return v, nil
}
