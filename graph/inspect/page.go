package inspect

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"sync"
)

var (
	//go:embed assets/page.html
	pageHTML string
	//go:embed assets/page.css
	pageCSS string
	//go:embed assets/page.js
	pageJS string
)

var pageTmpl = sync.OnceValue(func() *template.Template { return template.Must(template.New("page").Parse(pageHTML)) })

// PageFile is the page's default name inside the data directory.
const PageFile = "inspect.html"

// WritePage renders d as one self-contained HTML document: the CSS, the
// script and the data are inlined, and a Content-Security-Policy forbids
// every network fetch.
func WritePage(w io.Writer, d Data) error {
	// json.Marshal escapes <, > and &, so the data cannot close its script
	// element; template.JS keeps html/template from quoting it again.
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode inspect data: %w", err)
	}
	err = pageTmpl().Execute(w, map[string]any{
		"Title": d.DataDir,
		"CSS":   template.CSS(pageCSS),
		"JS":    template.JS(pageJS),
		"Data":  template.JS(data),
	})
	if err != nil {
		return fmt.Errorf("render inspect page: %w", err)
	}
	return nil
}

// WritePageFile writes the page to path atomically (a temp file renamed
// into place), readable by the owner only: it holds the store's contents.
func WritePageFile(path string, d Data) error {
	var buf bytes.Buffer
	if err := WritePage(&buf, d); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".inspect-*.html")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
