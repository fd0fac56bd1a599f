/* The bench's CPU-bound work in C: lang/kernel/kernel.go, line for line. */
#ifndef KERNEL_H
#define KERNEL_H

#include <stdint.h>

uint64_t kernel_scan(int n);
uint64_t kernel_diff(int n);

#endif
