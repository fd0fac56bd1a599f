package bounds

// How wazero's frontend (v1.12) turns a function's code into blocks, for
// the cost model of cost.go: which blocks it makes, which branches join
// them, what it looks up or records in each.

// cblock is a basic block of wazero's SSA for one function.
type cblock struct {
	// depth bounds the block's depth in the dominator tree, chain is the
	// number of blocks with a single predecessor before it, preds counts
	// its predecessors.
	depth, chain, preds uint32
	// bounds is how many bounds checks the block knows of at its end,
	// boundsIn how many it inherits (at most those of any predecessor), and
	// boundsSum how many its predecessors pass on to it in all.
	bounds, boundsIn uint32
	boundsSum        uint64
	// arity is how many values a branch to the block passes.
	arity uint32
	// lookups counts the locals looked up through the block, and params
	// the parameters it takes for them, once cost_lookup.go has followed
	// them; the check pass reads redundantScans arguments of the
	// parameters it removes at once, and survivorScans of the others in
	// every pass.
	lookups, params               uint32
	redundantScans, survivorScans uint64
	// header marks a loop header, whose depth and chain are those it was
	// entered with: the edges that come back to it later change neither.
	// It is sealed, its predecessors all known, from event sealAt on.
	header bool
	sealAt uint32
}

// cedge is a branch from block from to block to.
type cedge struct{ from, to int32 }

// cevent is a read or a write of a local, in the block it happens in.
type cevent struct {
	local uint32
	block int32
	set   bool
}

// cframe is a block, loop or if of the function, or the function itself.
type cframe struct {
	op byte // opBlock, opLoop, opIf, or opEnd for the function
	// target is the block a branch to the frame goes to: the header of a
	// loop, else the block that follows the frame; arity is how many
	// values a branch passes to it.
	target, follow int32
	arity          uint32
	// els is an if's else block, and hasElse whether it has an else.
	els     int32
	hasElse bool
	loops   uint32 // how many loops the frame is inside of, itself included
}

// cvar is the state of one local of the function followed.
type cvar struct {
	gen uint32 // the function's, when the rest is
	// epoch is costModel.epoch when the local's value was last used as an
	// address, or 0 if it was set since.
	epoch uint64
}

// newBlock adds a block with no predecessor yet.
func (c *costModel) newBlock() int32 {
	c.blocks = append(c.blocks, cblock{})
	return int32(len(c.blocks) - 1)
}

// edge adds a branch from block a to block b passing arity values.
func (c *costModel) edge(a, b int32, arity uint32) {
	from := c.blocks[a]
	if a == c.cur {
		from.bounds = c.bounds
	}
	c.link(from, a, b, arity)
}

// link adds a branch from block from to block b passing arity values; a is
// the block the lookups of locals go to from b along it, ^a if they go
// through a trampoline first.
func (c *costModel) link(from cblock, a, b int32, arity uint32) {
	to := &c.blocks[b]
	c.fnSteps[costPreds] += uint64(to.preds) // wazero's addPred compares with each
	c.fnSteps[costDominators] += uint64(from.depth)
	c.arityEdges += uint64(arity)
	c.edges = append(c.edges, cedge{a, b})
	to.arity = arity
	to.preds++
	c.maxPreds = max(c.maxPreds, to.preds)
	to.boundsSum += uint64(from.bounds)
	if to.preds == 1 {
		to.boundsIn = from.bounds
	} else {
		to.boundsIn = min(to.boundsIn, from.bounds)
	}
	if to.header {
		return // a loop's edge back, or the return block's
	}
	if to.preds == 1 {
		to.depth, to.chain = from.depth+1, from.chain+1
		return
	}
	to.depth = min(to.depth, from.depth+1)
	to.chain = 0
}

// enter makes b the block instructions go to, or marks the code
// unreachable if nothing branches to b, as wazero's frontend does.
func (c *costModel) enter(b int32) {
	// wazero hands the bounds checks the block leaves with to the next.
	c.blocks[c.cur].bounds = c.bounds
	blk := c.blocks[b]
	c.fnSteps[costBounds] += uint64(c.bounds) + blk.boundsSum
	c.cur, c.bounds, c.chain = b, blk.boundsIn, uint64(blk.chain)
	c.unreachable = blk.preds == 0
	if c.unreachable {
		return
	}
	if blk.preds > 1 || blk.header {
		c.joins++
		c.epoch++
	}
	// The block's depth and chain are final now: count its own steps up
	// the dominator tree, in the loop detection and nesting passes.
	c.fnSteps[costDominators] += 2 * uint64(blk.depth)
	c.maxDepth = max(c.maxDepth, blk.depth)
	c.maxChain = max(c.maxChain, blk.chain)
}

// target is the frame a branch to label l goes to, or nil for a label that
// does not exist, which wazero refuses.
func (c *costModel) target(l uint32) *cframe {
	if uint64(l) >= uint64(len(c.frames)) {
		return nil
	}
	c.fnSteps[costLabels] += uint64(l)
	return &c.frames[len(c.frames)-1-int(l)]
}

