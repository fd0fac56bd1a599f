package main

import (
	"flag"
	"log/slog"

	"github.com/wasmcp/wasmcp/internal/mcpadapter"
	"github.com/wasmcp/wasmcp/internal/seal"
)

// stateKeyFlags are serve's key file for the requestState of 2026-07-28
// clients' rounds, which replicas must share.
type stateKeyFlags struct {
	file   string
	sealer *seal.Sealer
}

func (k *stateKeyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&k.file, "state-key-file", "", "seal the requestState of 2026-07-28 clients' rounds with the keys of `FILE`:\n"+
		"base64 32-byte keys, one a line (head -c 32 /dev/urandom | base64); the first\n"+
		"seals, all open. Replicas must share it (default: a random key per process)")
}

// load makes the sealer: of the file's keys, or of a random key without
// -state-key-file.
func (k *stateKeyFlags) load(log *slog.Logger) (*seal.Sealer, error) {
	keys := [][]byte{seal.NewKey()}
	if k.file != "" {
		var err error
		if keys, err = k.read(log); err != nil {
			return nil, err
		}
	}
	var err error
	k.sealer, err = seal.New(mcpadapter.DefaultStateMaxAge, keys...)
	return k.sealer, err
}

// reload reads the key file again (on SIGHUP); a file that cannot be read
// leaves the keys in force.
func (k *stateKeyFlags) reload(log *slog.Logger) {
	if k.file == "" {
		return
	}
	keys, err := k.read(log)
	if err == nil {
		err = k.sealer.SetKeys(keys...)
	}
	if err != nil {
		log.Error("state keys not reloaded; the previous ones stay in force", "error", err)
		return
	}
	log.Info("state keys reloaded", "file", k.file, "keys", len(keys))
}

func (k *stateKeyFlags) read(log *slog.Logger) ([][]byte, error) {
	keys, others, err := seal.LoadKeys(k.file)
	if err != nil {
		return nil, err
	}
	if others {
		log.Warn("the state key file can be read by other users; chmod 600 it", "file", k.file)
	}
	return keys, nil
}
