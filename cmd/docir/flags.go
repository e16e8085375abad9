package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/docir/docir/docir"
)

// sharedFlags names flags that several commands take. Each command declares
// the ones it takes, so that its help lists only those and any other is
// refused as unknown; see addFlags.
type sharedFlags uint8

const (
	storeFlags  sharedFlags = 1 << iota // --config, --store
	formatFlag                          // --format
	jqFlag                              // --jq (check has a --format of its own, and takes --jq)
	colorFlag                           // --color
	verboseFlag                         // -v, --verbose
	pinFlagSet                          // --at, --receipt, --require-current, --evidence

	outputFlags = formatFlag | jqFlag
	readFlags   = storeFlags | outputFlags | verboseFlag | pinFlagSet
	allFlags    = storeFlags | outputFlags | colorFlag | verboseFlag | pinFlagSet
)

// addFlags declares the shared flags which on cmd. They write to the
// factory's fields, whichever command declares them; only the running
// command's are parsed. --store and --format are bound to their viper keys
// when the command runs (bindFlags).
func (f *Factory) addFlags(cmd *cobra.Command, which sharedFlags) {
	fs := cmd.Flags()
	if which&storeFlags != 0 {
		fs.StringVar(&f.configFile, "config", "", "config `FILE` (default: the nearest "+ConfigFileName+" from the working folder up)")
		fs.String("store", "", "store folder `DIR` (default: .docir beside the config; with none, the nearest .docir at or above the working folder, else one in it)")
		_ = cmd.MarkFlagDirname("store")
	}
	if which&formatFlag != 0 {
		fs.String("format", "auto", "output `FORMAT`: auto (text on a terminal, else json), json or text")
		_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"auto", "json", "text"}, cobra.ShellCompDirectiveNoFileComp))
	}
	if which&jqFlag != 0 {
		fs.StringVar(&f.jq, "jq", "", "filter JSON output with a jq `EXPR` (implies --format json)")
	}
	if which&colorFlag != 0 {
		fs.StringVar(&f.IO.Color, "color", "auto", "colour in text output, `WHEN`: auto (on a terminal, unless NO_COLOR is set), always or never")
		_ = cmd.RegisterFlagCompletionFunc("color", cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))
	}
	if which&verboseFlag != 0 {
		fs.BoolVarP(&f.IO.Verbose, "verbose", "v", false, "print every warning, not the first few and a count")
	}
	if which&pinFlagSet != 0 {
		f.pin.add(fs)
	}
}

// ownFlag marks a command's own flag that has a shared flag's name (check's
// --format, which also takes github): bindFlags does not bind it.
const ownFlag = "docir_own"

// bindFlags binds the running command's --store and --format, when it
// takes them, to their viper keys (beside DOCIR_STORE, DOCIR_FORMAT and
// the config file).
func (f *Factory) bindFlags(cmd *cobra.Command) {
	for _, key := range []string{"store", "format"} {
		if fl := cmd.Flags().Lookup(key); fl != nil && fl.Annotations[ownFlag] == nil {
			_ = f.viper.BindPFlag(key, fl)
			if key == "format" {
				f.formatGiven = fl.Changed
			}
		}
	}
}

// hideFlags declares every shared flag on the root, hidden: cobra finds
// the command in `docir --format json search q` by skipping the flags
// before its name, and must know which of them take a value. The command
// then parses them as its own (or refuses one it does not take).
func (f *Factory) hideFlags(root *cobra.Command) {
	f.addFlags(root, allFlags)
	root.Flags().VisitAll(func(fl *pflag.Flag) { fl.Hidden = true })
}

// flagError is the usage error of a flag the command line got wrong, with
// the flag meant when the one given is a typo of one the command takes,
// or the commands that take it when it is not this command's.
func flagError(cmd *cobra.Command, err error) error {
	return flagErrorAmong(cmd, err, cmd.Root().Commands)
}

