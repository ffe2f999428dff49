package rootcause

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/faultline/faultline/schema"
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
	n := 0
	for r, err := range st.WindowRecords(ctx, schema.WindowQuery{From: time.Unix(0, 0), To: time.Now()}) {
		if err != nil {
			t.Fatal(err)
		}
		if r.Type == schema.TypeSpan && r.Service == os.Getenv("SVC") && n < 8 {
			n++
			fmt.Printf("%+v\n", r)
		}
	}
}
