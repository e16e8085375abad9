package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// completeAddresses completes document ids, and `id#slug` once a '#' is
// typed, from the store's current generation. It never indexes.
func completeAddresses(f *Factory) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if toComplete == "-" || len(args) == 1 && args[0] == "-" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ws, err := f.completionService()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		defer ws.Close()
		addrs, err := ws.Complete(cmd.Context(), toComplete)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		dir := cobra.ShellCompDirectiveNoFileComp
		if len(addrs) == 1 && !strings.Contains(addrs[0], "#") {
			// One document: leave the cursor after it, for a '#'.
			dir |= cobra.ShellCompDirectiveNoSpace
		}
		return addrs, dir
	}
}
