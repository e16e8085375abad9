package fulltext

import (
	"context"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zap "github.com/blevesearch/zapx/v17"
)

// Seeking in a term's postings. A query's probing cursors look a term up
// for the few passages the essential terms found (cursor.seek), so most of
// their reading is seeks far ahead. zap keeps a postings list as a bitmap of
// passage numbers and, beside it, the terms' counts in chunks of passage
// numbers; its iterator's seek steps the bitmap one posting at a time up
// to the target (zapx v17.2.5, PostingsIterator.nextDocNumAtOrAfterClean),
// and where the segment has deleted passages it steps the term's full
// bitmap the same way (nextDocNumAtOrAfter). A seek to a passage far ahead
// thus walks every posting before it: a common word's look-ups walk its
// whole list, however few they are.
//
// postingsReader reads a term's postings in one field of a scorch snapshot
// as scorch's own TermFieldReader does (same passages, counts and norms),
// and seeks in the bitmap first: before a seek into a later chunk it moves
// zap's bitmap iterator (PostingsIterator.Actual, exported) to the chunk's
// first passage number, so zap's own seek then steps only within the
// target's chunk, from its start, as it does when it crosses into a chunk
// by stepping. It opens each segment's postings without the deleted
// passages excluded, so that zap reads them as clean postings (the bitmap
// iterator is then the one zap steps), and passes over deleted passages
// itself.
//
// The chunk's size is zap's rule for the segment's chunk mode
// (chunkSize); for a chunk mode it does not know, a segment of another
// kind, or an iterator of another type, the reader seeks with zap's seek
// alone. TestPostingsReader holds it to scorch's reader, seek for seek, on
// segments with and without deleted passages.
type postingsReader struct {
	snap  *scorch.IndexSnapshot
	term  []byte
	field string
	freq  bool
	segs  []segmentPostings
	k     int    // the segment being read
	count uint64 // the passages that hold the term, deleted ones excepted
	last  uint64 // the global number of the posting last returned, once one was
	any   bool
	jumps int // seeks that started at a chunk (TestPostingsReader)
}

// segmentPostings is a term's postings in one segment.
type segmentPostings struct {
	it      segment.PostingsIterator
	zap     *zap.PostingsIterator // it, when its seeks can start at a chunk
	chunk   uint64                // the chunk size, when zap is set
	offset  uint64                // the segment's first global passage number
	deleted *roaring.Bitmap       // the segment's deleted passages, if any
	next    uint64                // the first local number not yet passed
}

// termReader opens the reader of term's postings in field: a
// postingsReader on a scorch snapshot, else the index's own.
func termReader(ctx context.Context, r index.IndexReader, term, field string, freq bool) (index.TermFieldReader, error) {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return r.TermFieldReader(ctx, []byte(term), field, freq, freq, false)
	}
	p := &postingsReader{snap: snap, term: []byte(term), field: field, freq: freq}
	if err := p.open(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *postingsReader) open() error {
	p.segs, p.k, p.count, p.any = p.segs[:0], 0, 0, false
	var offset uint64
	for _, ss := range p.snap.Segments() {
		seg := ss.Segment()
		dict, err := seg.Dictionary(p.field)
		if err != nil {
			return err
		}
		pl, err := dict.PostingsList(p.term, nil, nil)
		if err != nil {
			return err
		}
		s := segmentPostings{offset: offset, it: pl.Iterator(p.freq, p.freq, false, nil)}
		if d := ss.Deleted(); d != nil && !d.IsEmpty() {
			s.deleted = d
		}
		if s.deleted == nil {
			p.count += pl.Count()
		} else {
			// Counted as scorch's reader counts: its postings less the
			// deleted, from the bitmaps.
			live, err := dict.PostingsList(p.term, s.deleted, nil)
			if err != nil {
				return err
			}
			p.count += live.Count()
		}
		if zs, ok := seg.(*zap.Segment); ok {
			if zi, ok := s.it.(*zap.PostingsIterator); ok && zi.ActualBM != nil {
				if c := chunkSize(zs.ChunkMode(), zi.ActualBM.GetCardinality(), zs.NumDocs()); c > 0 {
					s.zap, s.chunk = zi, c
				}
			}
		}
		p.segs = append(p.segs, s)
		offset += seg.Count()
	}
	return nil
}

