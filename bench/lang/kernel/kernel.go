// Package kernel is the CPU-bound work of the bench's guest-language
// experiment, in Go. lang/c, lang/rust and lang/as hold the same two
// functions, line for line, in C, Rust and AssemblyScript; each returns the
// same checksum for the same n, which the bench compares.
package kernel

// Scan writes a JSON array of n objects, {"id":7,"name":"item-7","n":1234},
// and reads it back with a tokenizer, the way a jq-like filter would:
// select the objects whose "n" is divisible by 3 and add up their ids.
// It returns that sum plus the number of bytes written.
func Scan(n int) uint64 {
	buf := make([]byte, 0, 48*n+2)
	buf = append(buf, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"id":`...)
		buf = appendUint(buf, uint64(i))
		buf = append(buf, `,"name":"item-`...)
		buf = appendUint(buf, uint64(i))
		buf = append(buf, `","n":`...)
		buf = appendUint(buf, uint64(i)*7919%10007)
		buf = append(buf, '}')
	}
	buf = append(buf, ']')
	return scan(buf) + uint64(len(buf))
}

// appendUint appends v in decimal.
func appendUint(buf []byte, v uint64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(buf, tmp[i:]...)
}

// Keys the tokenizer tells apart.
const (
	keyOther = iota
	keyID
	keyN
)

func scan(b []byte) uint64 {
	var sum, id uint64
	key := keyOther
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			start := i + 1
			i = start
			for i < len(b) && b[i] != '"' {
				if b[i] == '\\' {
					i++
				}
				i++
			}
			end := i
			i++ // the closing quote
			if i < len(b) && b[i] == ':' {
				switch {
				case end-start == 2 && b[start] == 'i' && b[start+1] == 'd':
					key = keyID
				case end-start == 1 && b[start] == 'n':
					key = keyN
				default:
					key = keyOther
				}
			}
		case c >= '0' && c <= '9':
			var v uint64
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				v = v*10 + uint64(b[i]-'0')
				i++
			}
			if key == keyID {
				id = v
			} else if key == keyN && v%3 == 0 {
				sum += id
			}
		default:
			i++
		}
	}
	return sum
}

// Diff builds two sequences of n numbers, the second changed at one place
// in 50 (in turn a changed, a dropped and an added element), and returns
// the length of their shortest edit script (Myers' greedy O(ND) search),
// as a line diff of the two texts would.
func Diff(n int) uint64 {
	a := make([]int32, n)
	b := make([]int32, 0, n+n/50)
	for i := range a {
		a[i] = int32(i)
		if i%50 != 17 {
			b = append(b, int32(i))
			continue
		}
		switch i / 50 % 3 {
		case 0:
			b = append(b, int32(-i-1))
		case 1: // dropped
		case 2:
			b = append(b, int32(i), int32(-i-1))
		}
	}
	return uint64(myers(a, b))
}

// myers returns the length of the shortest edit script turning a into b.
func myers(a, b []int32) int {
	n, m := int32(len(a)), int32(len(b))
	limit := n + m
	v := make([]int32, 2*limit+2)
	off := limit + 1
	for d := int32(0); d <= limit; d++ {
		for k := -d; k <= d; k += 2 {
			var x int32
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return int(d)
			}
		}
	}
	return int(limit)
}
