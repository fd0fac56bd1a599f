package bounds

import (
	"math/rand/v2"
	"testing"
)

// tableMaxima keeps the tables within the budget, never raises or lowers a
// maximum past what the table declares, keeps the initial size of a table
// that declares none, and leaves unused no more budget than the rounding of
// its even shares (less than one element a table) unless every table that
// may grow reached its declared maximum.
func TestTableMaximaProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		budget := uint64(rng.IntN(1000))
		ts := make([]limitsType, 1+rng.IntN(5))
		var mins uint64
		for i := range ts {
			left := budget - mins
			ts[i].min = uint32(rng.Uint64N(left/2 + 1))
			mins += uint64(ts[i].min)
			if rng.IntN(2) == 0 {
				ts[i].flag = 1
				ts[i].max = ts[i].min + uint32(rng.IntN(600))
			}
		}
		maxima := tableMaxima(ts, budget)
		var sum uint64
		saturated := true
		for i, l := range ts {
			sum += uint64(maxima[i])
			if maxima[i] < l.min || l.hasMax() && maxima[i] > l.max || !l.hasMax() && maxima[i] != l.min {
				t.Fatalf("tables %+v, budget %d: maxima %v", ts, budget, maxima)
			}
			saturated = saturated && (!l.hasMax() || maxima[i] == l.max)
		}
		if sum > budget || !saturated && sum+uint64(len(ts)) <= budget {
			t.Fatalf("tables %+v, budget %d: maxima %v add up to %d", ts, budget, maxima, sum)
		}
	}
}
