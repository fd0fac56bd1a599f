package bounds

import (
	"errors"
	"fmt"
	"math/bits"
)

// wazero's compiler (v1.12) takes time that grows faster than the code it
// compiles in many of its passes, so that a small module can occupy a core
// for minutes and its memory for gigabytes: a br_table of 200,000 targets
// in 200 KB takes seconds. For each function, its SSA builder adds each
// predecessor of a block after comparing it with every one already there;
// its dominator, loop and loop-nesting passes walk up the dominator tree
// from every block and edge; every instruction may look for the value of a
// local, a global or the memory's base back along the chain of blocks that
// have a single predecessor, and a local's reaching a join makes a
// parameter for it there, whose redundancy a pass then checks, for every
// parameter, against all the others, once per loop level; every branch
// copies the values its target block takes; every call reloads every
// mutable global; and every block hands the bounds checks it has seen, one
// per address, to the blocks after it. For the module, every function's
// compilation starts by going through all its types, globals and imports,
// and every call of an import searches the imports.
//
// Instrument, which reads every instruction anyway, follows the blocks
// wazero's frontend makes of each function and counts the steps of each of
// those: exactly, or from above where they depend on what only the compiler
// knows (a block is no deeper in the dominator tree than one below any of
// its predecessors). Each kind of step is weighted by its cost, about a
// nanosecond a unit, and a module whose steps add up to more than
// CompileWorkPerByte per byte of the module, plus CompileWorkBase, is
// refused. The code toolchains write stays far below that, and what a
// module can make wazero do stays linear in its size. cost_flow.go follows
// the blocks.

// Limits of the work Instrument lets a module cost wazero's compiler, in
// weighted steps (about nanoseconds).
const (
	// CompileWorkPerByte is the work a module may cost per byte.
	CompileWorkPerByte = 8192
	// CompileWorkBase is the work any module may cost.
	CompileWorkBase = 1 << 26
)

// ErrCompileCost is the error of a module refused for the work its
// compilation would take.
var ErrCompileCost = errors.New("too costly to compile")

// costKind is one kind of step.
type costKind int

const (
	costPreds      costKind = iota // a predecessor compared with another
	costLabels                     // a block a branch leaves
	costDominators                 // a step up the dominator tree
	costWalks                      // a step back along a chain of blocks
	costJoins                      // a local looked for through a predecessor of a join
	costParams                     // a parameter for a local checked against another
	costArgs                       // a value a branch passes, or a parameter for it
	costReloads                    // a global or the memory reloaded after a call
	costBounds                     // a known bounds check passed on to the next block
	costModule                     // a type, global or import gone through
	numCostKinds
)

var costWeights = [numCostKinds]uint64{
	costPreds: 1, costLabels: 3, costDominators: 12, costWalks: 4, costJoins: 256, costParams: 1,
	costArgs: 1, costReloads: 384, costBounds: 256, costModule: 8,
}

// costModel counts the steps of one module.
type costModel struct {
	steps [numCostKinds]uint64
	// total is the weighted sum of the steps, and limit what it may be,
	// once check has computed them.
	total, limit uint64
	// worst is, for each kind, the function with the most steps of it, as
	// it was at its end.
	worst [numCostKinds]costShape
	// Of the module: types gives the arity of block types, and a call of
	// a function below importedFuncs is a call of an import, after which
	// wazero reloads reloads values.
	types         []arity
	importedFuncs uint32
	reloads       uint64
	importCalls   uint64

	// The function followed.
	costShape
	blocks           []cblock
	frames           []cframe
	cur              int32
	chain            uint64 // the current block's
	unreachable      bool
	unreachableDepth uint32
	variables        uint64
	// joined is how many predecessors the joins entered so far have, in
	// all: a read of a local visits each predecessor of each join since it
	// was last read.
	joined uint64
	// vars is the state of each local, and read lists the locals the
	// function reads.
	vars []cvar
	read []uint32
	// outerLoop is the outermost loop open, an index of loopEnds, or -1;
	// loopEnds is joined when each outermost loop ended.
	outerLoop int32
	loopEnds  []uint64
	// arityEdges is how many values the branches pass, arityEdges2 the sum
	// of their squares.
	arityEdges, arityEdges2 uint64
	// bounds is how many bounds checks the current block knows of; epoch
	// changes at every join, where locals may take new values.
	bounds uint32
	epoch  uint64
	// prevLocal is the local the previous instruction read, or -1, and
	// prev2Local that of the one before if the previous one only pushed a
	// value: what an address may come from.
	prevLocal, prev2Local int64
}

// costShape is what the error names of a function: its steps, and the
// structures that make them.
type costShape struct {
	fn                            uint32
	fnSteps                       [numCostKinds]uint64
	joins, maxLoops, maxPreds     uint32
	maxChain, maxDepth, readCount uint32
}

