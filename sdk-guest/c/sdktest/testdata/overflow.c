/*
 * overflow.c - writes one byte past a block of call memory. Under
 * AddressSanitizer it must be stopped there (sdk_test.go's
 * TestCallMemoryPoisoned): call memory comes from the SDK's own blocks,
 * which ASan would not see into unless the SDK poisons what no block owns.
 */
#include "internal.h"

int main(int argc, char **argv) {
    (void)argv;
    wasmcp_call_reset_();
    char *a = wasmcp_call_memory(24);
    char *b = wasmcp_call_memory(24);
    (void)b;
    a[24 + argc - 1] = 1; /* argc is 1: a[24], one past the end */
    return 0;
}
