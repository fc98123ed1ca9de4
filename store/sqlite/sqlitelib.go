//go:build cgo

package sqlite

/*
// What recollect asks of the SQLite library itself, beside the driver:
// github.com/mattn/go-sqlite3 compiles SQLite into the binary, and these
// are its functions, declared here as sqlite3.h does.
#include <stdlib.h>

typedef struct sqlite3 sqlite3;
int sqlite3_config(int, ...);
int sqlite3_status(int, int*, int*, int);
int sqlite3_open_v2(const char*, sqlite3**, int, const char*);
int sqlite3_close_v2(sqlite3*);
int sqlite3_busy_timeout(sqlite3*, int);
int sqlite3_exec(sqlite3*, const char*, int (*)(void*, int, char**, char**), void*, char**);
const char *sqlite3_errmsg(sqlite3*);
typedef struct sqlite3_stmt sqlite3_stmt;
int sqlite3_prepare_v2(sqlite3*, const char*, int, sqlite3_stmt**, const char**);
int sqlite3_step(sqlite3_stmt*);
long long sqlite3_column_int64(sqlite3_stmt*, int);
int sqlite3_finalize(sqlite3_stmt*);

// recollect_int64 runs sql on db and reads the first column of its first
// row into *out; it returns SQLite's result code (0 on success; 101,
// SQLITE_DONE, when there is no row).
static int recollect_int64(sqlite3 *db, const char *sql, long long *out) {
	sqlite3_stmt *stmt = 0;
	int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, 0);
	if (rc != 0) {
		return rc;
	}
	rc = sqlite3_step(stmt);
	if (rc == 100) { // SQLITE_ROW
		*out = sqlite3_column_int64(stmt, 0);
		rc = 0;
	}
	sqlite3_finalize(stmt);
	return rc;
}

// sqlite3_config is variadic, which cgo cannot call: the one option
// (SQLITE_CONFIG_MEMSTATUS is 9) goes through this wrapper.
static int recollect_memstatus_off(void) { return sqlite3_config(9, 0); }

// recollect_memory_counted is the bytes SQLite counts as allocated now
// (SQLITE_STATUS_MEMORY_USED is 0): always 0 while statistics are off.
static int recollect_memory_counted(void) {
	int now = 0, high = 0;
	sqlite3_status(0, &now, &high, 0);
	return now;
}

// FTS5's interface for auxiliary functions, as fts5.h declares it, up to
// the members recollect calls.
typedef struct sqlite3_context sqlite3_context;
typedef struct sqlite3_value sqlite3_value;
typedef struct Fts5Context Fts5Context;
typedef struct Fts5ExtensionApi Fts5ExtensionApi;
typedef struct Fts5PhraseIter Fts5PhraseIter;
struct Fts5PhraseIter {
	const unsigned char *a;
	const unsigned char *b;
};
struct Fts5ExtensionApi {
	int iVersion;
	void *(*xUserData)(Fts5Context*);
	int (*xColumnCount)(Fts5Context*);
	int (*xRowCount)(Fts5Context*, long long *pnRow);
	int (*xColumnTotalSize)(Fts5Context*, int iCol, long long *pnToken);
	int (*xTokenize)(Fts5Context*, const char *pText, int nText, void *pCtx,
		int (*xToken)(void*, int, const char*, int, int, int));
	int (*xPhraseCount)(Fts5Context*);
	int (*xPhraseSize)(Fts5Context*, int iPhrase);
	int (*xInstCount)(Fts5Context*, int *pnInst);
	int (*xInst)(Fts5Context*, int iIdx, int *piPhrase, int *piCol, int *piOff);
	long long (*xRowid)(Fts5Context*);
	int (*xColumnText)(Fts5Context*, int iCol, const char **pz, int *pn);
	int (*xColumnSize)(Fts5Context*, int iCol, int *pnToken);
	int (*xQueryPhrase)(Fts5Context*, int iPhrase, void *pUserData,
		int (*)(const Fts5ExtensionApi*, Fts5Context*, void*));
	int (*xSetAuxdata)(Fts5Context*, void *pAux, void (*xDelete)(void*));
	void *(*xGetAuxdata)(Fts5Context*, int bClear);
	int (*xPhraseFirst)(Fts5Context*, int iPhrase, Fts5PhraseIter*, int*, int*);
	void (*xPhraseNext)(Fts5Context*, Fts5PhraseIter*, int *piCol, int *piOff);
};
typedef void (*fts5_extension_function)(const Fts5ExtensionApi*, Fts5Context*,
	sqlite3_context*, int, sqlite3_value**);
typedef struct fts5_api fts5_api;
struct fts5_api {
	int iVersion;
	int (*xCreateTokenizer)(fts5_api*, const char*, void*, void*, void (*)(void*));
	int (*xFindTokenizer)(fts5_api*, const char*, void**, void*);
	int (*xCreateFunction)(fts5_api*, const char*, void*, fts5_extension_function, void (*)(void*));
};
typedef struct sqlite3_api_routines sqlite3_api_routines;
int sqlite3_auto_extension(void (*)(void));
int sqlite3_bind_pointer(sqlite3_stmt*, int, void*, const char*, void (*)(void*));
const unsigned char *sqlite3_value_text(sqlite3_value*);
void *sqlite3_malloc64(unsigned long long);
void sqlite3_free(void*);
void sqlite3_result_double(sqlite3_context*, double);
void sqlite3_result_null(sqlite3_context*);
int sqlite3_value_int(sqlite3_value*);
void sqlite3_result_error(sqlite3_context*, const char*, int);
void sqlite3_result_error_code(sqlite3_context*, int);
void *sqlite3_realloc64(void*, unsigned long long);
void sqlite3_result_blob64(sqlite3_context*, const void*, unsigned long long, void(*)(void*));
int sqlite3_create_function(sqlite3*, const char*, int, int, void*,
	void (*)(sqlite3_context*, int, sqlite3_value**),
	void (*)(sqlite3_context*, int, sqlite3_value**),
	void (*)(sqlite3_context*));
void *sqlite3_aggregate_context(sqlite3_context*, int);
long long sqlite3_value_int64(sqlite3_value*);
const void *sqlite3_value_blob(sqlite3_value*);
int sqlite3_value_bytes(sqlite3_value*);
#include <math.h>
#include <string.h>

// recollect_idf is bm25()'s inverse document frequency of a phrase that
// hits of rows rows match: log((rows − hits + ½)/(hits + ½)), at least
// 1e-6. recollect_bm25 weighs each phrase by it, and recollect's own
// ranking of the postings it keeps (postings.go) calls it through cgo,
// so both take the logarithm from the same C library, to the bit.
static double recollect_idf(long long rows, long long hits) {
	double idf = log((rows - hits + 0.5) / (hits + 0.5));
	if (idf <= 0.0) idf = 1e-6;
	return idf;
}

// recollect_bm25_data is what recollect_bm25 computes once per query,
// and the best k scores it has computed so far (a min-heap of n of them).
typedef struct {
	int phrases;
	double avgdl;
	double *idf;
	double *freq;
	int k, n;
	double *best;
	// The last row answered, and its answer (null: passed over), for a
	// statement that asks again for the same row: its score enters the
	// best k once.
	int answered, null;
	long long rowid;
	double result;
} recollect_bm25_data;

// recollect_bm25_keep adds score to the heap of the best k scores.
static void recollect_bm25_keep(recollect_bm25_data *p, double score) {
	double *h = p->best;
	int i;
	if (p->n < p->k) {
		i = p->n++;
		while (i > 0 && h[(i-1)/2] > score) {
			h[i] = h[(i-1)/2];
			i = (i-1)/2;
		}
		h[i] = score;
		return;
	}
	if (score <= h[0]) return;
	i = 0;
	for (;;) {
		int c = 2*i + 1;
		if (c >= p->n) break;
		if (c+1 < p->n && h[c+1] < h[c]) c++;
		if (h[c] >= score) break;
		h[i] = h[c];
		i = c;
	}
	h[i] = score;
}

// recollect_bm25 is FTS5's bm25() with every column weighing 1, to the
// bit, except where each phrase's count of matching rows comes from: its
// first argument, the counts as decimal numbers separated by spaces in
// the order of the query's phrases, in place of reading every phrase's
// matches again (bm25() reads them all on a query's first row). recollect
// reads the counts from facts_fts_vocab before it ranks, so a query's
// common words are read once instead of once per statement.
//
// A second argument k says the statement keeps only the best k scores
// (ORDER BY score LIMIT k): a row that cannot reach them is then NULL,
// which sorts after every score, without its length being read (a seek
// into the index's table of row sizes, most of a row's cost). The row's
// score is bounded by the score it would have were it of no length: a
// longer row's every term divides by a larger number, and rounding keeps
// that order, so the bound is never below the score. A row is passed
// over only once k rows are scored and its bound is below the least of
// the best k scores so far, which is at most the k-th best of all: the
// best k are the same rows with the same scores as without k.
static void recollect_bm25(const Fts5ExtensionApi *api, Fts5Context *fts,
		sqlite3_context *ctx, int nval, sqlite3_value **val) {
	const double k1 = 1.2;
	const double b = 0.75;
	recollect_bm25_data *p = (recollect_bm25_data*)api->xGetAuxdata(fts, 0);
	int rc = 0;
	if (p == 0) {
		int n = api->xPhraseCount(fts);
		long long rows = 0, tokens = 0;
		const char *counts = (nval == 1 || nval == 2) ? (const char*)sqlite3_value_text(val[0]) : 0;
		if (counts == 0) {
			sqlite3_result_error(ctx, "recollect_bm25: want the phrases' counts of matching rows, and optionally how many best scores the statement keeps", -1);
			return;
		}
		int k = nval == 2 ? sqlite3_value_int(val[1]) : 0;
		if (k < 0) k = 0;
		unsigned long long size = sizeof(recollect_bm25_data) + (2*(unsigned long long)n + (unsigned long long)k)*sizeof(double);
		p = (recollect_bm25_data*)sqlite3_malloc64(size);
		if (p == 0) {
			sqlite3_result_error_code(ctx, 7); // SQLITE_NOMEM
			return;
		}
		memset(p, 0, size);
		p->phrases = n;
		p->idf = (double*)&p[1];
		p->freq = &p->idf[n];
		p->k = k;
		p->best = &p->freq[n];
		rc = api->xRowCount(fts, &rows);
		if (rc == 0) rc = api->xColumnTotalSize(fts, -1, &tokens);
		if (rc == 0) p->avgdl = (double)tokens / (double)rows;
		for (int i = 0; rc == 0 && i < n; i++) {
			char *end = 0;
			long long hits = strtoll(counts, &end, 10);
			if (end == counts || hits < 0) {
				sqlite3_free(p);
				sqlite3_result_error(ctx, "recollect_bm25: fewer counts than the query has phrases", -1);
				return;
			}
			counts = end;
			p->idf[i] = recollect_idf(rows, hits);
		}
		if (rc == 0) {
			while (*counts == ' ') counts++;
			if (*counts != 0) {
				sqlite3_free(p);
				sqlite3_result_error(ctx, "recollect_bm25: more counts than the query has phrases", -1);
				return;
			}
			rc = api->xSetAuxdata(fts, p, sqlite3_free);
		} else {
			sqlite3_free(p);
		}
		if (rc != 0) {
			sqlite3_result_error_code(ctx, rc);
			return;
		}
	}
	long long rowid = api->xRowid(fts);
	if (p->answered && p->rowid == rowid) {
		if (p->null) {
			sqlite3_result_null(ctx);
		} else {
			sqlite3_result_double(ctx, p->result);
		}
		return;
	}
	int inst = 0;
	memset(p->freq, 0, sizeof(double) * p->phrases);
	rc = api->xInstCount(fts, &inst);
	for (int i = 0; rc == 0 && i < inst; i++) {
		int ip, ic, io;
		rc = api->xInst(fts, i, &ip, &ic, &io);
		if (rc == 0) p->freq[ip] += 1.0;
	}
	if (rc != 0) {
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	if (p->k > 0 && p->n == p->k) {
		// The score of the row were it of no length (D = 0 below).
		double bound = 0.0;
		for (int i = 0; i < p->phrases; i++) {
			bound += p->idf[i] * (
				(p->freq[i] * (k1 + 1.0)) /
				(p->freq[i] + k1 * (1 - b + b * 0.0 / p->avgdl))
			);
		}
		if (bound < p->best[0]) {
			p->answered = 1, p->null = 1, p->rowid = rowid;
			sqlite3_result_null(ctx);
			return;
		}
	}
	double D = 0.0;
	int tok;
	rc = api->xColumnSize(fts, -1, &tok);
	D = (double)tok;
	if (rc != 0) {
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	double score = 0.0;
	for (int i = 0; i < p->phrases; i++) {
		score += p->idf[i] * (
			(p->freq[i] * (k1 + 1.0)) /
			(p->freq[i] + k1 * (1 - b + b * D / p->avgdl))
		);
	}
	if (p->k > 0) recollect_bm25_keep(p, score);
	p->answered = 1, p->null = 0, p->rowid = rowid, p->result = -1.0 * score;
	sqlite3_result_double(ctx, -1.0 * score);
}

// recollect_postings_buf is a blob being built: n bytes of cap written,
// err set once growing it failed.
typedef struct {
	unsigned char *p;
	unsigned long long n, cap;
	int err;
} recollect_postings_buf;

// recollect_postings_grow makes room for more bytes in b; 0 when it
// cannot.
static int recollect_postings_grow(recollect_postings_buf *b, unsigned long long more) {
	if (b->n + more <= b->cap) return 1;
	unsigned long long cap = b->cap ? 2*b->cap : 4096;
	unsigned char *p = (unsigned char*)sqlite3_realloc64(b->p, cap);
	if (p == 0) return 0;
	b->p = p, b->cap = cap;
	return 1;
}

// recollect_postings_list is the postings recollect_postings builds:
// the blob so far, the rows written, and the last one's rowid.
typedef struct {
	recollect_postings_buf b;
	unsigned long long rows;
	long long last;
} recollect_postings_list;

// recollect_uvarint writes v at p as Go's encoding/binary writes an
// unsigned varint (seven bits a byte, low bits first, the high bit set on
// every byte but the last) and returns the bytes written, at most 10.
static int recollect_uvarint(unsigned char *p, unsigned long long v) {
	int n = 0;
	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

// recollect_postings_row appends the row the phrase's query is on: its
// rowid less the last row's (the first row's from 0) and the phrase's
// instances in it, each an unsigned varint. xQueryPhrase visits the rows
// in ascending rowid order; a rowid that is not above the last (or is
// negative) is refused rather than written as a wrong difference.
static int recollect_postings_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *u) {
	recollect_postings_list *l = (recollect_postings_list*)u;
	long long rowid = api->xRowid(fts);
	if (rowid < 0 || (l->rows > 0 && rowid <= l->last)) return 1; // SQLITE_ERROR
	// The instances, counted by walking the phrase's positions: what
	// xInstCount counts for a query of one phrase, without building the
	// array of every instance it keeps for xInst.
	int inst = 0, col = 0, off = 0;
	Fts5PhraseIter it;
	int rc = api->xPhraseFirst(fts, 0, &it, &col, &off);
	if (rc != 0) return rc;
	for (; col >= 0; api->xPhraseNext(fts, &it, &col, &off)) inst++;
	if (!recollect_postings_grow(&l->b, 20)) return 7; // SQLITE_NOMEM
	unsigned long long delta = (unsigned long long)(rowid - (l->rows > 0 ? l->last : 0));
	l->b.n += recollect_uvarint(l->b.p + l->b.n, delta);
	l->b.n += recollect_uvarint(l->b.p + l->b.n, (unsigned long long)inst);
	l->rows++, l->last = rowid;
	return 0;
}

// recollect_postings is the postings of a query of one phrase, as a blob:
// the number of rows the phrase matches (8 bytes, in the machine's byte
// order), then for each of them in rowid order its rowid's step from the
// last and the phrase's instances in it (see recollect_postings_row): the
// rows xQueryPhrase reads, as bm25() reads them to count them. Two or
// three bytes a row where twelve held a rowid and a count whole: the
// blob is copied into the reader's memory, and at a million facts a
// common word's ran to megabytes. A statement asks for one row of the
// query and reads the rest from it.
static void recollect_postings(const Fts5ExtensionApi *api, Fts5Context *fts,
		sqlite3_context *ctx, int nval, sqlite3_value **val) {
	recollect_postings_list l;
	(void)val;
	memset(&l, 0, sizeof l);
	if (nval != 0 || api->xPhraseCount(fts) != 1) {
		sqlite3_result_error(ctx, "recollect_postings: want a query of one phrase, and no argument", -1);
		return;
	}
	if (!recollect_postings_grow(&l.b, 8)) {
		sqlite3_result_error_code(ctx, 7); // SQLITE_NOMEM
		return;
	}
	l.b.n = 8;
	int rc = api->xQueryPhrase(fts, 0, &l, recollect_postings_row);
	if (rc == 1) {
		sqlite3_free(l.b.p);
		sqlite3_result_error(ctx, "recollect_postings: the phrase's rows did not come in ascending rowid order", -1);
		return;
	}
	if (rc != 0) {
		sqlite3_free(l.b.p);
		sqlite3_result_error_code(ctx, rc);
		return;
	}
	memcpy(l.b.p, &l.rows, 8);
	sqlite3_result_blob64(ctx, l.b.p, l.b.n, sqlite3_free);
}

// recollect_lengths_step adds a row of an FTS5 index's table of row
// sizes (its id, and sz: a varint of tokens per column) to the blob
// recollect_lengths builds: the id (8 bytes) and the row's tokens over
// every column (4), as xColumnSize(-1) sums them, in the machine's byte
// order.
static void recollect_lengths_step(sqlite3_context *ctx, int nval, sqlite3_value **val) {
	recollect_postings_buf *b = (recollect_postings_buf*)sqlite3_aggregate_context(ctx, sizeof(recollect_postings_buf));
	if (b == 0) {
		sqlite3_result_error_code(ctx, 7); // SQLITE_NOMEM
		return;
	}
	if (b->err) return; // growing failed on an earlier row
	long long id = sqlite3_value_int64(val[0]);
	const unsigned char *sz = (const unsigned char*)sqlite3_value_blob(val[1]);
	int n = sqlite3_value_bytes(val[1]);
	unsigned long long total = 0;
	for (int at = 0; at < n; ) {
		unsigned long long v = 0;
		int i = 0;
		for (; at + i < n && i < 9; i++) {
			unsigned char c = sz[at + i];
			if (i == 8) {
				v = (v << 8) | c;
				i++;
				break;
			}
			v = (v << 7) | (c & 0x7f);
			if (c < 0x80) {
				i++;
				break;
			}
		}
		total += v;
		at += i;
	}
	int tok = (int)total;
	if (!recollect_postings_grow(b, 12)) {
		b->err = 1;
		return;
	}
	memcpy(b->p + b->n, &id, 8);
	memcpy(b->p + b->n + 8, &tok, 4);
	b->n += 12;
}

// recollect_lengths is the rows recollect_lengths_step was given, as one
// blob of 12 bytes a row, in the order they came.
static void recollect_lengths_final(sqlite3_context *ctx) {
	recollect_postings_buf *b = (recollect_postings_buf*)sqlite3_aggregate_context(ctx, 0);
	if (b == 0 || b->p == 0) {
		sqlite3_result_blob64(ctx, "", 0, 0);
		return;
	}
	if (b->err) {
		sqlite3_free(b->p);
		sqlite3_result_error_code(ctx, 7); // SQLITE_NOMEM
		return;
	}
	sqlite3_result_blob64(ctx, b->p, b->n, sqlite3_free);
}

// recollect_fts5_functions adds recollect_bm25 to each new connection: it
// is SQLite's entry point of an extension, registered for every
// connection the process opens (sqlite3_auto_extension).
static int recollect_fts5_functions(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
	fts5_api *fts = 0;
	sqlite3_stmt *stmt = 0;
	(void)err;
	(void)api;
	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, 0) != 0) {
		return 0; // a build without FTS5 has nothing to add to
	}
	sqlite3_bind_pointer(stmt, 1, (void*)&fts, "fts5_api_ptr", 0);
	sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (fts == 0 || fts->iVersion < 2) {
		return 0;
	}
	// SQLITE_UTF8 (1) | SQLITE_DETERMINISTIC (0x800)
	int rc = sqlite3_create_function(db, "recollect_lengths", 2, 0x801, 0, 0, recollect_lengths_step, recollect_lengths_final);
	if (rc != 0) {
		return rc;
	}
	rc = fts->xCreateFunction(fts, "recollect_bm25", 0, recollect_bm25, 0);
	if (rc != 0) {
		return rc;
	}
	return fts->xCreateFunction(fts, "recollect_postings", 0, recollect_postings, 0);
}

static int recollect_register_fts5_functions(void) {
	return sqlite3_auto_extension((void (*)(void))recollect_fts5_functions);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/mattn/go-sqlite3" // SQLite itself
)

// init turns off SQLite's allocation statistics before the library
// starts. With them on (the driver's default build), every allocation of
// every connection takes one process-wide mutex to keep the counters; a
// search's arms run side by side on connections of their own, each
// parsing the schema when it opens and building its statements, so a new
// handle's first search would spend much of its time waiting on that
// mutex. Nothing in recollect
// reads the statistics. SQLite refuses the call once it has started
// (SQLITE_MISUSE), which can only mean a database was opened before this
// package's init: the setting then stays as it was, which changes speed,
// never behaviour.
//
// It also registers recollect_bm25 (see sqlite_topk.go) for every
// connection the process opens.
func init() {
	C.recollect_memstatus_off()
	C.recollect_register_fts5_functions()
}

// exactIDF is bm25()'s inverse document frequency of a word hits of rows
// facts hold, computed by the C function recollect_bm25 uses (recollect_idf),
// so a score summed here equals recollect_bm25's to the bit.
func exactIDF(rows, hits int64) float64 {
	return float64(C.recollect_idf(C.longlong(rows), C.longlong(hits)))
}

// allocationsCounted reports whether SQLite keeps allocation statistics:
// with a database open, it counts the memory the connection holds.
func allocationsCounted() bool { return C.recollect_memory_counted() != 0 }

// sqliteOpenReadWrite is SQLITE_OPEN_READWRITE.
const sqliteOpenReadWrite = 0x2

// pin is a connection of SQLite's own, outside database/sql's pool, kept
// open for a handle's life so that SQLite never deletes the WAL while this
// process runs (see fileWatch). It runs one statement, PRAGMA
// user_version, which reads the file's header but not its schema: a
// connection of the driver's parses the whole schema when it opens (the
// driver sets PRAGMA synchronous, which needs it), and a pooled
// connection held as the pin would be one the first search has to open
// again.
type pin struct{ db *C.sqlite3 }

// openPin opens path (a plain file name, not a URI) read-write and reads
// the header, which opens the WAL and its index on the connection. busyMS
// is how long the read waits on a writer's recovery lock.
func openPin(path string, busyMS int) (*pin, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	p := &pin{}
	if rc := C.sqlite3_open_v2(cpath, &p.db, sqliteOpenReadWrite, nil); rc != 0 {
		err := p.err(rc)
		p.close()
		return nil, err
	}
	C.sqlite3_busy_timeout(p.db, C.int(busyMS))
	csql := C.CString("PRAGMA user_version")
	defer C.free(unsafe.Pointer(csql))
	if rc := C.sqlite3_exec(p.db, csql, nil, nil, nil); rc != 0 {
		err := p.err(rc)
		p.close()
		return nil, err
	}
	return p, nil
}

// err is SQLite's message for a failed call on the pin.
func (p *pin) err(rc C.int) error {
	if p.db == nil {
		return fmt.Errorf("sqlite error %d", int(rc))
	}
	return errors.New(C.GoString(C.sqlite3_errmsg(p.db)))
}

// dataVersion is PRAGMA data_version on the pin: a number that changes
// whenever another connection — of this process's pool or of another
// process — commits to the database. The pin itself never writes.
func (p *pin) dataVersion() (int64, error) {
	return p.readInt("PRAGMA data_version")
}

// knowledgeVersion is knowledge_version's number read on the pin: it
// changes with every commit that writes what the search caches derive
// from (see migration v30), and with no other.
func (p *pin) knowledgeVersion() (int64, error) {
	return p.readInt("SELECT n FROM knowledge_version")
}

// readInt runs a statement on the pin and reads the first column of its
// one row.
func (p *pin) readInt(query string) (int64, error) {
	csql := C.CString(query)
	defer C.free(unsafe.Pointer(csql))
	var v C.longlong
	switch rc := C.recollect_int64(p.db, csql, &v); rc {
	case 0:
		return int64(v), nil
	case 101: // SQLITE_DONE: no row
		return 0, fmt.Errorf("%s read no row", query)
	default:
		return 0, p.err(rc)
	}
}

// close closes the connection; the last connection of the store to close
// checkpoints the WAL and removes it, as a pooled one would.
func (p *pin) close() error {
	if p == nil || p.db == nil {
		return nil
	}
	rc := C.sqlite3_close_v2(p.db)
	if rc != 0 {
		return fmt.Errorf("sqlite error %d", int(rc))
	}
	p.db = nil
	return nil
}

// busy reports whether err is SQLite's "database is busy" or "locked".
func busy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}
