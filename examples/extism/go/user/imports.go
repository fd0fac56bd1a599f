package main

// hyper-mcp's host functions, declared as its Go plugin template declares
// them (templates/plugins/go/imports.go): each argument is a block of
// Extism's memory holding JSON, each result a block the PDK reads. The
// template predates get_access_token, get_keyring_secret and
// notify_url_elicitation_completed; they follow its pattern, with the
// signatures hyper-mcp's source gives them.

import pdk "github.com/extism/go-pdk"

// CreateElicitation asks the user for input through the client.
func CreateElicitation(input ElicitRequestParamWithTimeout) (*ElicitResult, error) {
	mem, err := pdk.AllocateJSON(&input)
	if err != nil {
		return nil, err
	}
	var out ElicitResult
	if err := pdk.JSONFrom(_CreateElicitation(mem.Offset()), &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateMessage asks the client's model for a message (sampling).
func CreateMessage(input CreateMessageRequestParam) (*CreateMessageResult, error) {
	mem, err := pdk.AllocateJSON(&input)
	if err != nil {
		return nil, err
	}
	var out CreateMessageResult
	if err := pdk.JSONFrom(_CreateMessage(mem.Offset()), &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// GetAccessToken asks the host for an OAuth access token.
func GetAccessToken(input OauthCredentials) (*AccessToken, error) {
	mem, err := pdk.AllocateJSON(&input)
	if err != nil {
		return nil, err
	}
	var out *AccessToken
	if err := pdk.JSONFrom(_GetAccessToken(mem.Offset()), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetKeyringSecret reads a secret of the host's keyring: its raw bytes,
// none when the plugin may not read it.
func GetKeyringSecret(input KeyringEntryId) ([]byte, error) {
	mem, err := pdk.AllocateJSON(&input)
	if err != nil {
		return nil, err
	}
	out := pdk.FindMemory(_GetKeyringSecret(mem.Offset()))
	return out.ReadBytes(), nil
}

// ListRoots lists the client's roots.
func ListRoots() (*ListRootsResult, error) {
	var out ListRootsResult
	if err := pdk.JSONFrom(_ListRoots(), &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// NotifyLoggingMessage sends the client a logging message.
func NotifyLoggingMessage(input LoggingMessageNotificationParam) error {
	return notify(_NotifyLoggingMessage, &input)
}

// NotifyProgress sends the client a progress notification.
func NotifyProgress(input ProgressNotificationParam) error {
	return notify(_NotifyProgress, &input)
}

// NotifyPromptListChanged says that the plugin's prompts changed.
func NotifyPromptListChanged() error {
	_NotifyPromptListChanged()
	return nil
}

// NotifyResourceListChanged says that the plugin's resources changed.
func NotifyResourceListChanged() error {
	_NotifyResourceListChanged()
	return nil
}

// NotifyResourceUpdated says that a resource was updated.
func NotifyResourceUpdated(input ResourceUpdatedNotificationParam) error {
	return notify(_NotifyResourceUpdated, &input)
}

// NotifyToolListChanged says that the plugin's tools changed.
func NotifyToolListChanged() error {
	_NotifyToolListChanged()
	return nil
}

// NotifyURLElicitationCompleted says that a URL elicitation is complete.
func NotifyURLElicitationCompleted(input ElicitationResponseNotificationParam) error {
	return notify(_NotifyURLElicitationCompleted, &input)
}

// notify passes input, as JSON, to a host function without a result.
func notify(fn func(uint64), input any) error {
	mem, err := pdk.AllocateJSON(input)
	if err != nil {
		return err
	}
	fn(mem.Offset())
	return nil
}

//go:wasmimport extism:host/user create_elicitation
func _CreateElicitation(uint64) uint64

//go:wasmimport extism:host/user create_message
func _CreateMessage(uint64) uint64

//go:wasmimport extism:host/user get_access_token
func _GetAccessToken(uint64) uint64

//go:wasmimport extism:host/user get_keyring_secret
func _GetKeyringSecret(uint64) uint64

//go:wasmimport extism:host/user list_roots
func _ListRoots() uint64

//go:wasmimport extism:host/user notify_logging_message
func _NotifyLoggingMessage(uint64)

//go:wasmimport extism:host/user notify_progress
func _NotifyProgress(uint64)

//go:wasmimport extism:host/user notify_prompt_list_changed
func _NotifyPromptListChanged()

//go:wasmimport extism:host/user notify_resource_list_changed
func _NotifyResourceListChanged()

//go:wasmimport extism:host/user notify_resource_updated
func _NotifyResourceUpdated(uint64)

//go:wasmimport extism:host/user notify_tool_list_changed
func _NotifyToolListChanged()

//go:wasmimport extism:host/user notify_url_elicitation_completed
func _NotifyURLElicitationCompleted(uint64)
