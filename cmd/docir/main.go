// Command docir reads markdown corpora: it indexes folders of *.md files
// into a local store and answers deep reads (`get`) and skeleton reads
// (`search`, `query`, `context`) from it, on the command line and, through
// `docir serve`, to NDJSON, HTTP and MCP hosts.
//
// This package holds the cobra commands, the viper configuration and the
// printing of results; one file per command, no logic of its own. The work
// happens in the engine packages it calls.
package main

import "os"

func main() {
	os.Exit(Main())
}