// begin starts following function fn, which has that many parameters and
// locals and returns results values.
func (c *costModel) begin(fn uint32, variables uint64, results uint32) {
	c.costShape = costShape{fn: fn}
	c.blocks = append(c.blocks[:0], cblock{}, cblock{header: true}) // the entry and the return block
	c.frames = append(c.frames[:0], cframe{op: opEnd, target: 1, follow: 1, arity: results})
	c.cur, c.chain = 0, 0
	c.unreachable, c.unreachableDepth = false, 0
	c.variables = variables
	c.joined = 0
	c.read = c.read[:0]
	c.outerLoop = -1
	c.loopEnds = c.loopEnds[:0]
	c.arityEdges, c.arityEdges2 = 0, 0
	c.bounds = 0
	c.epoch++
	c.prevLocal, c.prev2Local = -1, -1
}

// checkpoint follows the code of a checkpoint (fuel_code.go): an if whose
// body calls the yield function, an import.
func (c *costModel) checkpoint() {
	c.instruction(opGlobalGet, nil)
	c.instruction(opIf, []byte{0x40})
	c.fnSteps[costWalks] += c.chain
	c.fnSteps[costReloads] += c.reloads
	c.importCalls++
	c.instruction(opEnd, nil)
}

// end ends the function and adds its steps to the module's.
func (c *costModel) end() {
	for _, i := range c.read {
		if v := c.vars[i]; v.loop >= 0 && c.loopEnds[v.loop] > v.joined {
			c.fnSteps[costJoins] += c.loopEnds[v.loop] - v.joined
			c.vars[i].joined = c.loopEnds[v.loop]
		}
	}
	// The parameters of a block are checked against each other, for each
	// predecessor, in about as many passes as there are loop levels; and
	// the dominator tree is walked as often. A branch copies the values it
	// passes, at about 8 steps a value.
	loops := uint64(c.maxLoops) + 1
	read := uint64(len(c.read))
	c.fnSteps[costParams] = mulSat(mulSat(c.fnSteps[costJoins], read), loops)
	args := addSat(c.arityEdges2, mulSat(c.arityEdges, read))
	c.fnSteps[costArgs] = addSat(mulSat(args, loops), 8*c.arityEdges)
	c.fnSteps[costDominators] = mulSat(c.fnSteps[costDominators], loops)
	c.readCount = uint32(len(c.read))
	for k, n := range c.fnSteps {
		c.steps[k] = addSat(c.steps[k], n)
		if n > c.worst[k].fnSteps[k] {
			c.worst[k] = c.costShape
		}
	}
}

// describe says what in the function makes steps of kind k; reloads is
// how many values a call reloads.
func (c costShape) describe(k costKind, reloads uint64) string {
	switch k {
	case costPreds:
		return fmt.Sprintf("up to %d branches lead to one block", c.maxPreds)
	case costLabels:
		return "branches leave many blocks at once"
	case costDominators:
		return fmt.Sprintf("blocks depend on each other up to %d deep, in %d levels of loops", c.maxDepth, c.maxLoops)
	case costWalks:
		return fmt.Sprintf("up to %d branches follow each other without a join", c.maxChain)
	case costJoins, costParams:
		return fmt.Sprintf("%d locals read meet at %d joins, in %d levels of loops", c.readCount, c.joins, c.maxLoops)
	case costArgs:
		return "branches pass many values to blocks"
	case costReloads:
		return fmt.Sprintf("every call reloads %d globals", reloads)
	case costBounds:
		return "blocks pass on the bounds checks of many addresses"
	}
	return ""
}

// check returns an error if the steps of the module, whose size is size
// and which has these many types, globals, imports and functions, exceed
// the limit.
func (c *costModel) check(size, types, globals, imports, funcs uint64) error {
	c.steps[costModule] = addSat(mulSat(types+globals+imports, funcs), mulSat(imports, c.importCalls))
	var total, largest uint64
	worst := costKind(0)
	for k, n := range c.steps {
		w := mulSat(n, costWeights[k])
		total = addSat(total, w)
		if w > largest {
			largest, worst = w, costKind(k)
		}
	}
	limit := addSat(mulSat(size, CompileWorkPerByte), CompileWorkBase)
	c.total, c.limit = total, limit
	if total <= limit {
		return nil
	}
	where := fmt.Sprintf("%d types, globals and imports for each of %d functions, and %d calls of imports",
		types+globals+imports, funcs, c.importCalls)
	if worst != costModule {
		w := c.worst[worst]
		where = fmt.Sprintf("in function %d, where %s", uint64(c.importedFuncs)+uint64(w.fn), w.describe(worst, c.reloads))
	}
	return fmt.Errorf("%w: an estimated %d steps of the compiler, over the limit of %d (%d a byte plus %d); most of them %s",
		ErrCompileCost, total, limit, CompileWorkPerByte, CompileWorkBase, where)
}

func mulSat(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return 1<<64 - 1
	}
	return lo
}

func addSat(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return 1<<64 - 1
}
