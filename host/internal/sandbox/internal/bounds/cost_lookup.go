package bounds

import (
	"cmp"
	"slices"
)

// How wazero's SSA builder (v1.12) finds the values of a function's
// locals, for the cost model of cost.go.
//
// A read of a local that its block has not set looks for its value back
// through the block's predecessors (the entry block sets every local).
// Through a block of a single predecessor it just goes on. At a join it
// records a new value for the local, asks every predecessor, and keeps
// the value if they all answer the same, or else makes the new value a
// parameter of the join and asks every predecessor again for the branch
// arguments; what it recorded stops every later lookup of the local
// there. A loop's header, until the loop ends, answers with a parameter
// of its own, and asks its predecessors once the loop has ended. The
// builder compares values, not definitions: a join whose first
// predecessor's answer came from a join looked up for the first time,
// and whose others found what that join recorded, gets a parameter too.
// A later pass reads each parameter's arguments until two differ: one
// whose arguments never do is removed, and stands for its argument after.
//
// The lookups of one local depend on its own reads and writes only, so
// lookups follows them local by local, over the function's final blocks,
// in the order of the code, with what the builder does at each step: the
// number of steps, the joins looked up through, the parameters made and
// the arguments the pass will read. The count is the builder's own, and
// so is the work: it stops once the module is over its limit.

// lookupScratch is what lookups reuses from one function to the next.
type lookupScratch struct {
	// predStart[b] is where the predecessors of block b start in preds.
	predStart []uint32
	preds     []int32
	// first[l] is the first event of local l, next[e] the one after e.
	first, next []int32
	// found[b] is what a lookup of the local followed finds in block b,
	// if it is marked with its mark; walked are the blocks a lookup just
	// walked.
	found  []lookupFound
	walked []int32
	// depth[v] bounds the aliases value v stands at the end of: the
	// values resolving an argument may go through. alias[v] is the value v
	// stands for, or 0.
	depth   []uint32
	alias   []int32
	frames  []lookupFrame
	pending []int32 // headers waiting for their loop's end, the soonest last
	// joins counts the joins the lookups of the local went through.
	joins uint64
}

// lookupFound is the value a lookup found from a block, and the chain
// position of the block where it found it.
type lookupFound struct {
	mark  uint32
	value int32
	pos   uint32
}

// lookupFrame is a join being looked up through.
type lookupFrame struct {
	block  int32
	next   uint32 // the predecessor asked next
	params bool   // asking again, for the arguments of a parameter
	value  int32  // the value recorded at the join
	answer int32  // the predecessors' common answer so far
	depth  uint32 // the deepest argument's
	// For a parameter, as the check pass will first see it: the first
	// argument other than itself, whether another differs, and how many
	// arguments the check reads until then.
	first   int32
	differ  bool
	scanned uint32
}

// lookups counts the steps of the lookups of every local the function
// reads, the locals looked up through each block and the parameters made.
func (c *costModel) lookups() {
	s := &c.lookup
	n := len(c.blocks)
	s.predStart = resized(s.predStart, n+1)
	for _, e := range c.edges {
		s.predStart[e.to+1]++
	}
	for b := 1; b <= n; b++ {
		s.predStart[b] += s.predStart[b-1]
	}
	s.preds = resized(s.preds, len(c.edges))
	for _, e := range c.edges {
		s.preds[s.predStart[e.to]] = e.from // ^from through a trampoline
		s.predStart[e.to]++
	}
	for b := n; b > 0; b-- { // back to the starts
		s.predStart[b] = s.predStart[b-1]
	}
	s.predStart[0] = 0

	// The events of each local, in order.
	s.first = resized(s.first, int(c.variables))
	for i := range s.first {
		s.first[i] = -1
	}
	s.next = resized(s.next, len(c.events))
	for e := len(c.events) - 1; e >= 0; e-- {
		l := c.events[e].local
		s.next[e], s.first[l] = s.first[l], int32(e)
	}
	s.found = resized(s.found, n)
	for l, e := range s.first {
		if e < 0 {
			continue
		}
		mark := uint32(l) + 1
		s.depth = append(s.depth[:0], 0, 0) // none, and the entry's value
		s.alias = append(s.alias[:0], 0, 0)
		s.pending, s.joins = s.pending[:0], 0
		for i := e; i >= 0; i = s.next[i] {
			if !c.sealed(uint32(i), mark) {
				return
			}
			if ev := c.events[i]; ev.set {
				s.found[ev.block] = lookupFound{mark, s.newValue(0), c.blocks[ev.block].chain}
			} else if !c.find(ev.block, uint32(i), mark) {
				return
			}
		}
		if !c.sealed(1<<32-1, mark) {
			return
		}
		c.lookupJoins = max(c.lookupJoins, s.joins)
		if c.over() {
			return // refused in any case
		}
	}
}

// sealed follows the ends of the loops whose headers the local mark-1
// waits at, up to event t, and reports whether the module is within its
// limit so far.
func (c *costModel) sealed(t uint32, mark uint32) bool {
	s := &c.lookup
	for len(s.pending) > 0 {
		h := s.pending[len(s.pending)-1]
		at := c.blocks[h].sealAt
		if at > t {
			break
		}
		s.pending = s.pending[:len(s.pending)-1]
		c.blocks[h].params++
		s.frames = append(s.frames[:0], lookupFrame{block: h, params: true, value: s.found[h].value})
		if !c.resolve(s.preds[s.predStart[h]], at, mark) {
			return false
		}
	}
	return true
}

