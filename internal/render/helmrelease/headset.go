package helmrelease

import (
	"encoding/binary"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// headBits is the size of a headSet's table, as a power of two: 2^20 bits (128 KiB) keep
// the chance that a window of a file falls on a set bit by accident near 2,000/2^20 for
// 2,000 texts (200 values in their forms).
const headBits = 20

// headSet is a prefilter of the texts a fileMask replaces: each one's first
// graph.MinValueBytes bytes, as a bit table of their first two bytes, one over the windows
// of four and the exact heads behind them. anyIn tells whether a text may start somewhere in a file.
type headSet struct {
	pairs [1 << 16 / 64]uint64 // the first two bytes, a table small enough to stay in cache
	bits  []uint64
	heads map[uint32]bool
}

// newHeadSet returns the headSet of texts, each graph.MinValueBytes (4) bytes or longer.
func newHeadSet(texts []string) *headSet {
	h := &headSet{bits: make([]uint64, 1<<headBits/64), heads: map[uint32]bool{}}
	for _, t := range texts {
		if len(t) < graph.MinValueBytes {
			continue // none is: newFileMask keeps longer ones only
		}
		w := binary.LittleEndian.Uint32([]byte(t[:4]))
		h.heads[w] = true
		p := uint16(w)
		h.pairs[p/64] |= 1 << (p % 64)
		i := headIndex(w)
		h.bits[i/64] |= 1 << (i % 64)
	}
	return h
}

func headIndex(w uint32) uint32 { return (w * 2654435761) >> (32 - headBits) }

// anyIn reports whether the first bytes of one of h's texts stand in data.
func (h *headSet) anyIn(data []byte) bool {
	for i := 0; i+4 <= len(data); i++ {
		p := binary.LittleEndian.Uint16(data[i:])
		if h.pairs[p/64]&(1<<(p%64)) == 0 {
			continue
		}
		w := binary.LittleEndian.Uint32(data[i:])
		if j := headIndex(w); h.bits[j/64]&(1<<(j%64)) != 0 && h.heads[w] {
			return true
		}
	}
	return false
}
