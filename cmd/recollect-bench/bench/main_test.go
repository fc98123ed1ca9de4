package bench

import (
	"os"
	"testing"

	"github.com/recollect/recollect/fixtures/testbin"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	closeBenchStores()
	os.Exit(code)
}
