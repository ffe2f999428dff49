package runbookgen

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/rootcause"
)

// TestSaveTracesRunsAsPrinted: the evidence section saves the example
// traces with one command that runs as printed; it used to say
// "analyze trace --json ID > trace-ID.json for each", with ID to replace.
func TestSaveTracesRunsAsPrinted(t *testing.T) {
	d := &Data{Service: NewText("payment", 0), Examples: []Text{NewText("4bf92f3577b34da6a3ce929d0e0e4736", 0), NewText("0af7651916cd43dd8448eb211c80319c", 0)}}
	c := newCommands(d, rootcause.Window{}, " --store /srv/faultline.db")
	want := `for id in 4bf92f3577b34da6a3ce929d0e0e4736 0af7651916cd43dd8448eb211c80319c; do analyze trace --store /srv/faultline.db --json "$id" > "trace-$id.json"; done`
	if c.SaveTraces != want {
		t.Fatalf("SaveTraces = %q, want %q", c.SaveTraces, want)
	}
	if out, err := exec.Command("sh", "-n", "-c", c.SaveTraces).CombinedOutput(); err != nil {
		t.Errorf("sh cannot parse %q: %v %s", c.SaveTraces, err, out)
	}
	if c := newCommands(&Data{Service: NewText("payment", 0)}, rootcause.Window{}, ""); c.SaveTraces != "" {
		t.Errorf("SaveTraces without examples = %q, want none", c.SaveTraces)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "latency.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(golden), "trace-ID.json") || !strings.Contains(string(golden), `do analyze trace --json "$id" > "trace-$id.json"; done`) {
		t.Errorf("latency.golden does not save its example traces with the loop")
	}
}
