package workspace

import (
	"context"
	"errors"
	"strings"
)

// maxCompletions bounds what Complete returns: a shell shows no more.
const maxCompletions = 500

var errEnough = errors.New("enough")

// Complete returns the addresses that start with partial, for shell
// completion: document ids while partial has no '#', else `id#slug` for
// each section of that document whose slug starts with what follows the
// '#'. It reads the current generation (indexing first only when the service
// was built with AutoIndex), and it returns at most 500 addresses,
// in id order then document order.
func (s *Service) Complete(ctx context.Context, partial string) ([]string, error) {
	snap, err := s.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if id, frag, ok := strings.Cut(partial, "#"); ok {
		rec, found, err := snap.Record(id)
		if err != nil || !found {
			return nil, err
		}
		frag = strings.ToLower(frag)
		var out []string
		for _, sec := range rec.Sections {
			if strings.HasPrefix(sec.Slug, frag) && len(out) < maxCompletions {
				out = append(out, id+"#"+sec.Slug)
			}
		}
		return out, nil
	}
	// Ids come in order from the manifest, from the first at or after
	// partial: the scan stops at the first that does not start with it.
	var out []string
	err = snap.EachDocPath(partial, func(id, _ string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !strings.HasPrefix(id, partial) {
			return errEnough
		}
		out = append(out, strings.Clone(id))
		if len(out) == maxCompletions {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	return out, err
}
