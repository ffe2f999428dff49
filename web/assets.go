package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/gin-gonic/gin"
)

//go:embed static
var staticFS embed.FS

// assets are the embedded static files, each with a content hash for cache busting.
type assets struct {
	files map[string][]byte
	hash  map[string]string
}

func loadAssets() (*assets, error) {
	a := &assets{files: map[string][]byte{}, hash: map[string]string{}}
	err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "static/")
		sum := sha256.Sum256(b)
		a.files[name], a.hash[name] = b, hex.EncodeToString(sum[:6])
		return nil
	})
	return a, err
}

// url is the versioned URL of an asset.
func (a *assets) url(name string) string {
	return "/static/" + name + "?v=" + a.hash[name]
}

// serveAsset serves one embedded file; versioned URLs are cached for a year.
func (s *server) serveAsset(c *gin.Context) {
	name := strings.TrimPrefix(path.Clean(c.Param("path")), "/")
	b, ok := s.assets.files[name]
	if !ok {
		s.fail(c, errNoRoute)
		return
	}
	ct := mime.TypeByExtension(path.Ext(name))
	if ct == "" {
		ct = "application/octet-stream"
	}
	if c.Query("v") == s.assets.hash[name] {
		c.Header("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		c.Header("Cache-Control", "no-cache")
	}
	c.Data(http.StatusOK, ct, b)
}
