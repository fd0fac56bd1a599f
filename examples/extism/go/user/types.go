package main

// The types of hyper-mcp's host functions, as its plugin templates name
// them (types.go, types.rs), with only the fields this plugin uses.

type (
	CreateMessageRequestParam struct {
		MaxTokens int64             `json:"maxTokens"`
		Messages  []SamplingMessage `json:"messages"`
	}
	SamplingMessage struct {
		Role    string      `json:"role"`
		Content textContent `json:"content"`
	}
	CreateMessageResult struct {
		Content    textContent `json:"content"`
		Model      string      `json:"model"`
		Role       string      `json:"role"`
		StopReason string      `json:"stopReason,omitempty"`
	}

	// ElicitRequestParamWithTimeout is a form elicitation; hyper-mcp's
	// timeout is in seconds.
	ElicitRequestParamWithTimeout struct {
		Mode            string         `json:"mode"`
		Message         string         `json:"message"`
		RequestedSchema map[string]any `json:"requestedSchema"`
		Timeout         float64        `json:"timeout,omitempty"`
	}
	ElicitResult struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content,omitempty"`
	}

	ListRootsResult struct {
		Roots []Root `json:"roots"`
	}
	Root struct {
		URI  string `json:"uri"`
		Name string `json:"name,omitempty"`
	}

	LoggingMessageNotificationParam struct {
		Data   any    `json:"data"`
		Level  string `json:"level"`
		Logger string `json:"logger,omitempty"`
	}

	// ProgressNotificationParam's token is the one the call's context
	// carries, a string or a number.
	ProgressNotificationParam struct {
		Message       string  `json:"message,omitempty"`
		Progress      float64 `json:"progress"`
		ProgressToken any     `json:"progressToken"`
		Total         float64 `json:"total,omitempty"`
	}

	ResourceUpdatedNotificationParam struct {
		URI string `json:"uri"`
	}
	ElicitationResponseNotificationParam struct {
		ElicitationID string `json:"elicitationId"`
	}

	KeyringEntryId struct {
		Service string `json:"service"`
		User    string `json:"user"`
	}
	OauthCredentials struct {
		ClientID         string `json:"client_id"`
		TokenEndpointURL string `json:"token_endpoint_url"`
	}
	AccessToken struct {
		AccessToken string `json:"access_token"`
	}
)