// branch adds a branch from block from to label l.
func (c *costModel) branch(from int32, l uint32) {
	if f := c.target(l); f != nil {
		c.edge(from, f.target, f.arity)
	}
}

// Classes of instructions, by what the cost model does with them.
const (
	classPlain    = iota // nothing but the walk any instruction may make
	classPush            // pushes a value and pops none
	classLocalGet        // pushes a local's value
	classLocalSet        // local.set and local.tee
	classLoad
	classStore
	classCall
	classMisc
	classSIMD
	classControl
)

var costClasses = func() (t [256]uint8) {
	for _, op := range []byte{opGlobalGet, opI32Const, opI64Const, opF32Const, opF64Const} {
		t[op] = classPush
	}
	t[opLocalGet] = classLocalGet
	t[opLocalSet], t[opLocalTee] = classLocalSet, classLocalSet
	for op := opLoadFirst; op <= opStoreLast; op++ {
		t[op] = classStore
		if op <= opLoadLast {
			t[op] = classLoad
		}
	}
	t[opCall], t[opCallIndir] = classCall, classCall
	t[opPrefixMisc] = classMisc
	t[opPrefixSIMD] = classSIMD
	for _, op := range []byte{opUnreachable, opBlock, opLoop, opIf, opElse, opEnd, opBr, opBrIf, opBrTable, opReturn} {
		t[op] = classControl
	}
	return t
}()

// instruction follows one instruction, op with its immediates imm, as
// wazero's frontend lowers it.
func (c *costModel) instruction(op byte, imm []byte) {
	class := costClasses[op]
	// What an address may come from: the local read by the instruction
	// before, or by the one before it if that only pushed a value.
	prevLocal, prev2Local := c.prevLocal, c.prev2Local
	c.prevLocal, c.prev2Local = -1, -1
	if class == classPush || class == classLocalGet {
		c.prev2Local = prevLocal
	}
	if c.unreachable {
		// Skipped by wazero but for the ends of the blocks it skips.
		if class == classControl {
			c.unreachableControl(op, imm)
		}
		return
	}
	// Any instruction may look for a local, a global or the memory's base.
	c.fnSteps[costWalks] += c.chain
	switch class {
	case classControl:
		c.control(op, imm)
	case classCall:
		c.fnSteps[costReloads] += c.reloads
		r := reader{b: imm, end: len(imm)}
		if f, _ := r.u32(); op == opCall && f < c.importedFuncs {
			c.importCalls++
		}
	case classLocalGet:
		r := reader{b: imm, end: len(imm)}
		if i, _ := r.u32(); uint64(i) < c.variables {
			c.events = append(c.events, cevent{local: i, block: c.cur})
			c.prevLocal = int64(i)
		}
	case classLocalSet:
		r := reader{b: imm, end: len(imm)}
		if i, _ := r.u32(); uint64(i) < c.variables {
			c.events = append(c.events, cevent{local: i, block: c.cur, set: true})
			c.local(i).epoch = 0
		}
	case classMisc:
		r := reader{b: imm, end: len(imm)}
		if sub, _ := r.u32(); sub == miscMemoryFill || sub == miscTableFill {
			c.fillLoop()
		}
	case classLoad:
		c.address(prevLocal)
	case classStore:
		c.address(prev2Local)
	case classSIMD:
		r := reader{b: imm, end: len(imm)}
		if sub, _ := r.u32(); sub <= 0x0b || sub >= 0x54 && sub <= 0x5d {
			c.address(-1)
		}
	}
}

// unreachableControl follows a control instruction in code wazero skips,
// counting the blocks skipped, up to the end or else that ends it.
func (c *costModel) unreachableControl(op byte, imm []byte) {
	switch op {
	case opBlock, opLoop, opIf:
		c.unreachableDepth++
	case opElse, opEnd:
		if c.unreachableDepth == 0 {
			c.control(op, imm)
		} else if op == opEnd {
			c.unreachableDepth--
		}
	}
}

// control follows a control instruction.
func (c *costModel) control(op byte, imm []byte) {
	r := reader{b: imm, end: len(imm)}
	switch op {
	case opBlock, opLoop, opIf:
		c.open(op, c.blockArity(imm))
	case opElse:
		f := &c.frames[len(c.frames)-1]
		if !c.unreachable {
			c.edge(c.cur, f.follow, f.arity)
		}
		f.hasElse = true
		c.enter(f.els)
	case opEnd:
		c.close()
	case opBr:
		l, _ := r.u32()
		c.branch(c.cur, l)
		c.unreachable = true
	case opBrIf:
		l, _ := r.u32()
		c.branch(c.cur, l)
		next := c.newBlock()
		c.edge(c.cur, next, 0)
		c.enter(next)
	case opBrTable:
		c.brTable(r)
	case opReturn:
		c.branch(c.cur, uint32(len(c.frames)-1))
		c.unreachable = true
	case opUnreachable:
		c.unreachable = true
	}
}

