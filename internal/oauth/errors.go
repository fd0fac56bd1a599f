package oauth

import (
	"errors"
	"fmt"
)

// Error codes of RFC 6750 §3.1 that Verify reports.
const (
	// CodeInvalidToken: the token is expired, revoked, malformed, or
	// invalid for other reasons.
	CodeInvalidToken = "invalid_token"
	// CodeInsufficientScope: the token lacks a scope the request needs.
	// Verify never reports it; the layer that knows what a request needs
	// does.
	CodeInsufficientScope = "insufficient_scope"
)

// Why Verify refused a token. Every *Error from Verify wraps one of them.
var (
	// ErrNoToken: the token is empty. RFC 6750 wants no error code then.
	ErrNoToken = errors.New("no token")
	// ErrMalformed: not a JWT nor a token any issuer could introspect, or
	// a JWT without the claims an access token needs.
	ErrMalformed = errors.New("malformed token")
	// ErrAlgorithm: a JWT signed with an algorithm outside the allow-list
	// (none, HMAC, ...).
	ErrAlgorithm = errors.New("signature algorithm not allowed")
	// ErrIssuer: a token from an issuer that is not trusted.
	ErrIssuer = errors.New("issuer not trusted")
	// ErrUnknownKey: a JWT naming a key its issuer does not publish.
	ErrUnknownKey = errors.New("unknown key")
	// ErrSignature: a JWT whose signature does not verify.
	ErrSignature = errors.New("bad signature")
	// ErrExpired: a token past its expiry.
	ErrExpired = errors.New("token expired")
	// ErrNotYetValid: a token before its nbf or iat.
	ErrNotYetValid = errors.New("token not yet valid")
	// ErrAudience: a token for another resource.
	ErrAudience = errors.New("token for another audience")
	// ErrInactive: an opaque token its issuer says is not active (revoked,
	// expired, or never issued).
	ErrInactive = errors.New("token not active")
	// ErrUnavailable: the issuer could not be asked (discovery, keys or
	// introspection failed); the token may be good.
	ErrUnavailable = errors.New("issuer unavailable")
)

// Error is a refused token: the RFC 6750 error code and a description for
// the client, which never contains the token.
type Error struct {
	// Code is the RFC 6750 error code: CodeInvalidToken, or empty for
	// ErrNoToken.
	Code string
	// Description says why, for a person reading the client's log.
	Description string
	// Err is one of the Err* values above.
	Err error
}

func (e *Error) Error() string {
	if e.Code == "" {
		return e.Description
	}
	return e.Code + ": " + e.Description
}

func (e *Error) Unwrap() error { return e.Err }

// refuse returns an invalid_token Error of the kind why.
func refuse(why error, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidToken, Description: fmt.Sprintf(format, args...), Err: why}
}
