package rootcause

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/faultline/faultline/store"
)

func TestZZDump(t *testing.T) {
	db := os.Getenv("RCX")
	if db == "" {
		t.Skip()
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	from, _ := time.Parse(time.RFC3339, os.Getenv("FROM"))
	rep, err := Analyze(ctx, st, Query{From: from, To: from.Add(3 * time.Minute), Top: 100}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Candidates {
		if c.Service == os.Getenv("SVC") {
			b, _ := json.MarshalIndent(c.Signals, "", " ")
			fmt.Println(c.Rank, c.Score, string(b))
		}
	}
}
