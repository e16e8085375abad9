package main

import (
	"bytes"
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

// ignoreCaseInBash makes `docir completion bash` print the script that
// matches ignoring case (patchBashScript); the command, its flags and help
// stay cobra's.
func ignoreCaseInBash(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	comp, _, err := root.Find([]string{"completion", "bash"})
	if err != nil || comp.Name() != "bash" {
		return
	}
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
