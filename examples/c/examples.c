/*
 * examples.c - the wasmcp example tools in C, the same set as
 * examples/go/everything (which mirrors the MCP "everything" server):
 *
 *   echo                    {"message":"hi"}        -> "Echo: hi"
 *   get-sum                 {"a":7,"b":5}           -> "The sum of 7 and 5 is 12."
 *   get-structured-content  {"location":"Chicago"}  -> structured weather, with an output schema
 *   get-tiny-image          {}                      -> text, a 16x16 PNG, text
 *   get-resource-links      {"count":2}             -> text and resource links
 *   get-error               {"message":"why"}       -> isError: true
 *
 * Build (from the repository root; `make plugins` does it):
 *
 *   clang --target=wasm32-wasi -mexec-model=reactor --sysroot=/usr -Os -Wl,--strip-all \
 *       -I sdk-guest/c -o examples-c.wasm examples/c/examples.c sdk-guest/c/wasmcp.c \
 *       sdk-guest/c/read.c sdk-guest/c/write.c
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "wasmcp.h"

/* Every tool only reads its arguments. */
#define HINTS "{\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}"

static void echo(wasmcp_json args, wasmcp_result *res) {
    const char *message = wasmcp_get_string(args, "message", "");
    wasmcp_logf(WASMCP_LOG_DEBUG, "echo: %s", message);
    wasmcp_result_textf(res, "Echo: %s", message);
}

static void get_sum(wasmcp_json args, wasmcp_result *res) {
    double a = wasmcp_get_number(args, "a", 0), b = wasmcp_get_number(args, "b", 0), sum = a + b;
    if (!isfinite(sum)) {
        wasmcp_result_error(res, "The sum is out of the range of a 64-bit float.");
        return;
    }
    wasmcp_result_textf(res, "The sum of %s and %s is %s.", wasmcp_format_decimal(a), wasmcp_format_decimal(b),
                        wasmcp_format_decimal(sum));
}

/* Fixed, made-up values, so that results are deterministic. */
static const struct {
    const char *location;
    double temperature;
    const char *conditions;
    double humidity;
} weather[] = {
    {"New York", 22.5, "Partly cloudy", 65},
    {"Chicago", 18, "Windy", 55},
    {"Los Angeles", 28.3, "Sunny", 40},
};

static void get_structured_content(wasmcp_json args, wasmcp_result *res) {
    const char *location = wasmcp_get_string(args, "location", "");
    for (size_t i = 0; i < sizeof weather / sizeof *weather; i++) {
        if (strcmp(weather[i].location, location) != 0) continue;
        wasmcp_writer *w = wasmcp_result_structured(res);
        wasmcp_w_object_begin(w);
        wasmcp_w_key(w, "temperature");
        wasmcp_w_number(w, weather[i].temperature);
        wasmcp_w_key(w, "conditions");
        wasmcp_w_string(w, weather[i].conditions);
        wasmcp_w_key(w, "humidity");
        wasmcp_w_number(w, weather[i].humidity);
        wasmcp_w_object_end(w);
        return;
    }
    /* Not reached: the host validates location against the enum. */
    wasmcp_result_errorf(res, "no weather for \"%s\"; choose New York, Chicago or Los Angeles", location);
}

/* A 16x16 RGB PNG (322 bytes): a colour gradient crossed by two dark
 * diagonals, the same image as the Go example's. */
static const char tiny_png[] = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAABCUlEQVR42oySIY+"
                               "DQBCFJxRNQrLVuM1JHBpXjcO9BMdfWM1fwDUZh6vGoXHodaupwm9y"
                               "6YX2YLt3dIJhZ77deTMvFOLL3jkm+uSTAuHdshAgy3QU8oTZckgxWeJlQRz9x2QL9E/"
                               "BAyCiKGZjECd+5mIwPlPBq8Ek5cngvfHSoE/59Rtsc2nOw7Rj"
                               "6gldztuTwLkvL/g2rIwa0BbsFKwatlFUfL2CiJrKI8kD/"
                               "IYv5QFuClXzWKVSaBv3EVfDoFC0a99Ny7Vy57YDphp5t1PZdlzW8AOmRNrz+x66ni8l3Ckt"
                               "GZLxT2v0I2cZ9Pi0xkki0gfmGzVLiVlzKCTsfGxVItIzn8/4DgAA///FsmU2KdbO8QAAAABJRU5ErkJggg==";

