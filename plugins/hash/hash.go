package main

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/adler32"
	"hash/crc32"
	"hash/fnv"
	"strings"
)

// algorithms maps algorithm names to constructors. The keyed ones (usable
// with HMAC) are the cryptographic hashes.
var algorithms = map[string]struct {
	new   func() hash.Hash
	keyed bool
}{
	"md5":        {md5.New, true},
	"sha1":       {sha1.New, true},
	"sha224":     {sha256.New224, true},
	"sha256":     {sha256.New, true},
	"sha384":     {sha512.New384, true},
	"sha512":     {sha512.New, true},
	"sha512/256": {sha512.New512_256, true},
	"sha3-256":   {func() hash.Hash { return sha3.New256() }, true},
	"sha3-512":   {func() hash.Hash { return sha3.New512() }, true},
	"crc32":      {func() hash.Hash { return crc32.NewIEEE() }, false},
	"crc32c":     {func() hash.Hash { return crc32.New(crc32.MakeTable(crc32.Castagnoli)) }, false},
	"adler32":    {func() hash.Hash { return adler32.New() }, false},
	"fnv1a-32":   {func() hash.Hash { return fnv.New32a() }, false},
	"fnv1a-64":   {func() hash.Hash { return fnv.New64a() }, false},
}

// HashArgs are the arguments of hash.
type HashArgs struct {
	Data
	Algorithm string `json:"algorithm,omitempty" description:"The algorithm. md5 and sha1 are broken for security uses; crc32, crc32c, adler32 and the FNV hashes are checksums, not cryptographic." jsonschema:"enum=sha256|sha224|sha384|sha512|sha512/256|sha3-256|sha3-512|sha1|md5|crc32|crc32c|adler32|fnv1a-32|fnv1a-64,default=sha256"`
	Encoding  string `json:"encoding,omitempty" description:"How to write the digest." jsonschema:"enum=hex|base64,default=hex"`
}

// HashOutput is the result of hash.
type HashOutput struct {
	Algorithm string `json:"algorithm"`
	Digest    string `json:"digest" description:"The digest, in the requested encoding (hex is lower case)."`
	Bytes     int    `json:"bytes" description:"Length of the input in bytes."`
}

// HMACArgs are the arguments of hmac.
type HMACArgs struct {
	Data
	Key       *string `json:"key,omitempty" description:"The secret key as text. Give key or key_base64."`
	KeyBase64 *string `json:"key_base64,omitempty" description:"The secret key as base64. Give key or key_base64."`
	Algorithm string  `json:"algorithm,omitempty" description:"The hash function." jsonschema:"enum=sha256|sha224|sha384|sha512|sha512/256|sha3-256|sha3-512|sha1|md5,default=sha256"`
	Encoding  string  `json:"encoding,omitempty" description:"How to write the MAC." jsonschema:"enum=hex|base64,default=hex"`
	Expected  string  `json:"expected,omitempty" description:"A MAC to verify, in hex or base64 (a 'sha256=' style prefix is ignored); the result then says whether it matches."`
}

// HMACOutput is the result of hmac.
type HMACOutput struct {
	Algorithm string `json:"algorithm"`
	MAC       string `json:"mac" description:"The MAC, in the requested encoding."`
	Matches   *bool  `json:"matches,omitempty" description:"With expected: whether it equals the MAC."`
}

func hashTool(in HashArgs) (HashOutput, error) {
	data, err := in.bytes()
	if err != nil {
		return HashOutput{}, err
	}
	name := defaulted(in.Algorithm, "sha256")
	alg, ok := algorithms[name]
	if !ok {
		return HashOutput{}, fmt.Errorf("unknown algorithm %q", name)
	}
	h := alg.new()
	h.Write(data)
	return HashOutput{Algorithm: name, Digest: encodeDigest(h.Sum(nil), in.Encoding), Bytes: len(data)}, nil
}

func hmacTool(in HMACArgs) (HMACOutput, error) {
	msg, err := in.bytes()
	if err != nil {
		return HMACOutput{}, err
	}
	key, err := oneOf("key", in.Key, "key_base64", in.KeyBase64)
	if err != nil {
		return HMACOutput{}, err
	}
	name := defaulted(in.Algorithm, "sha256")
	alg, ok := algorithms[name]
	if !ok || !alg.keyed {
		return HMACOutput{}, fmt.Errorf("algorithm %q cannot be used for HMAC", name)
	}
	m := hmac.New(alg.new, key)
	m.Write(msg)
	sum := m.Sum(nil)
	out := HMACOutput{Algorithm: name, MAC: encodeDigest(sum, in.Encoding)}
	if in.Expected != "" {
		expected, err := parseMAC(in.Expected)
		if err != nil {
			return HMACOutput{}, err
		}
		matches := hmac.Equal(sum, expected)
		out.Matches = &matches
	}
	return out, nil
}

// parseMAC reads an expected MAC in hex or base64, dropping an algorithm
// prefix such as "sha256=" that webhook signature headers carry.
func parseMAC(s string) ([]byte, error) {
	if prefix, rest, ok := strings.Cut(s, "="); ok {
		if _, known := algorithms[strings.ToLower(prefix)]; known {
			s = rest
		}
	}
	if b, err := hex.DecodeString(s); err == nil {
		return b, nil
	}
	b, err := decodeBase64(s, false)
	if err != nil {
		return nil, fmt.Errorf("expected: neither hex nor base64")
	}
	return b, nil
}

func encodeDigest(sum []byte, encoding string) string {
	if encoding == "base64" {
		return base64.StdEncoding.EncodeToString(sum)
	}
	return hex.EncodeToString(sum)
}

func defaulted(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
