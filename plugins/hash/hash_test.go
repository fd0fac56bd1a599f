package main

import (
	"cmp"
	"fmt"
	"strings"
	"testing"

	"github.com/wasmcp/wasmcp/sdk-guest/go/wasmcptest"
)

func TestHashVectors(t *testing.T) {
	tests := []struct{ alg, input, want string }{
		{"", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"sha256", "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"md5", "abc", "900150983cd24fb0d6963f7d28e17f72"},
		{"sha1", "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
		{"sha224", "abc", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"},
		{"sha384", "abc", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"},
		{"sha512", "abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
		{"sha512/256", "abc", "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"},
		{"sha3-256", "abc", "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"},
		{"sha3-512", "abc", "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0"},
		{"crc32", "123456789", "cbf43926"},
		{"crc32c", "123456789", "e3069283"},
		{"adler32", "Wikipedia", "11e60398"},
		{"fnv1a-32", "", "811c9dc5"},
		{"fnv1a-64", "", "cbf29ce484222325"},
	}
	for _, tt := range tests {
		t.Run(cmp.Or(strings.ReplaceAll(tt.alg, "/", "_"), "default"), func(t *testing.T) {
			args := map[string]string{"text": tt.input}
			if tt.alg != "" {
				args["algorithm"] = tt.alg
			}
			var out HashOutput
			wasmcptest.Call(t, "hash", args).Decode(t, &out)
			if out.Digest != tt.want || out.Bytes != len(tt.input) || out.Algorithm != defaulted(tt.alg, "sha256") {
				t.Errorf("%s(%q): %+v, want %s", tt.alg, tt.input, out, tt.want)
			}
		})
	}
}

func TestHashInputsAndEncoding(t *testing.T) {
	var out HashOutput
	// "abc" as base64 in both alphabets, padded or not, hashed to base64.
	for i, b64 := range []string{"YWJj", "YWJj\n", "YQ==", "YQ"} {
		t.Run(fmt.Sprintf("base64-%d", i), func(t *testing.T) {
			wasmcptest.Call(t, "hash", map[string]string{"base64": b64, "encoding": "base64", "algorithm": "md5"}).Decode(t, &out)
			want := map[string]string{"YWJj": "kAFQmDzST7DWlj99KOF/cg==", "YQ==": "DMF1ucDxtqgxw5niaXcmYQ==", "YQ": "DMF1ucDxtqgxw5niaXcmYQ=="}[strings.TrimSpace(b64)]
			if out.Digest != want {
				t.Errorf("base64 %q: %+v, want %s", b64, out, want)
			}
		})
	}
	wasmcptest.Call(t, "hash", `{"text":""}`).Decode(t, &out)
	if out.Digest != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" || out.Bytes != 0 {
		t.Errorf("empty text: %+v", out)
	}
	for args, want := range map[string]string{
		`{}`:                              "give text or base64",
		`{"text":"a","base64":"YQ=="}`:    "give text or base64, not both",
		`{"base64":"!!"}`:                 "base64: not valid base64",
		`{"text":"a","algorithm":"sha0"}`: "invalid arguments",
	} {
		t.Run(want, func(t *testing.T) {
			if res := wasmcptest.Call(t, "hash", args); !res.IsError || !strings.Contains(res.Text(), want) {
				t.Errorf("%s: %q, want error %q", args, res.Text(), want)
			}
		})
	}
}

func TestHMAC(t *testing.T) {
	const sha256Jefe = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" // RFC 4231, test case 2
	var out HMACOutput
	wasmcptest.Call(t, "hmac", `{"key":"Jefe","text":"what do ya want for nothing?"}`).Decode(t, &out)
	if out.MAC != sha256Jefe || out.Matches != nil {
		t.Errorf("HMAC-SHA256: %+v", out)
	}
	wasmcptest.Call(t, "hmac", `{"key_base64":"SmVmZQ==","text":"what do ya want for nothing?","algorithm":"md5"}`).Decode(t, &out)
	if out.MAC != "750c783e6ab0b503eaa86e310a5db738" { // RFC 2104
		t.Errorf("HMAC-MD5: %+v", out)
	}
	for _, tc := range []struct {
		name, expected string
		want           bool
	}{
		{"hex", sha256Jefe, true},
		{"prefixed hex", "sha256=" + sha256Jefe, true},
		{"upper-case hex", strings.ToUpper(sha256Jefe), true},
		{"base64", "W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=", true},
		{"prefixed base64", "sha256=W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=", true},
		{"other", sha256Jefe[:62] + "00", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wasmcptest.Call(t, "hmac", map[string]string{"key": "Jefe", "text": "what do ya want for nothing?", "expected": tc.expected}).Decode(t, &out)
			if out.Matches == nil || *out.Matches != tc.want {
				t.Errorf("expected %q: %+v, want matches %v", tc.expected, out, tc.want)
			}
		})
	}
	for args, want := range map[string]string{
		`{"text":"m"}`: "give key or key_base64",
		`{"key":"k","key_base64":"aw==","text":"m"}`: "not both",
		`{"key":"k","text":"m","algorithm":"crc32"}`: "invalid arguments",
		`{"key":"k","text":"m","expected":"zz!"}`:    "expected: neither hex nor base64",
	} {
		t.Run(want, func(t *testing.T) {
			if res := wasmcptest.Call(t, "hmac", args); !res.IsError || !strings.Contains(res.Text(), want) {
				t.Errorf("%s: %q, want error %q", args, res.Text(), want)
			}
		})
	}
}

func TestEncodeDecode(t *testing.T) {
	tests := []struct{ encoding, text, encoded string }{
		{"base64", "hi?>", "aGk/Pg=="},
		{"base64url", "hi?>", "aGk_Pg=="},
		{"base64-raw", "hi?>", "aGk/Pg"},
		{"base64url-raw", "hi?>", "aGk_Pg"},
		{"hex", "hi?", "68693f"},
		{"url", "a b&c=é", "a+b%26c%3D%C3%A9"},
		{"url-path", "a b/c", "a%20b%2Fc"},
	}
	for _, tt := range tests {
		t.Run(tt.encoding, func(t *testing.T) {
			var enc EncodeOutput
			wasmcptest.Call(t, "encode", map[string]string{"text": tt.text, "encoding": tt.encoding}).Decode(t, &enc)
			if enc.Encoded != tt.encoded || enc.Bytes != len(tt.text) {
				t.Errorf("encode %s %q: %+v, want %q", tt.encoding, tt.text, enc, tt.encoded)
			}
			var dec DecodeOutput
			wasmcptest.Call(t, "decode", map[string]string{"data": tt.encoded, "encoding": tt.encoding}).Decode(t, &dec)
			if dec.Text != tt.text || !dec.UTF8 || dec.Base64 != "" || dec.Bytes != len(tt.text) {
				t.Errorf("decode %s %q: %+v, want %q", tt.encoding, tt.encoded, dec, tt.text)
			}
		})
	}
	// Binary data round trip: base64 in, hex out, and back as base64.
	var enc EncodeOutput
	wasmcptest.Call(t, "encode", `{"base64":"/wCA","encoding":"hex"}`).Decode(t, &enc)
	if enc.Encoded != "ff0080" {
		t.Errorf("binary encode: %+v", enc)
	}
	var dec DecodeOutput
	wasmcptest.Call(t, "decode", `{"data":"ff0080","encoding":"hex"}`).Decode(t, &dec)
	if dec.UTF8 || dec.Base64 != "/wCA" || dec.Text != "" || dec.Bytes != 3 {
		t.Errorf("binary decode: %+v", dec)
	}
	for _, tc := range []struct{ name, args, want string }{
		{"hex", `{"data":"zz","encoding":"hex"}`, "decode hex: encoding/hex: invalid byte"},
		{"url", `{"data":"%zz","encoding":"url"}`, "decode url: invalid URL escape"},
		{"rot13", `{"data":"a","encoding":"rot13"}`, "invalid arguments"},
		{"base64", `{"data":"YW*","encoding":"base64"}`, "decode base64: not valid base64"},
		{"encode base32", `{"text":"a","encoding":"base32"}`, "invalid arguments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, want := tc.args, tc.want
			tool := "decode"
			if strings.Contains(args, `"text"`) {
				tool = "encode"
			}
			if res := wasmcptest.Call(t, tool, args); !res.IsError || !strings.Contains(res.Text(), want) {
				t.Errorf("%s %s: %q, want error %q", tool, args, res.Text(), want)
			}
		})
	}
}
