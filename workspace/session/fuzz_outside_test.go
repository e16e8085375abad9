package session

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// isLoopbackName is the fuzz targets' own judge of a host name without
// its port: the ASCII name localhost in any case, or an address that both
// net.ParseIP and net/netip read as a loopback one.
func isLoopbackName(h string) bool {
	if len(h) == len("localhost") && strings.ToLower(h) == "localhost" && isASCII(h) {
		return true
	}
	ip := net.ParseIP(h)
	a, err := netip.ParseAddr(h)
	return ip != nil && ip.IsLoopback() && err == nil && a.Unmap().IsLoopback()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// hostOfHeader is a Host header without its port and brackets, as the
// judge reads it.
func hostOfHeader(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
}

var hostSeeds = []string{
	"127.0.0.1:7420", "localhost:1", "LocalHost", "[::1]:7420", "::1", "127.3.4.5", "[::ffff:127.0.0.1]:80",
	"evil.example:1", "localhost.evil.example", "127.0.0.1.nip.io", "0.0.0.0:1", "[::]:1", "", ":80",
	"[127.0.0.1", "localhost:80:80", "[::1%lo]:1", "0x7f.0.0.1", "2130706433", "127.1",
}

// FuzzLoopbackHost: a Host header loopbackHost accepts names this machine
// (the ASCII name localhost or a loopback address, with any port), and an
// Origin loopbackOrigin accepts has such a host.
func FuzzLoopbackHost(f *testing.F) {
	for _, s := range hostSeeds {
		f.Add(s)
	}
	for _, s := range []string{"http://localhost:3000", "https://127.0.0.1", "http://[::1]:8080/x", "https://evil.example",
		"http://evil.example@127.0.0.1", "http://127.0.0.1@evil.example", "null", "file://", "//localhost", "localhost:3000",
		"localhoſt:7420", "http://LOCALHOſT"} { // a long s folds to s in Unicode, not in a host name
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if loopbackHost(in) && !isLoopbackName(hostOfHeader(in)) {
			t.Fatalf("loopbackHost(%q) accepts %q, not a loopback name", in, hostOfHeader(in))
		}
		if loopbackOrigin(in) {
			u, err := url.Parse(in)
			if err != nil || !isLoopbackName(hostOfHeader(u.Host)) {
				t.Fatalf("loopbackOrigin(%q) accepts a host that is not a loopback name (%v)", in, err)
			}
		}
		// What names loopback plainly is accepted, with or without a port.
		if a, err := netip.ParseAddr(in); err == nil && a.Zone() == "" && a.Unmap().IsLoopback() {
			hp := net.JoinHostPort(in, "80")
			if !loopbackHost(in) || !loopbackHost(hp) || !loopbackOrigin("http://"+hp) {
				t.Fatalf("the loopback address %q is refused", in)
			}
		}
	})
}

// FuzzGuard: guard admits a request only with the right bearer token and,
// on a loopback listener, a loopback Host and (when sent) Origin; whatever
// the headers, it admits one that has them, and a refusal is a 401 or 403
// that closes the connection.
func FuzzGuard(f *testing.F) {
	const token = "s3cret"
	for _, s := range []struct {
		host, origin, auth string
		loopback           bool
	}{
		{"127.0.0.1:7420", "", "Bearer s3cret", true},
		{"localhost:1", "http://localhost:3000", "bearer s3cret", true},
		{"[::1]:80", "http://[::1]:3000", "BEARER s3cret", true},
		{"evil.example:1", "", "Bearer s3cret", true},
		{"127.0.0.1:1", "https://evil.example", "Bearer s3cret", true},
		{"127.0.0.1:1", "", "Bearer wrong", true},
		{"127.0.0.1:1", "", "Bearer s3cret ", true},
		{"127.0.0.1:1", "", "Bearer  s3cret", true},
		{"127.0.0.1:1", "", "Basic s3cret", true},
		{"127.0.0.1:1", "", "", true},
		{"0.0.0.0:1", "https://evil.example", "Bearer s3cret", false},
		{"docs.example:443", "", "Bearer s3cret", false},
	} {
		f.Add(s.host, s.origin, s.auth, s.loopback)
	}
	f.Fuzz(func(t *testing.T, host, origin, auth string, loopback bool) {
		h := (*Engine)(nil).httpHandler(HTTPOptions{Token: token, Loopback: loopback}, nil)
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+RPCPath, nil)
		r.Host = host
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		admitted := h.guard(w, r)

		scheme, got, _ := strings.Cut(auth, " ")
		tokenOK := strings.ToLower(scheme) == "bearer" && isASCII(scheme) && got == token
		hostOK := !loopback || isLoopbackName(hostOfHeader(host))
		originOK := !loopback || origin == ""
		if u, err := url.Parse(origin); loopback && origin != "" && err == nil && u.Host != "" {
			originOK = isLoopbackName(hostOfHeader(u.Host))
		}
		if admitted && !(tokenOK && hostOK && originOK) {
			t.Fatalf("admitted Host %q, Origin %q, Authorization %q (loopback listener %v)", host, origin, auth, loopback)
		}
		if !admitted && tokenOK && hostOK && originOK {
			t.Fatalf("refused Host %q, Origin %q with the right token (loopback listener %v)", host, origin, loopback)
		}
		if !admitted && (w.Code != http.StatusUnauthorized && w.Code != http.StatusForbidden || w.Header().Get("Connection") != "close") {
			t.Fatalf("refused with %d, Connection %q", w.Code, w.Header().Get("Connection"))
		}
		if !admitted && w.Code == http.StatusUnauthorized && strings.Contains(w.Body.String(), token) {
			t.Fatalf("the 401 reply shows the token: %s", w.Body)
		}
	})
}

// FuzzListenAddr: an address ListenAddr resolves keeps its host and port
// (127.0.0.1 when it names no host), and it is called loopback exactly
// when that host is the ASCII name localhost or a loopback address. Hosts
// that would need DNS are left out.
func FuzzListenAddr(f *testing.F) {
	for _, s := range []string{"7420", ":7420", "127.0.0.1:0", "127.3.4.5:80", "localhost:7420", "[::1]:7420",
		"0.0.0.0:7420", "[::]:7420", "192.0.2.1:7420", "", "127.0.0.1:notaport", "1:2:3", "localhost:http",
		"[::ffff:127.0.0.1]:1", "127.0.0.1:99999", "[fe80::1%lo]:1", ":", "localhoſt:7420"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		in := addr
		if !strings.Contains(in, ":") {
			in = ":" + in
		}
		host, port, err := net.SplitHostPort(in)
		if err == nil && host != "" && !strings.EqualFold(host, "localhost") && net.ParseIP(host) == nil {
			t.Skip("a host name that would need DNS")
		}
		hostport, loopback, err := ListenAddr(addr)
		if err != nil {
			if hostport != "" || loopback {
				t.Fatalf("ListenAddr(%q) = %q, %v with error %v", addr, hostport, loopback, err)
			}
			return
		}
		h, p, err := net.SplitHostPort(hostport)
		if err != nil || p != port || h != host && !(host == "" && h == "127.0.0.1") {
			t.Fatalf("ListenAddr(%q) = %q (%v), want host %q port %q", addr, hostport, err, host, port)
		}
		if loopback != isLoopbackName(h) {
			t.Fatalf("ListenAddr(%q): loopback %v for host %q", addr, loopback, h)
		}
	})
}
