package ranktest_test

import (
	"testing"

	"github.com/docir/docir/workspace/rank/ranktest"
)

func TestRankSafeRFCs(t *testing.T) { ranktest.Check(t, ranktest.RFCs) }

func TestRankSafeTLDR(t *testing.T) { ranktest.Check(t, ranktest.TLDR) }
