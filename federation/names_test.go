package federation

import (
	"regexp"
	"testing"
)

// The byte-loop checks say exactly what these patterns say.
var (
	nameRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	envVarRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	codeRE   = regexp.MustCompile(`^[a-z][a-z_]{0,63}$`)
)

func FuzzNameChecks(f *testing.F) {
	for _, s := range []string{"", "team", "Team-2.b_c", "-x", ".x", "_x", "9lives", "a b", "tök", "TOKEN_ENV", "not_found", "Not", "a" + string(make([]byte, 70))} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if validName(s) != nameRE.MatchString(s) {
			t.Fatalf("validName(%q) = %v", s, validName(s))
		}
		if validEnvVar(s) != envVarRE.MatchString(s) {
			t.Fatalf("validEnvVar(%q) = %v", s, validEnvVar(s))
		}
		if validCode(s) != codeRE.MatchString(s) {
			t.Fatalf("validCode(%q) = %v", s, validCode(s))
		}
	})
}
