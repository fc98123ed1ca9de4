package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The stages write flags (is_subject, is_self, ok, missing) as Go bools
// into integer columns, which SQLite stores as 0 and 1; the schema keeps
// them integers on PostgreSQL too, so that `is_subject = 1` reads the same
// on both. flagInt8Codec lets pgx encode a bool into a bigint as 0 or 1.
type flagInt8Codec struct{ pgtype.Int8Codec }

func (c flagInt8Codec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(bool); ok {
		return flagPlan{next: c.Int8Codec.PlanEncode(m, oid, format, int64(0))}
	}
	return c.Int8Codec.PlanEncode(m, oid, format, value)
}

type flagPlan struct{ next pgtype.EncodePlan }

func (p flagPlan) Encode(value any, buf []byte) ([]byte, error) {
	var n int64
	if value.(bool) {
		n = 1
	}
	return p.next.Encode(n, buf)
}

// registerTypes installs the store's encodings on a new connection.
func registerTypes(_ context.Context, conn *pgx.Conn) error {
	conn.TypeMap().RegisterType(&pgtype.Type{Name: "int8", OID: pgtype.Int8OID, Codec: flagInt8Codec{}})
	return nil
}
