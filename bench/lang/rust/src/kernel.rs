//! The bench's CPU-bound work in Rust: lang/kernel/kernel.go, line for line.

fn append_uint(buf: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

const KEY_OTHER: u8 = 0;
const KEY_ID: u8 = 1;
const KEY_N: u8 = 2;

fn scan_bytes(b: &[u8]) -> u64 {
    let (mut sum, mut id) = (0u64, 0u64);
    let mut key = KEY_OTHER;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'"' {
            let start = i + 1;
            i = start;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            let end = i;
            i += 1; // the closing quote
            if i < b.len() && b[i] == b':' {
                key = if end - start == 2 && b[start] == b'i' && b[start + 1] == b'd' {
                    KEY_ID
                } else if end - start == 1 && b[start] == b'n' {
                    KEY_N
                } else {
                    KEY_OTHER
                };
            }
        } else if c.is_ascii_digit() {
            let mut v = 0u64;
            while i < b.len() && b[i].is_ascii_digit() {
                v = v * 10 + (b[i] - b'0') as u64;
                i += 1;
            }
            if key == KEY_ID {
                id = v;
            } else if key == KEY_N && v % 3 == 0 {
                sum += id;
            }
        } else {
            i += 1;
        }
    }
    sum
}

pub fn scan(n: usize) -> u64 {
    let mut buf = Vec::with_capacity(48 * n + 2);
    buf.push(b'[');
    for i in 0..n {
        if i > 0 {
            buf.push(b',');
        }
        buf.extend_from_slice(br#"{"id":"#);
        append_uint(&mut buf, i as u64);
        buf.extend_from_slice(br#","name":"item-"#);
        append_uint(&mut buf, i as u64);
        buf.extend_from_slice(br#"","n":"#);
        append_uint(&mut buf, i as u64 * 7919 % 10007);
        buf.push(b'}');
    }
    buf.push(b']');
    scan_bytes(&buf) + buf.len() as u64
}

fn myers(a: &[i32], b: &[i32]) -> i32 {
    let (n, m) = (a.len() as i32, b.len() as i32);
    let limit = n + m;
    let mut v = vec![0i32; 2 * limit as usize + 2];
    let off = limit + 1;
    for d in 0..=limit {
        let mut k = -d;
        while k <= d {
            let mut x = if k == -d || (k != d && v[(off + k - 1) as usize] < v[(off + k + 1) as usize]) {
                v[(off + k + 1) as usize]
            } else {
                v[(off + k - 1) as usize] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[(off + k) as usize] = x;
            if x >= n && y >= m {
                return d;
            }
            k += 2;
        }
    }
    limit
}

pub fn diff(n: usize) -> u64 {
    let mut a = Vec::with_capacity(n);
    let mut b = Vec::with_capacity(n + n / 50);
    for i in 0..n as i32 {
        a.push(i);
        if i % 50 != 17 {
            b.push(i);
            continue;
        }
        match i / 50 % 3 {
            0 => b.push(-i - 1),
            1 => {} // dropped
            _ => {
                b.push(i);
                b.push(-i - 1);
            }
        }
    }
    myers(&a, &b) as u64
}
