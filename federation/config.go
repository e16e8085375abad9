package federation

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/docir/docir/docir"
)

// DefaultTimeout bounds every call to a peer whose config names no timeout:
// a deep read, a skeleton read or a status probe that takes longer fails
// that peer (its addresses become `unavailable`) and the read goes on.
const DefaultTimeout = 5 * time.Second

// MaxTimeout is the longest timeout a peer may declare.
const MaxTimeout = 10 * time.Minute

// Peer kinds, as PeerStatus.Kind reports them.
const (
	KindPath = "path"
	KindURL  = "url"
)

// PeerConfig is one entry of the config's `peers:` list, as the CLI read
// it. Exactly one of Path and URL is set.
type PeerConfig struct {
	Name string
	// Path is another docir store folder on disk, absolute; a folder that
	// holds a `.docir` store is accepted too.
	Path string
	// URL is a `docir serve --http` endpoint: http(s)://host:port, with or
	// without the /rpc path.
	URL string
	// TokenEnv names the environment variable the bearer token was read
	// from; Token is its value, read by the caller ("" when unset). A peer
	// with TokenEnv set and an empty Token is declared but cannot be asked:
	// it fails as data on every read.
	TokenEnv string
	Token    string
	// Timeout bounds each call to the peer; 0 means DefaultTimeout.
	Timeout time.Duration
	// Stemming is the stemming of the searches this process runs on a
	// path peer's store (workspace.Config.Stemming): the local config's,
	// so that the stores' scores are alike. An HTTP peer's server uses
	// its own.
	Stemming string
}

// validName: a letter or digit, then letters, digits, '.', '_', '-'.
// (Byte loops, not package-level regexps: every docir process would
// compile those at start-up.)
func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAlnum(c) || i > 0 && (c == '.' || c == '_' || c == '-')) {
			return false
		}
	}
	return s != ""
}

// validEnvVar: a letter or '_', then letters, digits and '_'.
func validEnvVar(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isAlnum(c) && !(i == 0 && c >= '0' && c <= '9') || c == '_') {
			return false
		}
	}
	return s != ""
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// MaxNameLen is the longest peer name.
const MaxNameLen = 64

// Check validates a peer list as a whole: every entry well formed, names
// unique (ignoring case) and none of them `local`. The error names the entry
// (`peers[1] (team)`) and what is wrong with it, and has code config.
func Check(peers []PeerConfig) error {
	seen := map[string]int{}
	for i, p := range peers {
		if err := p.check(); err != nil {
			return docir.Errorf(docir.CodeConfig, "%s: %w", entry(i, p.Name), err)
		}
		key := strings.ToLower(p.Name)
		if j, dup := seen[key]; dup {
			return docir.Errorf(docir.CodeConfig, "%s: name %q is already used by peers[%d]; peer names must be unique", entry(i, p.Name), p.Name, j)
		}
		seen[key] = i
	}
	return nil
}

func entry(i int, name string) string {
	if name == "" {
		return fmt.Sprintf("peers[%d]", i)
	}
	return fmt.Sprintf("peers[%d] (%s)", i, name)
}

func (p PeerConfig) check() error {
	switch {
	case p.Name == "":
		return fmt.Errorf("no name")
	case len(p.Name) > MaxNameLen:
		return fmt.Errorf("name is longer than %d bytes", MaxNameLen)
	case !validName(p.Name):
		return fmt.Errorf("name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", p.Name)
	case strings.EqualFold(p.Name, docir.StoreLocal):
		return fmt.Errorf("name %q is reserved for the local store", p.Name)
	}
	switch {
	case p.Path == "" && p.URL == "":
		return fmt.Errorf("needs either path (a store folder) or url (a docir serve --http endpoint)")
	case p.Path != "" && p.URL != "":
		return fmt.Errorf("has both path and url; a peer is one or the other")
	}
	if p.Timeout < 0 || p.Timeout > MaxTimeout {
		return fmt.Errorf("timeout %s: want more than 0 and at most %s", p.Timeout, MaxTimeout)
	}
	if p.Path != "" {
		if p.TokenEnv != "" {
			return fmt.Errorf("token_env is for url peers; a path peer is read from disk")
		}
		return nil
	}
	if _, err := endpoint(p.URL); err != nil {
		return err
	}
	if p.TokenEnv != "" && !validEnvVar(p.TokenEnv) {
		return fmt.Errorf("token_env %q is not an environment variable name", p.TokenEnv)
	}
	return nil
}

// endpoint turns a peer's url into the URL docir posts JSON-RPC frames to:
// the url itself when its path ends in /rpc, else the url with /rpc added.
// Its errors show the url without what precedes its last '@' (user info,
// a password: see hideUserinfo), whatever else is wrong with it, and never
// Go's parse error of the url as given, which quotes it whole.
func endpoint(raw string) (*url.URL, error) {
	shown, bare := hideUserinfo(raw)
	refused := fmt.Errorf("url %q: credentials in a url are refused; name an environment variable in token_env", shown)
	u, err := url.Parse(raw)
	if err != nil {
		// What is wrong, told by parsing the url without its user info;
		// when that parses, what is wrong is in the part left out.
		var ue *url.Error
		if _, err := url.Parse(bare); errors.As(err, &ue) {
			return nil, fmt.Errorf("url %q: %w", shown, ue.Err)
		}
		return nil, refused
	}
	switch {
	case u.User != nil:
		return nil, refused
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("url %q: want http:// or https://", shown)
	case u.Host == "":
		return nil, fmt.Errorf("url %q: no host", shown)
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("url %q: no query or fragment, please", shown)
	}
	if !strings.HasSuffix(u.Path, "/rpc") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/rpc"
	}
	return u, nil
}

// hideUserinfo is raw as an error may show it (shown) and as it is parsed
// to say what else is wrong (bare): without what lies between the "//"
// that starts its host (or its start) and its last '@', where user info
// and a password are. That is wider than the user info url.Parse finds,
// on purpose: a password holding '/', '?' or '#' ends what url.Parse
// takes for the host early, and a url without "//" has none, but neither
// may show. shown marks the cut with "…@".
func hideUserinfo(raw string) (shown, bare string) {
	at := strings.LastIndexByte(raw, '@')
	if at < 0 {
		return raw, raw
	}
	from := 0
	if i := strings.Index(raw, "//"); i >= 0 && i < at && schemePart(raw[:i]) {
		from = i + 2
	}
	return raw[:from] + "…@" + raw[at+1:], raw[:from] + raw[at+1:]
}

// schemePart reports whether s, what comes before a url's "//", is
// nothing or a scheme and its ':' ("https:"), so that the "//" starts the
// host: a "//" in a password of a url without one ("alice:pa//ss@host")
// does not.
func schemePart(s string) bool {
	if s == "" {
		return true
	}
	name, ok := strings.CutSuffix(s, ":")
	if !ok || name == "" || !(name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z') {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func (p PeerConfig) timeout() time.Duration {
	if p.Timeout == 0 {
		return DefaultTimeout
	}
	return p.Timeout
}

func (p PeerConfig) kind() string {
	if p.Path != "" {
		return KindPath
	}
	return KindURL
}

func (p PeerConfig) location() string {
	if p.Path != "" {
		return p.Path
	}
	return p.URL
}
