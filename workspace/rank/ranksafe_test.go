package rank_test

import (
	"testing"

	"github.com/docir/docir/workspace/rank/ranktest"
)

// TestRankSafe holds search to its definition on the Hugo docs (see
// package ranktest; the RFCs and tldr are ranktest's own tests, each
// exhaustive reading in a test binary of its own).
func TestRankSafe(t *testing.T) { ranktest.Check(t, ranktest.Hugo) }

// TestRankSafeStemming holds search with English stemming to its
// definition on the Hugo docs: a query word's other forms widen what a
// reading reads, and the bounds must still hold.
func TestRankSafeStemming(t *testing.T) { ranktest.Check(t, ranktest.HugoStemming) }
