package docir

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/docir/docir/address"
)

// TestCodeOf: a coded error keeps its code through wrapping; a read that
// ran past its deadline, or was cancelled before its answer (an HTTP
// client that half-closed after its request: Go's server cancels it), is
// unavailable, not internal; anything else is internal.
func TestCodeOf(t *testing.T) {
	_, parseErr := address.Parse("a#")
	for _, tt := range []struct {
		err  error
		want Code
	}{
		{nil, ""},
		{fmt.Errorf("reading: %w", Errorf(CodeNotFound, "no document x")), CodeNotFound},
		{fmt.Errorf("search: %w", context.DeadlineExceeded), CodeUnavailable},
		{fmt.Errorf("search: %w", context.Canceled), CodeUnavailable},
		{errors.New("disk on fire"), CodeInternal},
	} {
		if got := CodeOf(tt.err); got != tt.want {
			t.Errorf("CodeOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	if got := CodeOf(parseErr); parseErr == nil || got != CodeMalformedAddress {
		t.Errorf("CodeOf(%v) = %q, want malformed_address", parseErr, got)
	}
}
