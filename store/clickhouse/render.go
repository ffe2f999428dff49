package clickhouse

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/faultline/faultline/schema"
)

// migration is one numbered DDL file of schema.DDL.
type migration struct {
	version int
	name    string
	text    string
}

// migrations lists schema.DDL's files in version order.
func migrations() ([]migration, error) {
	files, err := fs.Glob(schema.DDL, schema.DDLDir+"/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	out := make([]migration, 0, len(files))
	for _, f := range files {
		base := path.Base(f)
		num, name, ok := strings.Cut(strings.TrimSuffix(base, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("cannot read migration %q: its name must be NNNN_name.sql", base)
		}
		text, err := fs.ReadFile(schema.DDL, f)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, text: string(text)})
	}
	return out, nil
}

// ddlParams are what a migration template sees.
type ddlParams struct {
	DB        string // quoted database name
	OnCluster string // "ON CLUSTER `name`" or ""
	db        string
	cluster   string
	columns   map[string]map[string]string // table → column → type
}

func newDDLParams(db, cluster string, cols map[string]map[string]string) *ddlParams {
	p := &ddlParams{DB: quoteIdent(db), db: db, cluster: cluster, columns: cols}
	if cluster != "" {
		p.OnCluster = "ON CLUSTER " + quoteIdent(cluster)
	}
	return p
}

func (p *ddlParams) funcs() template.FuncMap {
	return template.FuncMap{
		"local":       p.local,
		"engine":      p.engine,
		"dedup":       p.dedup,
		"distributed": p.distributed,
		"col":         p.col,
	}
}

// local is the name of the table that stores the data: name itself, or
// name_local on a cluster (name is then the Distributed table).
func (p *ddlParams) local(name string) string {
	if p.cluster != "" {
		return quoteIdent(name + "_local")
	}
	return quoteIdent(name)
}

// engine renders a MergeTree-family engine; on a cluster its Replicated form.
func (p *ddlParams) engine(kind string, args ...string) string {
	if p.cluster == "" {
		return kind + "(" + strings.Join(args, ", ") + ")"
	}
	all := append([]string{"'/clickhouse/tables/{shard}/{database}/{table}'", "'{replica}'"}, args...)
	return "Replicated" + kind + "(" + strings.Join(all, ", ") + ")"
}

// dedup adds the setting that makes insert_deduplication_token work on a
// non-replicated table (replicated ones deduplicate by default).
func (p *ddlParams) dedup() string {
	if p.cluster != "" {
		return ""
	}
	return ", non_replicated_deduplication_window = 1000"
}

// distributed renders the Distributed table over name_local on a cluster.
func (p *ddlParams) distributed(name, shardKey string) string {
	if p.cluster == "" {
		return ""
	}
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s.%s %s AS %s.%s\nENGINE = Distributed(%s, %s, %s, %s);",
		p.DB, quoteIdent(name), p.OnCluster, p.DB, p.local(name),
		quoteString(p.cluster), quoteString(p.db), quoteString(name+"_local"), shardKey)
}

// col is column name of table when the table has it, else def: so that a
// view over a Collector table of an older generation still works.
func (p *ddlParams) col(table, name, def string) string {
	if _, ok := p.columns[table][name]; ok {
		return quoteIdent(name)
	}
	return def
}

// render expands a migration into its statements.
func (p *ddlParams) render(m migration) ([]string, error) {
	t, err := template.New(m.name).Funcs(p.funcs()).Parse(m.text)
	if err != nil {
		return nil, fmt.Errorf("cannot parse migration %d %q: %w", m.version, m.name, err)
	}
	var b strings.Builder
	if err := t.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("cannot render migration %d %q: %w", m.version, m.name, err)
	}
	return splitStatements(b.String()), nil
}

// splitStatements cuts SQL text at semicolons that end a line, dropping
// comment lines and empty statements.
func splitStatements(text string) []string {
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			lines = append(lines, l)
		}
	}
	var out []string
	for _, s := range strings.Split(strings.Join(lines, "\n"), ";\n") {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";"))
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func quoteIdent(s string) string {
	return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(s) + "`"
}

func quoteString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
