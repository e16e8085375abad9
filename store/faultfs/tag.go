//go:build docir_faults

package faultfs

import (
	"fmt"
	"os"
)

// A binary built with the tag docir_faults takes its hook from the
// environment (SetFromEnv), for fault campaigns against docir itself.
func init() {
	if err := SetFromEnv(); err != nil {
		fmt.Fprintln(os.Stderr, "docir:", err)
		os.Exit(2)
	}
}