// flagErrorAmong is flagError with the root's commands from commands (a
// partial tree's root has not built the others: newRootCmdFor).
func flagErrorAmong(cmd *cobra.Command, err error, commands func() []*cobra.Command) error {
	msg := plainParseError(err.Error())
	if name, ok := unknownFlag(msg); ok {
		hint := flagHint(cmd, name, commands)
		if hint == "" && (cmd.Name() == "search" || cmd.Name() == "context") {
			// A query for a flag's name ("--reuse-values"), as a user
			// of the documented tool types it.
			hint = fmt.Sprintf("\nto ask for the flag --%s, put -- before the query, after any flags (what follows -- is the query): docir %s -- --%s", name, cmd.Name(), name)
		}
		msg += hint
	} else if hint, ok := dashTerms[cmd.Name()]; ok && strings.HasPrefix(msg, "unknown shorthand flag") {
		msg += "\n" + hint
	}
	return &docir.Error{Code: docir.CodeUsage, Message: msg + "\nusage: " + cmd.UseLine() + " (docir " + cmd.Name() + " --help lists its flags)", Err: err}
}

// dashTerms says, for each command whose arguments may start with "-" (a
// query's negated term, search's excluded word), how to write one: pflag
// reads "-status:draft" as flags wherever it stands.
var dashTerms = map[string]string{
	"query":   "a negated term looks like a flag: quote the expression, or put -- before it, after any flags (docir query 'kind:adr -status:draft', docir query -- kind:adr -status:draft)",
	"search":  `an excluded -word looks like a flag: quote the query, or put -- before it, after any flags (docir search "retry -budget", docir search -- retry -budget)`,
	"context": `an excluded -word looks like a flag: quote the query, or put -- before it, after any flags (docir context "retry -budget", docir context -- retry -budget)`,
}

var unknownFlagMsg = lazyRegexp(`^unknown flag: --([^\s=]+)`)

var parseErrorMsg = lazyRegexp(`^(invalid argument ".*" for ".*") flag: strconv\.Parse(Int|Uint|Float|Bool): parsing ".*": (invalid syntax|value out of range)$`)

// plainParseError says what pflag's error of a flag value Go could not
// parse wants, in place of strconv's words: `-n abc` is "want a whole
// number", not `strconv.ParseInt: parsing "abc": invalid syntax`.
func plainParseError(msg string) string {
	m := parseErrorMsg().FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	// docir's unsigned flags (--at, --until, --revision) name generations,
	// which are numbered from 1 (0 is refused as such once parsed).
	want := map[string]string{"Int": "a whole number", "Uint": "a generation number, 1 or more", "Float": "a number", "Bool": "true or false"}[m[2]]
	if m[3] == "value out of range" {
		return m[1] + ": out of range"
	}
	return m[1] + ": want " + want
}

// unknownFlag is the name of the long flag pflag's error says is unknown.
func unknownFlag(msg string) (string, bool) {
	m := unknownFlagMsg().FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// flagHint says which flag of cmd name is a typo of, or which other of
// the root's commands take it; "" when neither.
func flagHint(cmd *cobra.Command, name string, commands func() []*cobra.Command) string {
	var own []string
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if !fl.Hidden {
			own = append(own, fl.Name)
		}
	})
	// A flag name is short: one edit in four characters is a typo, more
	// is another flag (--at is not --jq).
	if near := closest(name, own, max(1, len(name)/4)); near != "" {
		return fmt.Sprintf(" (did you mean --%s?)", near)
	}
	var takers []string
	for _, c := range commands() {
		// By name: commands may be another tree's (their names differ).
		if c.Name() != cmd.Name() && !c.Hidden && c.Flags().Lookup(name) != nil {
			takers = append(takers, c.Name())
		}
	}
	if len(takers) == 0 {
		return ""
	}
	slices.Sort(takers)
	return fmt.Sprintf(" (--%s is a flag of docir %s, not of docir %s)", name, strings.Join(takers, ", "), cmd.Name())
}

// needArgs is the argument check of a command that needs at least n
// arguments, what naming them ("a QUERY"): its failure is a usage error
// that says what to give, not cobra's count of arguments.
// noArgs refuses the arguments of a command that takes none, naming them:
// cobra's NoArgs said `unknown command "kind" for "docir fields"`, as if
// the word were meant as a command of fields.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return docir.Errorf(docir.CodeUsage, "%s takes no arguments; got %q\nusage: %s (docir %s --help)", cmd.CommandPath(), strings.Join(args, " "), cmd.UseLine(), cmd.Name())
}

func needArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) >= n {
			return nil
		}
		return docir.Errorf(docir.CodeUsage, "%s needs %s\nusage: %s (docir %s --help has examples)", cmd.Name(), what, cmd.UseLine(), cmd.Name())
	}
}
