package clickhouse

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
)

// TestProjectAttrsNarrowsEachMap checks the select list a projected read
// sends: each of the two maps narrowed to the keys asked for (a set) and
// faultline's own, before their merge, one argument per map: the keys as
// a tuple.
func TestProjectAttrsNarrowsEachMap(t *testing.T) {
	sel := "TraceId, " + mergedAttrs("LogAttributes") + ", Body"
	got, args := projectAttrs(sel, []string{"k8s.pod.name"})
	keep := "(k, v) -> startsWith(k, 'faultline.') OR k IN ?"
	sent := strings.SplitN(mergedAttrs("LogAttributes"), ") AS Attrs", 2)[1] // what is sent of the map, unchanged
	want := "TraceId, mapUpdate(CAST(mapFilter(" + keep + ", ResourceAttributes), " + mapSS + "), CAST(mapFilter(" +
		keep + ", LogAttributes), " + mapSS + ")) AS Attrs" + sent + ", Body"
	if got != want {
		t.Fatalf("projectAttrs:\n got %s\nwant %s", got, want)
	}
	if len(args) != 2 || strings.Count(got, "?") != 2 || !reflect.DeepEqual(args[0], clickhouse.GroupSet{Value: []any{"k8s.pod.name"}}) {
		t.Fatalf("%d arguments %v for %d placeholders", len(args), args, strings.Count(got, "?"))
	}
	if same, _ := projectAttrs("TraceId, Body", []string{"x"}); same != "TraceId, Body" {
		t.Fatalf("a list without attributes changed: %s", same)
	}
}