// chunkSize is zap's chunk size for a postings list of cardinality
// passages in a segment of numDocs passages written in chunkMode (zapx
// v17.2.5 getChunkSize), or 0 for a chunk mode it does not know.
func chunkSize(chunkMode uint32, cardinality, numDocs uint64) uint64 {
	switch {
	case chunkMode == 0:
		return 0
	case chunkMode <= 1024:
		return uint64(chunkMode)
	case chunkMode == 1025:
		if cardinality <= 1024 {
			return numDocs
		}
		return 1024
	case chunkMode == 1026:
		return numDocs / (cardinality/1024 + 1)
	}
	return 0
}

func (p *postingsReader) Next(pre *index.TermFieldDoc) (*index.TermFieldDoc, error) {
	d, err := p.next()
	if d == nil || err != nil {
		return nil, err
	}
	return p.doc(d, pre), nil
}

func (p *postingsReader) Advance(id index.IndexInternalID, pre *index.TermFieldDoc) (*index.TermFieldDoc, error) {
	d, err := p.seek(id.Value())
	if d == nil || err != nil {
		return nil, err
	}
	return p.doc(d, pre), nil
}

// next moves to the next live posting and returns it, nil at the end;
// p.last is its global passage number. A cursor reads a postingsReader
// through next and seek, with no TermFieldDoc between.
func (p *postingsReader) next() (segment.Posting, error) {
	for ; p.k < len(p.segs); p.k++ {
		s := &p.segs[p.k]
		for {
			d, err := s.it.Next()
			if err != nil {
				return nil, err
			}
			if d == nil {
				break
			}
			if s.take(d) {
				p.last, p.any = d.Number()+s.offset, true
				return d, nil
			}
		}
	}
	return nil, nil
}

// seek moves to the first live posting at or after passage num and
// returns it, as next does.
func (p *postingsReader) seek(num uint64) (segment.Posting, error) {
	if p.any && num <= p.last {
		// Backwards, or to the posting it is on: read again from the
		// start, as scorch's reader does.
		if err := p.open(); err != nil {
			return nil, err
		}
	}
	for p.k+1 < len(p.segs) && p.segs[p.k+1].offset <= num {
		p.k++
	}
	if p.k >= len(p.segs) {
		return nil, nil
	}
	s := &p.segs[p.k]
	// num is past the posting returned last, which is in segment k (or
	// k is 0), so at or after the segment's first passage; min holds the
	// seek to the segment's start should that ever not be so.
	local := num - min(num, s.offset)
	if s.zap != nil {
		if c := local / s.chunk * s.chunk; c > 0 && c >= s.next && c < 1<<32 {
			s.zap.Actual.AdvanceIfNeeded(uint32(c))
			p.jumps++
		}
	}
	d, err := s.it.Advance(local)
	if err != nil {
		return nil, err
	}
	if d == nil {
		p.k++ // nothing at or after it in this segment
	} else if s.take(d) {
		p.last, p.any = d.Number()+s.offset, true
		return d, nil
	}
	// A deleted passage, or the segment's end: the next live one.
	return p.next()
}

// take records that d was passed, and says whether it is a live passage.
func (s *segmentPostings) take(d segment.Posting) bool {
	n := d.Number()
	s.next = n + 1
	return s.deleted == nil || !s.deleted.Contains(uint32(n))
}

// doc is d, the posting last returned, as a TermFieldDoc.
func (p *postingsReader) doc(d segment.Posting, pre *index.TermFieldDoc) *index.TermFieldDoc {
	if pre == nil {
		pre = &index.TermFieldDoc{}
	}
	pre.ID = index.NewIndexInternalID(pre.ID, p.last)
	if p.freq {
		pre.Freq, pre.Norm = d.Frequency(), d.Norm()
	}
	return pre
}

func (p *postingsReader) Count() uint64 { return p.count }

func (p *postingsReader) Close() error { return nil }

// Size is the memory the reader holds, as bleve's readers count it.
func (p *postingsReader) Size() int {
	n := int(unsafe.Sizeof(*p)) + len(p.term) + len(p.field) + cap(p.segs)*int(unsafe.Sizeof(segmentPostings{}))
	for _, s := range p.segs {
		n += s.it.Size()
	}
	return n
}
