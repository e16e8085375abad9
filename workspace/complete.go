package workspace

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docir/docir/store"
)

// maxCompletions bounds what Complete returns: a shell shows no more.
const maxCompletions = 500

var errEnough = errors.New("enough")

// Complete returns the addresses that start with partial, ignoring case,
// for shell completion: document ids while partial has no '#', else
// `id#slug` for each section of that document (its id matched ignoring
// case too) whose slug starts with what follows the '#'. Completions are
// written as the store holds them ("runbooks/disk-full" for "RUN"). It
// reads the current generation (indexing first only when the service was
// built with AutoIndex), and it returns at most 500 addresses, in id order
// then document order.
func (s *Service) Complete(ctx context.Context, partial string) ([]string, error) {
	// The generation is held while it is walked: a refresh may retire it
	// meanwhile, and closes it only once the last hold is released.
	v, release, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	snap := v.snap
	if id, frag, ok := strings.Cut(partial, "#"); ok {
		rec, found, err := snap.Record(id)
		if err == nil && !found {
			// The id typed in another case: the one id that equals it so.
			var ids []string
			if ids, err = idsWithPrefix(ctx, snap, id, 2); err == nil {
				ids = slices.DeleteFunc(ids, func(c string) bool { return !strings.EqualFold(c, id) })
				if len(ids) == 1 {
					rec, found, err = snap.Record(ids[0])
				}
			}
		}
		if err != nil || !found {
			return nil, err
		}
		var out []string
		for _, sec := range rec.Sections {
			if hasPrefixFold(sec.Slug, frag) && len(out) < maxCompletions {
				out = append(out, rec.ID+"#"+sec.Slug)
			}
		}
		return out, nil
	}
	return idsWithPrefix(ctx, snap, partial, maxCompletions)
}

// idsWithPrefix returns at most limit ids that start with partial ignoring
// case, in id order. Ids come in order from the manifest: for each way of
// writing partial's first letter (k, K and the Kelvin sign K), the scan
// starts at the first id at or after it and stops at the first that does
// not start with it, so it reads only the ids under that letter.
func idsWithPrefix(ctx context.Context, snap *store.Snapshot, partial string, limit int) ([]string, error) {
	var starts []string
	if first, _ := utf8.DecodeRuneInString(partial); partial == "" {
		starts = []string{""}
	} else {
		for r := first; ; {
			starts = append(starts, string(r))
			if r = unicode.SimpleFold(r); r == first {
				break
			}
		}
	}
	// Each scan yields its ids in order, so the first limit of all are
	// among the first limit of each.
	var out []string
	for _, start := range starts {
		n := 0
		err := snap.EachDocPath(start, func(id, _ string) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if !strings.HasPrefix(id, start) {
				return errEnough
			}
			if hasPrefixFold(id, partial) {
				out = append(out, strings.Clone(id))
				if n++; n == limit {
					return errEnough
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, errEnough) {
			return nil, err
		}
	}
	slices.Sort(out)
	return out[:min(len(out), limit)], nil
}

// hasPrefixFold reports whether s starts with prefix, ignoring case (Unicode
// simple folding, as strings.EqualFold).
func hasPrefixFold(s, prefix string) bool {
	for prefix != "" {
		if s == "" {
			return false
		}
		r1, n1 := utf8.DecodeRuneInString(s)
		r2, n2 := utf8.DecodeRuneInString(prefix)
		if r1 != r2 && !strings.EqualFold(s[:n1], prefix[:n2]) {
			return false
		}
		s, prefix = s[n1:], prefix[n2:]
	}
	return true
}
