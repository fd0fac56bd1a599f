/* The C kernel as a wasmcp tool, work_c: {"kernel":"scan"|"diff","n":N}
 * returns the checksum as text. */
#include <string.h>

#include "kernel.h"
#include "wasmcp.h"

static void work(wasmcp_json args, wasmcp_result *res) {
    const char *kernel = wasmcp_get_string(args, "kernel", "");
    int n = (int)wasmcp_get_number(args, "n", 0);
    uint64_t sum = strcmp(kernel, "scan") == 0 ? kernel_scan(n) : kernel_diff(n);
    wasmcp_result_textf(res, "%llu", (unsigned long long)sum);
}

WASMCP_INIT {
    wasmcp_add_tool(&(wasmcp_tool){
        .name = "work_c",
        .description = "The bench's CPU-bound kernels in C.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"kernel\":{\"enum\":[\"scan\",\"diff\"]},"
                        "\"n\":{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"kernel\",\"n\"]}",
        .handler = work,
    });
}
