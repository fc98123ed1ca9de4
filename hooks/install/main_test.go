package install_test

import (
	"os"
	"testing"

	"github.com/recollect/recollect/fixtures/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
