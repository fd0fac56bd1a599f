/*
 * resourceguest.c - the C SDK's module for the reads, prompts and
 * completions of sdk-guest/internal/resourcecheck, built for wasm32 by
 * sdk_test.go. Its package documentation says what each definition answers.
 */
#include <string.h>

#include "wasmcp.h"

static void read_bytes(const char *uri, wasmcp_json vars, wasmcp_read_result *res) {
    (void)uri, (void)vars;
    wasmcp_read_blob(res, "\x00\xff\x10\x80", 4);
}

static void read_fails(const char *uri, wasmcp_json vars, wasmcp_read_result *res) {
    (void)uri, (void)vars;
    wasmcp_read_error(res, WASMCP_ERROR_INTERNAL, "fails on purpose");
}

static void read_file(const char *uri, wasmcp_json vars, wasmcp_read_result *res) {
    (void)uri;
    const char *path = wasmcp_get_string(vars, "path", "");
    if (strcmp(path, "missing") == 0)
        wasmcp_read_errorf(res, WASMCP_ERROR_NOT_FOUND, "no file %s", path);
    else
        wasmcp_read_textf(res, "file %s", path);
}

static void complete_path(const char *argument, const char *value, wasmcp_json context, wasmcp_completion *c) {
    (void)argument, (void)context;
    static const char *paths[] = {"a.txt", "b.txt", "notes/c.md"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
        if (strncmp(paths[i], value, strlen(value)) == 0) wasmcp_complete_value(c, paths[i]);
}

static void read_note(const char *uri, wasmcp_json vars, wasmcp_read_result *res) {
    (void)uri;
    wasmcp_read_textf(res, "note %s in %s", wasmcp_get_string(vars, "id", ""), wasmcp_get_string(vars, "lang", "en"));
}

static void review(wasmcp_json args, wasmcp_prompt_result *res) {
    const char *focus = wasmcp_get_string(args, "focus", NULL);
    wasmcp_prompt_description(res, "Review a diff");
    wasmcp_prompt_text(res, WASMCP_ROLE_USER, "Review this change:");
    wasmcp_prompt_embedded_text(res, WASMCP_ROLE_USER, "diff://current", "text/x-diff",
                                wasmcp_get_string(args, "diff", ""));
    if (focus) wasmcp_prompt_textf(res, WASMCP_ROLE_ASSISTANT, "I will focus on %s.", focus);
}

static void complete_focus(const char *argument, const char *value, wasmcp_json context, wasmcp_completion *c) {
    (void)context;
    static const char *areas[] = {"security", "style", "speed"};
    if (strcmp(argument, "focus") != 0) return;
    int total = 0;
    for (size_t i = 0; i < sizeof areas / sizeof *areas; i++)
        if (strncmp(areas[i], value, strlen(value)) == 0 && total++ < 2) wasmcp_complete_value(c, areas[i]);
    wasmcp_complete_total(c, total);
}

static void fails(wasmcp_json args, wasmcp_prompt_result *res) {
    (void)args;
    wasmcp_prompt_error(res, WASMCP_ERROR_INVALID_PARAMS, "fails on purpose");
}

WASMCP_INIT {
    wasmcp_add_resource(&(wasmcp_resource){
        .uri = "text://greeting",
        .name = "greeting",
        .title = "Greeting",
        .mime_type = "text/plain",
        .text = "Hello, resources!",
    });
    wasmcp_add_resource(&(wasmcp_resource){
        .uri = "blob://bytes",
        .name = "bytes",
        .mime_type = "application/octet-stream",
        .size = 4,
        .handler = read_bytes,
    });
    wasmcp_add_resource(&(wasmcp_resource){.uri = "text://fails", .name = "fails", .handler = read_fails});
    wasmcp_add_resource_template(&(wasmcp_resource_template){
        .uri_template = "file:///{+path}",
        .name = "files",
        .mime_type = "text/plain",
        .handler = read_file,
        .complete = complete_path,
    });
    wasmcp_add_resource_template(
        &(wasmcp_resource_template){.uri_template = "notes://{id}{?lang}", .name = "notes", .handler = read_note});
    wasmcp_add_prompt(&(wasmcp_prompt){
        .name = "review",
        .description = "Reviews a diff.",
        .arguments =
            (wasmcp_prompt_argument[]){
                {.name = "diff", .description = "The diff to review.", .required = true},
                {.name = "focus"},
                {0},
            },
        .handler = review,
        .complete = complete_focus,
    });
    wasmcp_add_prompt(&(wasmcp_prompt){.name = "fails", .handler = fails});
}
