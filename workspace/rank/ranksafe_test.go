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

// TestRankSafeConstructed holds search to its definition where a review
// found it apart (the PowerShell docs and the KEPs, which CI does not
// have): a word no passage holds but a folder's name written with a
// hyphen (the head's catenation "whatsnew" of whats-new/): the reference
// read no head that did not hold it as typed, and search's count left it
// out; and a best section that says nothing (only a heading) whose
// document's other passages tie or trail: the reference chose the
// speaking section from passages it had not scored.
func TestRankSafeConstructed(t *testing.T) {
	other := "# Other\n\nUse roots here, use it.\n"
	ranktest.CheckFiles(t, map[string]string{
		"whats-new/module-compatibility.md": "# Module compatibility\n\nModules and roots of things.\n\n## Finding status\n\nUse roots.\n",
		"whats-new/unix.md":                 "# Logging\n\nLogs use syslog.\n",
		"other/o1.md":                       other, "other/o2.md": other, "other/o3.md": other,
	}, "whatsnew", "whatsnew use roots", "whatsnew use obja roots", "whats new use roots")
	ranktest.CheckFiles(t, map[string]string{
		"cap.md": "---\n# Get-PSSessionCapability\nIndicates that this cmdlet returns the entire initial session state for the specified user at the\n```yaml\n```\n### System.Management.Automation.Runspaces.InitialSessionState",
	}, "module session state", "session state", "initial session")
}
