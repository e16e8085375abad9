package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docir/docir/docir"
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

// bashIgnoringCase is how docir's bash completion script differs from
// cobra's: cobra's filters the candidates again by what was typed, with
// compgen and [[ == ]], which match case; docir's candidates already match
// ignoring case (docir get RUN<TAB> offers runbooks/...), so the script
// keeps those that start with what was typed ignoring case. Each edit must
// apply (TestBashCompletionIgnoresCase fails when cobra's script changes).
var bashIgnoringCase = []struct {
	old, new string
	count    int
}{
	{
		`compgen -W "${completions[*]}" -- "${cur}")`,
		`compgen -W "${completions[*]}" -- "" | __docir_prefix_ignoring_case "${cur}")`,
		2,
	},
	{`[[ $comp == "$cur"* ]] || continue`, `[[ ${comp,,} == "${cur,,}"* ]] || continue`, 1},
}

// bashPrefixFunc keeps the lines of its input that start with $1, ignoring
// case (bash 4: ${var,,}; bash-completion, which the script needs, needs
// bash 4.1).
const bashPrefixFunc = `
__docir_prefix_ignoring_case()
{
    local line
    while IFS='' read -r line; do
        [[ ${line,,} == "${1,,}"* ]] && printf '%s\n' "$line"
    done
}
`

// patchBashScript applies bashIgnoringCase to cobra's script; ok is false,
// and script is returned as it was, when an edit does not apply as it
// should.
func patchBashScript(script []byte) (out []byte, ok bool) {
	out = script
	for _, e := range bashIgnoringCase {
		if bytes.Count(out, []byte(e.old)) != e.count {
			return script, false
		}
		out = bytes.ReplaceAll(out, []byte(e.old), []byte(e.new))
	}
	head, rest, found := bytes.Cut(out, []byte("\n"))
	if !found {
		return script, false
	}
	var b bytes.Buffer
	b.Write(head)
	b.WriteString("\n" + bashPrefixFunc)
	b.Write(rest)
	return b.Bytes(), true
}

// refuseUnknownShell makes `docir completion SHELL` with a shell cobra
// has no script for a usage error (exit 2) that suggests the nearest one:
// cobra's completion command is not runnable, so it printed its help on
// stdout and exited 0, and `docir completion zssh > _docir` wrote the help
// into the completion file. With no shell it still prints its help.
func refuseUnknownShell(comp *cobra.Command) {
	comp.Use = "completion SHELL"
	comp.Args = cobra.ArbitraryArgs     // RunE says what is wrong, with a suggestion
	comp.SuggestionsMinimumDistance = 1 // shell names are short: two edits reach most of them
	comp.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown shell %q for \"docir completion\"", args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		shells := make([]string, 0, len(cmd.Commands()))
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				shells = append(shells, c.Name())
			}
		}
		return docir.Errorf(docir.CodeUsage, "%s (shells: %s)", msg, strings.Join(shells, ", "))
	}
}

// ignoreCaseInBash makes `docir completion bash` print the script that
// matches ignoring case (patchBashScript); the command, its flags and help
// stay cobra's.
func ignoreCaseInBash(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	comp, _, err := root.Find([]string{"completion", "bash"})
	if err != nil || comp.Name() != "bash" {
		return
	}
	refuseUnknownShell(comp.Parent())
	comp.RunE = func(cmd *cobra.Command, args []string) error {
		noDesc, _ := cmd.Flags().GetBool("no-descriptions")
		var buf bytes.Buffer
		if err := cmd.Root().GenBashCompletionV2(&buf, !noDesc); err != nil {
			return err
		}
		script, _ := patchBashScript(buf.Bytes())
		_, err := cmd.OutOrStdout().Write(script)
		return err
	}
}