// blockArity is how many values a branch to a block, loop or if of block
// type imm passes: its results, or a loop's parameters.
func (c *costModel) blockArity(imm []byte) arity {
	if len(imm) == 0 || imm[0] == 0x40 {
		return arity{}
	}
	r := reader{b: imm, end: len(imm)}
	if err := valueType(&r); err == nil {
		return arity{results: 1}
	}
	r.pos = 0 // a type index
	if i, _ := r.u32(); uint64(i) < uint64(len(c.types)) {
		return c.types[i]
	}
	return arity{}
}

// open follows a block, loop or if of arity a.
func (c *costModel) open(op byte, a arity) {
	outer := c.frames[len(c.frames)-1]
	f := cframe{op: op, follow: c.newBlock(), arity: a.results, loops: outer.loops}
	f.target = f.follow
	switch op {
	case opLoop:
		f.loops++
		c.maxLoops = max(c.maxLoops, f.loops)
		f.target, f.arity = c.newBlock(), a.params
		header := &c.blocks[f.target]
		header.header, header.sealAt = true, 1<<32-1
		header.depth, header.chain = c.blocks[c.cur].depth+1, c.blocks[c.cur].chain+1
		c.edge(c.cur, f.target, a.params)
		c.frames = append(c.frames, f)
		c.enter(f.target)
	case opIf:
		then := c.newBlock()
		f.els = c.newBlock()
		c.edge(c.cur, f.els, 0)
		c.edge(c.cur, then, 0)
		c.frames = append(c.frames, f)
		c.enter(then)
	default:
		c.frames = append(c.frames, f)
	}
}

// close follows the end of the innermost frame.
func (c *costModel) close() {
	f := c.frames[len(c.frames)-1]
	c.frames = c.frames[:len(c.frames)-1]
	if !c.unreachable {
		c.edge(c.cur, f.follow, f.arity)
	}
	if f.op == opIf && !f.hasElse {
		c.edge(f.els, f.follow, f.arity)
	}
	if f.op == opLoop {
		c.blocks[f.target].sealAt = uint32(len(c.events))
	}
	if f.op != opEnd {
		c.enter(f.follow)
	}
}

// brTable follows a br_table, whose labels r holds. It branches through a
// block of its own for each label, unless it has only a default: a
// trampoline, of a single predecessor and never entered, which lookups
// pass straight through.
func (c *costModel) brTable(r reader) {
	n, _ := r.u32()
	from := c.blocks[c.cur]
	from.bounds = c.bounds
	for i := uint32(0); i <= n; i++ {
		l, _ := r.u32()
		if n == 0 {
			c.branch(c.cur, l)
			break
		}
		if f := c.target(l); f != nil {
			c.fnSteps[costDominators] += uint64(from.depth)
			c.maxPreds = max(c.maxPreds, 1)
			trampoline := cblock{depth: from.depth + 1, chain: from.chain + 1}
			c.link(trampoline, ^c.cur, f.target, f.arity)
			c.fnSteps[costDominators] += 2 * uint64(trampoline.depth)
		}
	}
	c.unreachable = true
}

// local returns the state of local i of the function.
func (c *costModel) local(i uint32) *cvar {
	if int(i) >= len(c.vars) {
		c.vars = append(c.vars, make([]cvar, int(i)+1-len(c.vars))...)
	}
	v := &c.vars[i]
	if v.gen != c.fn+1 {
		*v = cvar{gen: c.fn + 1}
	}
	return v
}

// fillLoop follows a memory.fill or a table.fill, which wazero lowers to
// a loop of its own: a block before it, its header, which branches back
// to itself, and the block after it, which the code before also branches
// to when there is nothing to fill.
func (c *costModel) fillLoop() {
	before, header, after := c.newBlock(), c.newBlock(), c.newBlock()
	c.edge(c.cur, after, 0)
	c.edge(c.cur, before, 0)
	c.enter(before)
	h := &c.blocks[header]
	h.header, h.sealAt = true, uint32(len(c.events))
	h.depth, h.chain = c.blocks[before].depth+1, c.blocks[before].chain+1
	c.maxLoops = max(c.maxLoops, c.frames[len(c.frames)-1].loops+1)
	c.edge(before, header, 0)
	c.enter(header)
	c.edge(header, header, 0)
	c.edge(header, after, 0)
	c.enter(after)
}

// address follows a memory access whose address is the value of local i,
// or, for i < 0, another value: wazero records a bounds check for each
// address it has not seen in the block and those it inherits.
func (c *costModel) address(i int64) {
	if i >= 0 {
		v := c.local(uint32(i))
		if v.epoch == c.epoch {
			return
		}
		v.epoch = c.epoch
	}
	c.bounds++
}
