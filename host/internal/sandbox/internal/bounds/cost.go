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
// global or the memory's base back along the chain of blocks that have a
// single predecessor; a read of a local looks for its value back through
// the blocks before it, making a parameter for it at the joins where the
// answers differ, and a pass then checks every parameter against every
// predecessor's arguments, all of them, once per loop level, resolving the
// aliases the lookups left; every branch copies the values its target
// block takes; every call reloads every mutable global; and every block
// hands the bounds checks it has seen, one per address, to the blocks after
// it. For the module, every function's compilation starts by going through
// all its types, globals and imports, and every call of an import searches
// the imports.
//
// Instrument, which reads every instruction anyway, follows the blocks
// wazero's frontend makes of each function and counts the steps of each of
// those: exactly where it can, as for the lookups of locals, which it
// follows as the builder does (cost_lookup.go), or from above where they
// depend on what only the compiler knows (a block is no deeper in the
// dominator tree than one below any of its predecessors; a parameter is
// checked against every predecessor, in as many passes as loops nest).
// Each kind of step is weighted by its cost, about a nanosecond a unit,
// and a module whose steps add up to more than CompileWorkPerByte per byte
// of the module, plus CompileWorkBase, is refused. The code toolchains
// write stays far below that, and what a module can make wazero do stays
// linear in its size. cost_flow.go follows the blocks.

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
	costJoins                      // a lookup of a local, at a block that answers or a join
	costParams                     // an argument resolved for a parameter for a local
	costArgs                       // a value a branch passes, or a parameter for it
	costReloads                    // a global or the memory reloaded after a call
	costBounds                     // a known bounds check passed on to the next block
	costModule                     // a type, global or import gone through
	numCostKinds
)

var costWeights = [numCostKinds]uint64{
	costPreds: 1, costLabels: 3, costDominators: 12, costWalks: 4, costJoins: 32, costParams: 3,
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
	// vars is the state of each local.
	vars []cvar
	// edges are the branches between blocks, and events the reads and
	// writes of locals, in order: what cost_lookup.go follows at the end.
	edges  []cedge
	events []cevent
	lookup lookupScratch
	// arityEdges is how many values the branches pass.
	arityEdges uint64
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
	fn                        uint32
	fnSteps                   [numCostKinds]uint64
	joins, maxLoops, maxPreds uint32
	maxChain, maxDepth        uint32
	// lookupJoins is the most joins the lookups of one local pass;
	// lookupBlock the parameters for locals of the block whose parameters
	// are checked the most, and lookupPreds its predecessors.
	lookupJoins              uint64
	lookupBlock, lookupPreds uint32
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
	c.edges, c.events = c.edges[:0], c.events[:0]
	c.arityEdges = 0
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
	c.lookups()
	// Each argument the check pass reads is resolved with all the others
	// its branch passes. It passes as many times as loops nest, plus one
	// to find nothing more (a parameter found redundant makes another so
	// in a later pass only through a loop's edge back). The parameters for
	// values the branches pass are read to the last predecessor in every
	// pass, and the dominator tree is walked as often. A branch copies the
	// values it passes, at about 8 steps a value.
	loops := uint64(c.maxLoops) + 1
	var worst uint64
	var checks uint64
	for i := range c.blocks {
		b := &c.blocks[i]
		if n := uint64(b.params) * uint64(b.preds); n > worst {
			worst, c.lookupBlock, c.lookupPreds = n, b.params, b.preds
		}
		params := uint64(b.arity) + uint64(b.params)
		scans := addSat(b.redundantScans, mulSat(b.survivorScans, loops+1))
		checks = addSat(checks, mulSat(scans, params))
		n := mulSat(uint64(b.preds), params)
		c.fnSteps[costArgs] = addSat(c.fnSteps[costArgs], mulSat(n, uint64(b.arity)))
	}
	c.fnSteps[costParams] = addSat(c.fnSteps[costParams], checks)
	c.fnSteps[costArgs] = addSat(mulSat(c.fnSteps[costArgs], loops), 8*c.arityEdges)
	c.fnSteps[costDominators] = mulSat(c.fnSteps[costDominators], loops)
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
		return fmt.Sprintf("a local's lookups pass up to %d joins, and a block of %d predecessors takes %d parameters for locals, in %d levels of loops",
			c.lookupJoins, c.lookupPreds, c.lookupBlock, c.maxLoops)
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
	limit := compileLimit(size)
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

// over reports whether the steps counted so far, the function's included,
// are over the limit.
func (c *costModel) over() bool {
	var total uint64
	for k := range c.steps {
		total = addSat(total, mulSat(addSat(c.steps[k], c.fnSteps[k]), costWeights[k]))
	}
	return total > c.limit
}

// compileLimit is the work a module of size bytes may cost.
func compileLimit(size uint64) uint64 {
	return addSat(mulSat(size, CompileWorkPerByte), CompileWorkBase)
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
