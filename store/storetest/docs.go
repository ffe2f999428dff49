package storetest

import (
	"bytes"
	"errors"
	"testing"

	"github.com/faultline/faultline/schema"
	"github.com/faultline/faultline/store"
)

func testDocuments(t *testing.T, s store.Store, e *env) {
	id := "rb-" + e.nonce
	v1 := []byte(`{"title":"Payments timeouts ⏱","markdown":"# Symptoms\n"}`)
	v2 := []byte{0, 1, 2, 0xff, 0xfe, '\n', 0}
	if err := s.PutDoc(e.ctx, "runbook", id, v1); err != nil {
		t.Fatal(err)
	}
	if err := s.PutDoc(e.ctx, "slack", id, v2); err != nil {
		t.Fatal(err)
	}
	wantDoc(t, s, e, "runbook", id, v1)
	wantDoc(t, s, e, "slack", id, v2) // same id, another kind: independent

	v3 := bytes.Repeat([]byte("replaced "), 10000)
	if err := s.PutDoc(e.ctx, "runbook", id, v3); err != nil {
		t.Fatal(err)
	}
	wantDoc(t, s, e, "runbook", id, v3)

	if _, err := s.GetDoc(e.ctx, "runbook", id+"-absent"); !errors.Is(err, schema.ErrNotFound) {
		t.Errorf("an absent document: err = %v, want one wrapping schema.ErrNotFound", err)
	}
	if _, err := s.GetDoc(e.ctx, "other-kind", id); !errors.Is(err, schema.ErrNotFound) {
		t.Errorf("an absent kind: err = %v, want one wrapping schema.ErrNotFound", err)
	}
	if err := s.PutDoc(e.ctx, "", id, v1); err == nil {
		t.Error("PutDoc accepted an empty kind")
	}
	if err := s.PutDoc(e.ctx, "runbook", "", v1); err == nil {
		t.Error("PutDoc accepted an empty id")
	}
}

func wantDoc(t *testing.T, s store.Store, e *env, kind, id string, want []byte) {
	t.Helper()
	got, err := s.GetDoc(e.ctx, kind, id)
	if err != nil {
		t.Fatalf("GetDoc(%s, %s): %v", kind, id, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("GetDoc(%s, %s) = %d bytes %.40q, want %d bytes %.40q", kind, id, len(got), got, len(want), want)
	}
}
