package ingest

import (
	"github.com/docir/docir/docir"
	"github.com/docir/docir/store/fulltext"
	"github.com/docir/docir/store/passage"
)

// The passage model is package passage's; ingest indexes what it cuts.
// These names are passage's, for ingest's own code.

// PassageConfig is passage.Config.
type PassageConfig = passage.Config

// DefaultFrontMatter is passage.DefaultFrontMatter.
var DefaultFrontMatter = passage.DefaultFrontMatter

// Passages is passage.Passages.
func Passages(rec *docir.Record, body []byte) []fulltext.Passage { return passage.Passages(rec, body) }
