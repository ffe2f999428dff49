package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpArgs reads a tool call's arguments before the SDK does, so that a
// wrong one is told in a sentence naming the argument and what to give
// (the SDK's own words were "validating "arguments": validating root: …"
// and "json: cannot unmarshal number … into Go struct field …"). What
// passes here also passes the SDK's schema check.
func mcpArgs(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ctr, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && ctr.Params != nil {
			if err := checkToolArgs(ctr.Params.Name, ctr.Params.Arguments); err != nil {
				res := &mcp.CallToolResult{}
				res.SetError(err)
				return res, nil
			}
		}
		return next(ctx, method, req)
	}
}

// mcpInputs are the input types of the tools, by name.
var mcpInputs = map[string]reflect.Type{
	"incident": reflect.TypeFor[mcpIncidentInput](),
	"trace":    reflect.TypeFor[mcpTraceInput](),
	"runbook":  reflect.TypeFor[mcpRunbookInput](),
	"patterns": reflect.TypeFor[mcpPatternsInput](),
}

// checkToolArgs decodes raw into the tool's input type strictly: an
// object, no unknown names, each of its type, the required ones present.
// An unknown tool is left to the SDK.
func checkToolArgs(tool string, raw json.RawMessage) error {
	typ, ok := mcpInputs[tool]
	if !ok {
		return nil
	}
	names, required := argNames(typ)
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	var fields map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &fields) != nil {
		return toolErrorf("the arguments of %s must be a JSON object of %s", tool, strings.Join(names, ", "))
	}
	for name := range fields {
		if !slices.Contains(names, name) {
			return toolErrorf("%s takes no argument %q; it takes %s", tool, truncate(name, 40), strings.Join(names, ", "))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	v := reflect.New(typ).Interface()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return toolErrorf("%s of %s must be %s, not %s", te.Field, tool, kindWord(te.Type), valueWord(te.Value))
		}
		return toolErrorf("the arguments of %s are not readable: give a JSON object of %s", tool, strings.Join(names, ", "))
	}
	for _, name := range required {
		if v, ok := fields[name]; !ok || string(bytes.TrimSpace(v)) == "null" {
			return toolErrorf("%s needs %s", tool, name)
		}
	}
	return nil
}

// argNames are the JSON names of typ's fields, and those without
// omitempty (required, as the SDK's schema says).
func argNames(typ reflect.Type) (names, required []string) {
	for f := range typ.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	return names, required
}

// kindWord names a Go type for a model: "a string", "an integer", ...
func kindWord(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(kindWord(t.Elem()), "a "), "an ") + "s"
	}
	return fmt.Sprintf("a %s", t.Kind())
}

// valueWord names what json found ("number 1.5", "string", ...).
func valueWord(v string) string {
	switch {
	case strings.HasPrefix(v, "number"):
		return "a " + v
	case v == "array", v == "object":
		return "an " + v
	}
	return "a " + v
}