static void get_tiny_image(wasmcp_json args, wasmcp_result *res) {
    (void)args;
    wasmcp_result_text(res, "This is a tiny image:");
    wasmcp_result_image_base64(res, tiny_png, "image/png");
    wasmcp_result_text(res, "The image above is a 16x16 PNG.");
}

static void get_resource_links(wasmcp_json args, wasmcp_result *res) {
    int n = (int)wasmcp_get_number(args, "count", 3); /* 1 to 10, by the schema */
    wasmcp_result_textf(res, "Here are %d resource links:", n);
    for (int i = 1; i <= n; i++) {
        char uri[40], name[20], description[40];
        snprintf(uri, sizeof uri, "test://static/resource/%d", i);
        snprintf(name, sizeof name, "Resource %d", i);
        snprintf(description, sizeof description, "Example resource number %d", i);
        wasmcp_result_resource_link(
            res,
            &(wasmcp_resource_link){.uri = uri, .name = name, .description = description, .mime_type = "text/plain"});
    }
}

static void get_error(wasmcp_json args, wasmcp_result *res) {
    const char *message = wasmcp_get_string(args, "message", "");
    if (!*message) message = "this tool always fails";
    wasmcp_logf(WASMCP_LOG_ERROR, "get-error: %s", message);
    wasmcp_result_errorf(res, "get-error: %s", message);
}

WASMCP_INIT {
    wasmcp_add_tool(&(wasmcp_tool){
        .name = "echo",
        .description = "Echoes back the input message.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":"
                        "\"Message to echo.\"}},\"required\":[\"message\"],\"additionalProperties\":false}",
        .annotations = HINTS,
        .handler = echo,
    });
    wasmcp_add_tool(&(wasmcp_tool){
        .name = "get-sum",
        .title = "Sum",
        .description = "Returns the sum of two numbers.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\",\"description\":\"First "
                        "number.\"},\"b\":{\"type\":\"number\",\"description\":\"Second number.\"}},\"required\":["
                        "\"a\",\"b\"],\"additionalProperties\":false}",
        .annotations = HINTS,
        .handler = get_sum,
    });
    wasmcp_add_tool(&(wasmcp_tool){
        .name = "get-structured-content",
        .description = "Returns the current weather for a city as structured content (made-up, fixed values).",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"location\":{\"type\":\"string\",\"description\":"
                        "\"City name.\",\"enum\":[\"New York\",\"Chicago\",\"Los Angeles\"]}},\"required\":["
                        "\"location\"],\"additionalProperties\":false}",
        .output_schema = "{\"type\":\"object\",\"properties\":{\"temperature\":{\"type\":\"number\",\"description\":"
                         "\"Temperature in degrees Celsius.\"},\"conditions\":{\"type\":\"string\",\"description\":"
                         "\"Weather conditions.\"},\"humidity\":{\"type\":\"number\",\"description\":\"Relative "
                         "humidity in percent.\",\"minimum\":0,\"maximum\":100}},\"required\":[\"temperature\","
                         "\"conditions\",\"humidity\"],\"additionalProperties\":false}",
        .annotations = HINTS,
        .handler = get_structured_content,
    });
    wasmcp_add_tool(&(wasmcp_tool){
        .name = "get-tiny-image",
        .description = "Returns a tiny PNG image between two text blocks.",
        .annotations = HINTS,
        .handler = get_tiny_image,
    });
    wasmcp_add_tool(&(wasmcp_tool){
        .name = "get-resource-links",
        .description = "Returns links to example resources.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"count\":{\"type\":\"integer\",\"description\":"
                        "\"Number of links to return.\",\"default\":3,\"minimum\":1,\"maximum\":10}},"
                        "\"additionalProperties\":false}",
        .annotations = HINTS,
        .handler = get_resource_links,
    });
    wasmcp_add_tool(&(wasmcp_tool){
        .name = "get-error",
        .description = "Always fails with a tool error (isError: true), to test error handling.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":"
                        "\"Error message to return.\"}},\"additionalProperties\":false}",
        .annotations = HINTS,
        .handler = get_error,
    });
}
