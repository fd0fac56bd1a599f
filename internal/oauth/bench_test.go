package oauth

import (
	"context"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// BenchmarkVerify measures Verify on a token seen before (a session's every
// request after its first) against the verification of a token seen for the
// first time, and the former with many requests at once.
func BenchmarkVerify(b *testing.B) {
	for _, alg := range []jose.SignatureAlgorithm{jose.ES256, jose.RS256} {
		k := newKey(b, "k1", alg)
		as := newFakeAS(b, "", k)
		v := newVerifier(b, config(b, as))
		tok := as.token(k, "groups", []string{"eng", "ops"})
		ctx := context.Background()
		if _, err := v.Verify(ctx, tok); err != nil {
			b.Fatal(err)
		}
		b.Run(string(alg)+"/cached", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(ctx, tok); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(alg)+"/cached-parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := v.Verify(ctx, tok); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
		b.Run(string(alg)+"/fresh", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.verifyJWT(ctx, tok, time.Now()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
