package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// This file generates the pages of every command from the commands
// themselves: man pages (docs/man, roff) and a markdown reference
// (docs/reference). The help texts are plain text, laid out for a terminal;
// both generators keep them so — every character as written (no markdown
// read into "<id>" or "*retry*"), indented lines as they are — which
// cobra's generators, through markdown, did not.
//
// They live in a test so that the docir binary does not carry them.

// manDate is the date on every page: fixed, so the pages do not drift.
const manDate = "2026-01-01"

// docCommands are the commands that get a page: every command that is not
// hidden, the root first, then in command-path order.
func docCommands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		out = append(out, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	slices.SortStableFunc(out[1:], func(a, b *cobra.Command) int { return strings.Compare(a.CommandPath(), b.CommandPath()) })
	return out
}

// roff escapes text for a roff line, so that it prints as written (a
// command line copied from a page must run): backslashes; hyphens (\- is
// the hyphen-minus, not a typographer's hyphen); quotes and backquotes
// (groff prints ' and ` as curly quotes); and a '.' at the start of the
// line, which would be a request.
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`, "'", `\(aq`, "`", `\(ga`).Replace(s)
	if strings.HasPrefix(s, ".") {
		s = `\&` + s
	}
	return s
}

// roffText writes help text as man paragraphs: a paragraph with no
// indented line is filled; one with an indented line (a table, a list, a
// command) is kept line for line.
func roffText(b *bytes.Buffer, text string) {
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		lines := strings.Split(para, "\n")
		b.WriteString(".PP\n")
		if slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") }) {
			b.WriteString(".nf\n")
			for _, l := range lines {
				b.WriteString(roff(l) + "\n")
			}
			b.WriteString(".fi\n")
			continue
		}
		for _, l := range lines {
			b.WriteString(roff(strings.TrimSpace(l)) + "\n")
		}
	}
}

// manName is a command's page name: docir-get.
func manName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-")
}

// genMan renders the man page of c.
func genMan(c *cobra.Command) []byte {
	var b bytes.Buffer
	name := manName(c)
	fmt.Fprintf(&b, ".TH %q \"1\" %q \"docir\" \"docir manual\"\n", strings.ToUpper(name), manDate)
	b.WriteString(".nh\n.ad l\n")
	b.WriteString(".SH NAME\n")
	b.WriteString(roff(name) + ` \- ` + roff(c.Short) + "\n")
	b.WriteString(".SH SYNOPSIS\n.nf\n")
	b.WriteString(roff(useLine(c)) + "\n.fi\n")
	b.WriteString(".SH DESCRIPTION\n")
	long := c.Long
	if long == "" {
		long = c.Short + "."
	}
	roffText(&b, long)
	if flags := visibleFlags(c); len(flags) > 0 {
		b.WriteString(".SH OPTIONS\n")
		for _, fl := range flags {
			name, usage := flagName(fl), flagUsage(fl)
			b.WriteString(".TP\n" + `\fB` + roff(name) + `\fR` + "\n" + roff(usage) + "\n")
		}
	}
	if c.Example != "" {
		b.WriteString(".SH EXAMPLES\n.PP\n.nf\n")
		for _, l := range strings.Split(c.Example, "\n") {
			b.WriteString(roff(l) + "\n")
		}
		b.WriteString(".fi\n")
	}
	if see := seeAlso(c); len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		var refs []string
		for _, s := range see {
			refs = append(refs, `\fB`+roff(manName(s))+`\fR(1)`)
		}
		b.WriteString(strings.Join(refs, ", ") + "\n")
	}
	return b.Bytes()
}

// genMarkdown renders the reference page of c: the help as --help prints
// it, in code blocks, so nothing of it is read as markdown.
func genMarkdown(c *cobra.Command) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## %s\n\n%s\n\n```\n%s\n```\n\n", c.CommandPath(), c.Short, useLine(c))
	if c.Long != "" {
		fmt.Fprintf(&b, "### Description\n\n```text\n%s\n```\n\n", strings.TrimSpace(c.Long))
	}
	if c.Example != "" {
		fmt.Fprintf(&b, "### Examples\n\n```sh\n%s\n```\n\n", strings.TrimRight(c.Example, "\n"))
	}
	if flags := visibleFlags(c); len(flags) > 0 {
		fmt.Fprintf(&b, "### Options\n\n```\n%s```\n\n", c.LocalFlags().FlagUsages())
	}
	if see := seeAlso(c); len(see) > 0 {
		b.WriteString("### See also\n\n")
		for _, s := range see {
			fmt.Fprintf(&b, "* [%s](%s.md) — %s\n", s.CommandPath(), strings.ReplaceAll(s.CommandPath(), " ", "_"), s.Short)
		}
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// useLine is the command's synopsis, as --help prints it.
func useLine(c *cobra.Command) string {
	if c.HasAvailableSubCommands() && !c.Runnable() {
		return c.CommandPath() + " COMMAND"
	}
	return c.UseLine()
}

// visibleFlags are the flags c's help lists, by name.
func visibleFlags(c *cobra.Command) []*pflag.Flag {
	var out []*pflag.Flag
	c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
		if !fl.Hidden {
			out = append(out, fl)
		}
	})
	return out
}

// flagName is how a flag is written, with its value's name: "-n, --limit N".
func flagName(fl *pflag.Flag) string {
	name := "--" + fl.Name
	if fl.Shorthand != "" {
		name = "-" + fl.Shorthand + ", " + name
	}
	if v, _ := pflag.UnquoteUsage(fl); v != "" {
		name += " " + v
	}
	return name
}

// flagUsage is a flag's help, with its default when it has one.
func flagUsage(fl *pflag.Flag) string {
	_, usage := pflag.UnquoteUsage(fl)
	switch fl.DefValue {
	case "", "false", "0", "[]":
	default:
		usage += fmt.Sprintf(" (default %q)", fl.DefValue)
	}
	return usage
}

// seeAlso is c's parent and subcommands.
func seeAlso(c *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	if c.HasParent() {
		out = append(out, c.Parent())
	}
	for _, sub := range c.Commands() {
		if !sub.Hidden && sub.Name() != "help" {
			out = append(out, sub)
		}
	}
	return out
}

// generateDocs writes the man pages (dir/man) and the markdown reference
// (dir/reference) of every command.
func generateDocs(dir string) error {
	root := newRootCmd(newFactory(&IOStreams{}))
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, sub := range []string{"man", "reference"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for _, c := range docCommands(root) {
		if err := os.WriteFile(filepath.Join(dir, "man", manName(c)+".1"), genMan(c), 0o644); err != nil {
			return err
		}
		md := strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
		if err := os.WriteFile(filepath.Join(dir, "reference", md), append(genMarkdown(c), '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}
