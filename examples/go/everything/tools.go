package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"

	wasmcp "github.com/wasmcp/wasmcp/sdk-guest/go"
)

// EchoArgs are the arguments of echo.
type EchoArgs struct {
	Message string `json:"message" description:"Message to echo."`
}

// SumArgs are the arguments of get-sum.
type SumArgs struct {
	A float64 `json:"a" description:"First number."`
	B float64 `json:"b" description:"Second number."`
}

// WeatherArgs are the arguments of get-structured-content.
type WeatherArgs struct {
	Location string `json:"location" description:"City name." jsonschema:"enum=New York|Chicago|Los Angeles"`
}

// Weather is the structured result of get-structured-content.
type Weather struct {
	Temperature float64 `json:"temperature" description:"Temperature in degrees Celsius."`
	Conditions  string  `json:"conditions" description:"Weather conditions."`
	Humidity    float64 `json:"humidity" description:"Relative humidity in percent." jsonschema:"minimum=0,maximum=100"`
}

// weather holds fixed, made-up values so that results are deterministic.
var weather = map[string]Weather{
	"New York":    {Temperature: 22.5, Conditions: "Partly cloudy", Humidity: 65},
	"Chicago":     {Temperature: 18, Conditions: "Windy", Humidity: 55},
	"Los Angeles": {Temperature: 28.3, Conditions: "Sunny", Humidity: 40},
}

// tinyPNG is a 16x16 RGB PNG (322 bytes): a colour gradient crossed by two
// dark diagonals. It is embedded rather than drawn with image/png, which
// would add its encoder and zlib to the module.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAABCUlEQVR42oySIY+DQBCFJxRNQrLVuM1JHBpXjcO9BMdfWM1fwDUZh6vGoXHodaupwm9y6YX2YLt3dIJhZ77deTMvFOLL3jkm+uSTAuHdshAgy3QU8oTZckgxWeJlQRz9x2QL9E/BAyCiKGZjECd+5mIwPlPBq8Ek5cngvfHSoE/59Rtsc2nOw7Rj6gldztuTwLkvL/g2rIwa0BbsFKwatlFUfL2CiJrKI8kD/IYv5QFuClXzWKVSaBv3EVfDoFC0a99Ny7Vy57YDphp5t1PZdlzW8AOmRNrz+x66ni8l3CktGZLxT2v0I2cZ9Pi0xkki0gfmGzVLiVlzKCTsfGxVItIzn8/4DgAA///FsmU2KdbO8QAAAABJRU5ErkJggg=="

func init() {
	wasmcp.AddTool("echo", "Echoes back the input message.", func(in EchoArgs) (string, error) {
		wasmcp.Debug("echo: " + in.Message)
		return "Echo: " + in.Message, nil
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("get-sum", "Returns the sum of two numbers.", func(in SumArgs) (string, error) {
		sum := in.A + in.B
		if math.IsInf(sum, 0) {
			return "", errors.New("The sum is out of the range of a 64-bit float.")
		}
		return fmt.Sprintf("The sum of %s and %s is %s.", number(in.A), number(in.B), number(sum)), nil
	}, wasmcp.Title("Sum"), wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("get-structured-content", "Returns the current weather for a city as structured content (made-up, fixed values).",
		func(in WeatherArgs) (Weather, error) {
			w, ok := weather[in.Location]
			if !ok {
				return Weather{}, fmt.Errorf("no weather for %q; choose New York, Chicago or Los Angeles", in.Location)
			}
			return w, nil
		}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("get-tiny-image", "Returns a tiny PNG image between two text blocks.", func(struct{}) (*wasmcp.Result, error) {
		png, err := base64.StdEncoding.DecodeString(tinyPNG)
		if err != nil {
			return nil, fmt.Errorf("embedded image: %w", err)
		}
		return wasmcp.NewResult(
			wasmcp.Text("This is a tiny image:"),
			wasmcp.Image(png, "image/png"),
			wasmcp.Text("The image above is a 16x16 PNG."),
		), nil
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("get-resource-links", "Returns links to example resources.", func(in struct {
		Count int `json:"count,omitempty" description:"Number of links to return." jsonschema:"minimum=1,maximum=10,default=3"`
	}) (*wasmcp.Result, error) {
		n := in.Count
		if n == 0 {
			n = 3
		}
		res := wasmcp.NewResult(wasmcp.Text(fmt.Sprintf("Here are %d resource links:", n)))
		for i := 1; i <= n; i++ {
			link := wasmcp.ResourceLink(fmt.Sprintf("test://static/resource/%d", i), fmt.Sprintf("Resource %d", i))
			link.MimeType = "text/plain"
			link.Description = fmt.Sprintf("Example resource number %d", i)
			res.Content = append(res.Content, link)
		}
		return res, nil
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))

	wasmcp.AddTool("get-error", "Always fails with a tool error (isError: true), to test error handling.", func(in struct {
		Message string `json:"message,omitempty" description:"Error message to return."`
	}) (string, error) {
		if in.Message == "" {
			in.Message = "this tool always fails"
		}
		wasmcp.Log(wasmcp.LevelError, "get-error: "+in.Message)
		return "", fmt.Errorf("get-error: %s", in.Message)
	}, wasmcp.ReadOnly(), wasmcp.Idempotent(), wasmcp.OpenWorld(false))
}

// number formats n as JavaScript would in a template string: no exponent,
// no trailing zeros (7, 0.5, 12.25).
func number(n float64) string {
	return strconv.FormatFloat(n, 'f', -1, 64)
}
