package web

import (
	"bytes"
	"embed"
	"fmt"
	"github.com/faultline/faultline/correlate"
	"html/template"
	"net/http"

	"github.com/gin-gonic/gin"
)

//go:embed templates
var templateFS embed.FS

// pageNames are the page templates; each is parsed with the shared layout.
func pageNames() []string {
	return []string{"incident", "trace", "traces", "runbook", "error", "login", "search", "deadletters"}
}

// pages holds one parsed template set per page.
type pages struct {
	sets map[string]*template.Template
}

// layout is the data every page gets: the page's own view is Body.
type layout struct {
	Title  string
	Active string
	Auth   bool
	// DeadLetters shows the nav link to the dead-letter page.
	DeadLetters bool
	CSS, JS     string
	Body        any
}

func templateFuncs() template.FuncMap {
	return template.FuncMap{
		"plural": plural,
		"svc":    correlate.ShownService,
		"num":    fmtInt,
		"fmtMs":  fmtMs,
		"pct":    func(f float64) string { return fmt.Sprintf("%.0f%%", clamp01(f)*100) },
		"add":    func(a, b int) int { return a + b },
		"indent": func(n int) string { return fmt.Sprintf("d%d", n) },
		// dict passes several values to a template: dict "K" v "K2" v2.
		"dict": func(kv ...any) (map[string]any, error) {
			if len(kv)%2 != 0 {
				return nil, fmt.Errorf("dict takes key and value pairs")
			}
			m := map[string]any{}
			for i := 0; i < len(kv); i += 2 {
				k, ok := kv[i].(string)
				if !ok {
					return nil, fmt.Errorf("dict keys are strings")
				}
				m[k] = kv[i+1]
			}
			return m, nil
		},
	}
}

func loadPages() (*pages, error) {
	p := &pages{sets: map[string]*template.Template{}}
	for _, name := range pageNames() {
		t, err := template.New("layout.html").Funcs(templateFuncs()).ParseFS(templateFS,
			"templates/layout.html", "templates/partials.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("cannot parse the %s page template: %w", name, err)
		}
		p.sets[name] = t
	}
	return p, nil
}

// render executes a page into a buffer first, so a template error becomes a
// clean 500 rather than half a page.
func (s *server) render(c *gin.Context, status int, name, title string, body any) {
	var buf bytes.Buffer
	data := layout{Title: title, Active: name, Auth: s.cfg.authEnabled(), DeadLetters: s.cfg.DeadLetters != nil,
		CSS: s.assets.url("app.css"), JS: s.assets.url("app.js"), Body: body}
	if err := s.pages.sets[name].Execute(&buf, data); err != nil {
		s.log.Error("cannot render page", "page", name, "err", err)
		if name != "error" {
			s.renderError(c, httpError{http.StatusInternalServerError, "internal error; the details are in the server log"})
			return
		}
		c.Data(http.StatusInternalServerError, "text/plain; charset=utf-8", []byte("internal error\n"))
		return
	}
	c.Header("Cache-Control", "no-store")
	// Log text may hold broken UTF-8; the page must not.
	c.Data(status, "text/html; charset=utf-8", bytes.ToValidUTF8(buf.Bytes(), []byte("\uFFFD")))
	c.Abort()
}

// errorView is what the error page shows.
type errorView struct {
	Status  int
	Text    string
	Message string
}

func (s *server) renderError(c *gin.Context, he httpError) {
	s.render(c, he.status, "error", http.StatusText(he.status), errorView{he.status, http.StatusText(he.status), he.message})
}

// loginView is what the sign-in page shows.
type loginView struct {
	Next         string
	Token, Basic bool
	Message      string
}

func (s *server) renderLogin(c *gin.Context, status int, next, msg string) {
	s.render(c, status, "login", "Sign in", loginView{Next: next, Token: s.cfg.AuthToken != "", Basic: s.cfg.BasicUser != "", Message: msg})
}
