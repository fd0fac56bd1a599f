//! The Rust kernel natively: native KERNEL N REPS runs it REPS times and
//! prints the median time in nanoseconds and the checksum.

#[path = "src/kernel.rs"]
mod kernel;

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: {} scan|diff N REPS", args[0]);
        std::process::exit(2);
    }
    let run = if args[1] == "scan" { kernel::scan } else { kernel::diff };
    let (n, reps): (usize, usize) = (args[2].parse().unwrap(), args[3].parse().unwrap());
    let mut ns = Vec::with_capacity(reps);
    let mut sum = 0;
    for _ in 0..reps {
        let start = Instant::now();
        sum = run(n);
        ns.push(start.elapsed().as_nanos());
    }
    ns.sort();
    println!("{} {}", ns[reps / 2], sum);
}
