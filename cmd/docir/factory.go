package main

import (
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/viper"
	"golang.org/x/term"

	"github.com/docir/docir/docir"
	"github.com/docir/docir/federation"
	"github.com/docir/docir/store/ingest"
	"github.com/docir/docir/workspace"
)

// Factory builds what commands need, lazily: `docir --help` and usage
// errors never read the config or open a store.
type Factory struct {
	IO         *IOStreams
	viper      *viper.Viper
	configFile string
	ran        bool // a command's RunE started: errors after this are not usage errors

	config *loadedConfig
	ws     *workspace.Service
	fed    *federation.Reader
}

func newFactory(io *IOStreams) *Factory {
	return &Factory{IO: io, viper: viper.New()} // the one viper instance of a process
}

// Config reads the configuration once.
func (f *Factory) Config() (*loadedConfig, error) {
	if f.config != nil {
		return f.config, nil
	}
	lc, err := loadConfig(f.viper, f.configFile)
	if err != nil {
		return nil, err
	}
	f.config = lc
	return lc, nil
}

// Workspace opens the service over the local store, once.
func (f *Factory) Workspace() (*workspace.Service, error) {
	if f.ws != nil {
		return f.ws, nil
	}
	lc, err := f.Config()
	if err != nil {
		return nil, err
	}
	f.ws = workspace.New(workspace.Config{
		Dir:       lc.StoreDir(),
		Sources:   lc.StoreSources(),
		Ingest:    f.ingestOptions(lc),
		AutoIndex: true,
		Notify:    func(msg string) { fmt.Fprintln(f.IO.ErrOut, msg) },
	})
	return f.ws, nil
}

// Reader is what read commands (and serve) call: every deep and skeleton
// read goes through it. With peers configured it is the federation: local
// first, then the peers in declaration order.
func (f *Factory) Reader() (docir.Reader, error) {
	ws, err := f.Workspace()
	if err != nil || len(f.config.peers) == 0 {
		return ws, err
	}
	if f.fed == nil {
		peers, err := federation.OpenPeers(f.config.peers)
		if err != nil {
			return nil, err
		}
		f.fed = federation.New(federation.Config{Local: ws, LocalDir: f.config.StoreDir(), Peers: peers})
	}
	return f.fed, nil
}

func (f *Factory) ingestOptions(lc *loadedConfig) ingest.Options {
	return ingest.Options{
		MaxFileBytes: lc.MaxFileBytes,
		Retain:       lc.Retain,
		Progress:     f.progress(),
	}
}

// progress returns a progress callback that draws a bar per stage on
// stderr when stderr is a terminal, and nil (silence) otherwise.
func (f *Factory) progress() func(stage string, done, total int) {
	if !isTerminal(f.IO.ErrOut) {
		return nil
	}
	var bar *progressbar.ProgressBar
	var current string
	return func(stage string, done, total int) {
		if bar == nil || stage != current {
			if bar != nil {
				_ = bar.Finish()
			}
			current = stage
			bar = progressbar.NewOptions(total,
				progressbar.OptionSetWriter(f.IO.ErrOut),
				progressbar.OptionSetDescription(fmt.Sprintf("%-9s", stage)),
				progressbar.OptionShowCount(),
				progressbar.OptionThrottle(80*time.Millisecond),
				progressbar.OptionClearOnFinish(),
				progressbar.OptionSetWidth(30))
		}
		_ = bar.Set(done)
		if done == total {
			_ = bar.Finish()
		}
	}
}

// Close releases what the factory opened.
func (f *Factory) Close() {
	if f.fed != nil {
		_ = f.fed.Close()
	}
	if f.ws != nil {
		_ = f.ws.Close()
	}
}

func isTerminal(w any) bool {
	file, ok := w.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}