// find follows a read of local mark-1 in block b at event t.
func (c *costModel) find(b int32, t uint32, mark uint32) bool {
	c.lookup.frames = c.lookup.frames[:0]
	return c.resolve(b, t, mark)
}

// resolve looks for the value of local mark-1 in block b at event t, as
// the builder does, under the joins of lookup.frames, and on until those
// have their answers. It reports whether the module is within its limit.
func (c *costModel) resolve(b int32, t uint32, mark uint32) bool {
	s := &c.lookup
ask:
	for {
		answer, entered := c.descend(b, t, mark)
		if c.fnSteps[costJoins]&0xfff == 0 && c.over() {
			return false
		}
		if entered {
			b = s.preds[s.predStart[s.frames[len(s.frames)-1].block]]
			continue
		}
		// Hand the answer to the join that asked, and ask its next
		// predecessor, until a join has all its answers.
		for len(s.frames) > 0 {
			f := &s.frames[len(s.frames)-1]
			preds := s.preds[s.predStart[f.block]:s.predStart[f.block+1]]
			f.next++
			switch {
			case f.params:
				if answer != f.value {
					f.depth = max(f.depth, s.depth[answer])
					// Resolving the argument goes through its aliases.
					c.fnSteps[costParams] += uint64(s.depth[answer])
				}
				if !f.differ {
					f.scanned++
					if r := s.resolved(answer); r == f.value {
					} else if f.first == 0 {
						f.first = r
					} else if r != f.first {
						f.differ = true
					}
				}
			case f.next == 1:
				f.answer = answer
			case answer != f.answer:
				// They disagree: a parameter, and every predecessor asked
				// again for its argument.
				f.params, f.next = true, 0
				c.blocks[f.block].params++
			}
			if int(f.next) < len(preds) {
				b = preds[f.next]
				continue ask
			}
			blk := &c.blocks[f.block]
			if f.params {
				// The check pass reads the arguments of a parameter until
				// two differ, in every pass it stays; one that never differ
				// is removed at the first, standing for its argument after.
				s.depth[f.value] = f.depth + 1
				if f.differ {
					blk.survivorScans += uint64(f.scanned)
				} else {
					blk.redundantScans += uint64(len(preds))
					s.setAlias(f.value, f.first)
				}
				answer = f.value
			} else {
				s.depth[f.value] = s.depth[f.answer] + 1 // the value recorded aliases the answer
				s.setAlias(f.value, f.answer)
				answer = f.answer
			}
			s.frames = s.frames[:len(s.frames)-1]
		}
		return true
	}
}

// descend looks for the value of local mark-1 from block b at event t up
// its chain of single predecessors. It returns the value found, or enters
// a join, recording a value there and pushing a frame to ask its
// predecessors. The builder walks such a chain anew at every lookup;
// descend counts those steps, but records in each block it walked what it
// found and where, to go no further there next time.
func (c *costModel) descend(b int32, t uint32, mark uint32) (answer int32, entered bool) {
	s := &c.lookup
	hops := uint32(0)
	if b < 0 { // a br_table's trampoline, a step more
		b, hops = ^b, 1
	}
	start, pos := b, uint32(0)
	s.walked = s.walked[:0]
	for {
		blk := &c.blocks[b]
		preds := s.preds[s.predStart[b]:s.predStart[b+1]]
		switch {
		case s.found[b].mark == mark:
			answer, pos = s.found[b].value, s.found[b].pos
		case b == 0: // the entry sets every local
			answer, pos = 1, 0
		case blk.header && t < blk.sealAt:
			// A parameter until the loop ends.
			answer, pos = s.newValue(1), blk.chain
			s.found[b] = lookupFound{mark, answer, pos}
			blk.lookups++
			s.joins++
			s.pending = append(s.pending, b)
			slices.SortFunc(s.pending, func(x, y int32) int { // few: the loops open
				return cmp.Compare(c.blocks[y].sealAt, c.blocks[x].sealAt)
			})
		case len(preds) == 1:
			s.walked = append(s.walked, b)
			if b = preds[0]; b < 0 {
				b = ^b // the chain counts the trampoline
			}
			continue
		default:
			answer, pos = s.newValue(0), blk.chain
			s.found[b] = lookupFound{mark, answer, pos}
			blk.lookups++
			s.joins++
			s.frames = append(s.frames, lookupFrame{block: b, value: answer})
			entered = true
		}
		break
	}
	for _, w := range s.walked {
		s.found[w] = lookupFound{mark, answer, pos}
	}
	hops += c.blocks[start].chain - pos
	c.fnSteps[costWalks] += uint64(hops)
	c.fnSteps[costJoins]++
	return answer, entered
}

// newValue returns a new value of the local followed, standing at the
// end of depth aliases.
func (s *lookupScratch) newValue(depth uint32) int32 {
	s.depth = append(s.depth, depth)
	s.alias = append(s.alias, 0)
	return int32(len(s.depth) - 1)
}

// resolved returns the value v stands for.
func (s *lookupScratch) resolved(v int32) int32 {
	r := v
	for s.alias[r] != 0 {
		r = s.alias[r]
	}
	for v != r { // shorten the chain for the next time
		v, s.alias[v] = s.alias[v], r
	}
	return r
}

// setAlias makes value v stand for value to, unless to stands for v.
func (s *lookupScratch) setAlias(v, to int32) {
	if to != 0 && s.resolved(to) != v {
		s.alias[v] = to
	}
}

// resized returns s with n zero elements, reusing its array if it can.
func resized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
