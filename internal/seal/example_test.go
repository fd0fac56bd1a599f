package seal_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/wasmcp/wasmcp/internal/seal"
)

// A server seals the state of a call for the client to hand back, binding it
// to the call it belongs to; a replica that holds the same key opens it.
func Example() {
	key := seal.NewKey() // in production, read from a key file all replicas share
	a, _ := seal.New(time.Hour, key)
	b, _ := seal.New(time.Hour, key)

	state := a.Seal([]byte(`{"answers":["blue"]}`), []byte("tool=favorite-color"))

	payload, err := b.Open(state, []byte("tool=favorite-color"))
	fmt.Printf("%s %v\n", payload, err)

	_, err = b.Open(state, []byte("tool=delete-everything"))
	fmt.Println(errors.Is(err, seal.ErrForged))

	other, _ := seal.New(time.Hour, seal.NewKey())
	_, err = other.Open(state, []byte("tool=favorite-color"))
	fmt.Println(errors.Is(err, seal.ErrUnknownKey))
	// Output:
	// {"answers":["blue"]} <nil>
	// true
	// true
}
