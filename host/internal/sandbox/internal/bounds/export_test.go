package bounds

// CompileWork returns the work Instrument estimates compiling wasm costs,
// and the most it lets a module of its size cost.
func CompileWork(wasm []byte) (work, limit uint64, err error) {
	in, err := scanModule(wasm)
	if err != nil {
		return 0, 0, err
	}
	_, err = in.rewrite()
	return in.cost.total, in.cost.limit, err
}
