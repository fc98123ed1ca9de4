package integrate_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/recollect/recollect/extract"
	"github.com/recollect/recollect/store"
	"github.com/recollect/recollect/store/storetest"
)

// TestCapturedLineGivesSpeakerAndDay pins that a captured fact with no
// speaker or said-at of its own takes them from a "[date] Name: " prefix,
// and its role from "[date] user: " or "assistant: ", and that a labelled note ("Decision: …") or an undated bracket names
// nobody and no day.
func TestCapturedLineGivesSpeakerAndDay(t *testing.T) {
	cases := []struct {
		text, speaker, saidAt, role string
	}{
		{"[2023-05-20] user: I've been practicing guitar for 30 minutes daily.", "", "2023-05-20", "user"},
		{"[2023-05-20] assistant: That's great to hear!", "", "2023-05-20", "assistant"},
		{"Assistant: the tests pass now.", "", "", "assistant"},
		{"The user: a person who runs the tool.", "", "", ""},
		{"[8 May 2023] Caroline: I went to the support group yesterday.", "Caroline", "2023-05-08", ""},
		{"[2024-03-01] Ana Lima: we deploy on Fridays.", "Ana Lima", "2024-03-01", ""},
		{"[1:56 pm on 8 May, 2023] Melanie: Painting calms me down.", "Melanie", "2023-05-08", ""},
		{"Robin: the staging database lives on db2.", "Robin", "", ""},
		{"Decision: we use Postgres for the ledger.", "", "", ""},
		{"[2024-03-01] Note: the ledger runs on Postgres.", "", "2024-03-01", ""},
		{"TODO: rotate the deploy keys.", "", "", ""},
		{"[wip] The cache is warmed on start.", "", "", ""},
		{"The build uses Go 1.26: nothing older compiles it.", "", "", ""},
	}
	for _, c := range cases {
		storetest.Run(t, c.text, func(t *testing.T, db *store.DB) {
			ctx := context.Background()
			err := db.Tx(ctx, func(tx *store.Tx) error {
				_, err := extract.InsertSessionFact(ctx, tx, "cap", "capture", "", extract.Candidate{Content: c.text, Confidence: 0.5, Importance: 0.5})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			run(t, newIntegrator(db, day(20)))
			var speaker, said, role sql.NullString
			if err := db.QueryRowContext(context.Background(), `SELECT speaker, said_at, speaker_role FROM facts`).Scan(&speaker, &said, &role); err != nil {
				t.Fatal(err)
			}
			if role.String != c.role {
				t.Errorf("role %q, want %q", role.String, c.role)
			}
			if speaker.String != c.speaker {
				t.Errorf("speaker %q, want %q", speaker.String, c.speaker)
			}
			gotDay := ""
			if said.Valid {
				at, err := store.ParseTime(said.String)
				if err != nil {
					t.Fatal(err)
				}
				gotDay = at.Format(time.DateOnly)
			}
			if gotDay != c.saidAt {
				t.Errorf("said on %q, want %q", gotDay, c.saidAt)
			}
		})
	}
}
