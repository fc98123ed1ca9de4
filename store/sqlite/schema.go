package sqlite

// migrations holds the schema, one entry per version. Entry i moves a store
// from user_version i to i+1. Entries are append-only: a released migration is
// never edited, because stores in the wild were built by it.
var migrations = []string{
	// v1 — sessions and the D layer: raw events copied or recorded.
	`
CREATE TABLE sessions (
	id              TEXT PRIMARY KEY,
	source          TEXT NOT NULL,
	project         TEXT,
	transcript_path TEXT,
	first_at        TEXT,
	last_at         TEXT,
	created_at      TEXT NOT NULL
);

CREATE TABLE session_events (
	seq           INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id    TEXT NOT NULL REFERENCES sessions(id),
	source        TEXT NOT NULL CHECK (source IN ('claude-code','cursor','record','mcp')),
	source_file   TEXT,
	source_offset INTEGER,
	role          TEXT NOT NULL CHECK (role IN ('user','assistant','system','tool')),
	speaker       TEXT,
	event_type    TEXT NOT NULL CHECK (event_type IN ('message','tool_call','tool_result','artifact')),
	content_type  TEXT NOT NULL CHECK (content_type IN ('text','json','image','audio','binary')),
	content       TEXT NOT NULL,
	content_ref   TEXT,
	metadata      TEXT,
	occurred_at   TEXT,
	recorded_at   TEXT NOT NULL,
	dedupe_key    TEXT UNIQUE
);
CREATE INDEX session_events_session ON session_events(session_id, seq);
CREATE INDEX session_events_file ON session_events(source_file, source_offset);

CREATE VIRTUAL TABLE events_fts USING fts5(
	content, content='session_events', content_rowid='seq', tokenize='porter unicode61'
);
CREATE TRIGGER session_events_ai AFTER INSERT ON session_events BEGIN
	INSERT INTO events_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER session_events_ad AFTER DELETE ON session_events BEGIN
	INSERT INTO events_fts(events_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER session_events_au AFTER UPDATE OF content ON session_events BEGIN
	INSERT INTO events_fts(events_fts, rowid, content) VALUES ('delete', old.seq, old.content);
	INSERT INTO events_fts(rowid, content) VALUES (new.seq, new.content);
END;

-- Copy progress per transcript file; committed with the events it covers.
CREATE TABLE source_files (
	path        TEXT PRIMARY KEY,
	kind        TEXT NOT NULL,
	session_id  TEXT,
	fingerprint TEXT NOT NULL DEFAULT '',
	size        INTEGER NOT NULL DEFAULT 0,
	offset      INTEGER NOT NULL DEFAULT 0,
	lines       INTEGER NOT NULL DEFAULT 0,
	missing     INTEGER NOT NULL DEFAULT 0,
	updated_at  TEXT NOT NULL
);

-- Record types read but not stored, counted so nothing is dropped silently.
CREATE TABLE skipped_records (
	source      TEXT NOT NULL,
	record_type TEXT NOT NULL,
	count       INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (source, record_type)
);

-- Secrets replaced before storage, counted per kind.
CREATE TABLE redactions (
	kind  TEXT PRIMARY KEY,
	count INTEGER NOT NULL DEFAULT 0
);
`,
	// v2 — the I layer: facts extracted from events, pending integration.
	`
CREATE TABLE session_facts (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id      TEXT NOT NULL,
	content         TEXT NOT NULL,
	digest          TEXT NOT NULL,
	confidence      REAL NOT NULL DEFAULT 0.5,
	importance      REAL NOT NULL DEFAULT 0.5,
	domain_hint     TEXT,
	capture_context TEXT,
	speaker_role    TEXT,
	speaker         TEXT,
	producer        TEXT NOT NULL CHECK (producer IN ('capture','heuristic','cli','http','ollama')),
	model           TEXT,
	event_ids       TEXT NOT NULL DEFAULT '[]',
	entities        TEXT,
	valid_from      TEXT,
	valid_until     TEXT,
	said_at         TEXT,
	status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','claimed','integrated','merged','rejected')),
	claim_token     TEXT,
	fact_id         INTEGER,
	created_at      TEXT NOT NULL,
	UNIQUE (session_id, digest)
);
CREATE INDEX session_facts_status ON session_facts(status, id);

CREATE VIRTUAL TABLE session_facts_fts USING fts5(
	content, content='session_facts', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER session_facts_ai AFTER INSERT ON session_facts BEGIN
	INSERT INTO session_facts_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER session_facts_ad AFTER DELETE ON session_facts BEGIN
	INSERT INTO session_facts_fts(session_facts_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER session_facts_au AFTER UPDATE OF content ON session_facts BEGIN
	INSERT INTO session_facts_fts(session_facts_fts, rowid, content) VALUES ('delete', old.id, old.content);
	INSERT INTO session_facts_fts(rowid, content) VALUES (new.id, new.content);
END;

-- Extraction progress per conversation: events with seq <= last_seq are examined.
CREATE TABLE extract_watermarks (
	session_id           TEXT PRIMARY KEY,
	last_seq             INTEGER NOT NULL DEFAULT 0,
	consecutive_failures INTEGER NOT NULL DEFAULT 0,
	last_error           TEXT,
	last_error_at        TEXT,
	updated_at           TEXT NOT NULL
);
`,
	// v3 — the K layer: integrated knowledge, entities and the graph.
	`
CREATE TABLE domains (
	name       TEXT PRIMARY KEY,
	created_at TEXT NOT NULL
);

CREATE TABLE facts (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	content       TEXT NOT NULL,
	digest        TEXT NOT NULL,
	domain        TEXT NOT NULL DEFAULT 'general',
	subdomain     TEXT,
	confidence    REAL NOT NULL DEFAULT 0.5,
	importance    REAL NOT NULL DEFAULT 0.5,
	status        TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','superseded','rejected')),
	superseded_by INTEGER REFERENCES facts(id),
	producer      TEXT NOT NULL,
	speaker_role  TEXT,
	speaker       TEXT,
	session_id    TEXT,
	said_at       TEXT,
	valid_from    TEXT,
	valid_until   TEXT,
	recorded_at   TEXT NOT NULL,
	retracted_at  TEXT
);
CREATE INDEX facts_status ON facts(status, domain);
CREATE INDEX facts_digest ON facts(digest);

CREATE TRIGGER facts_content_immutable BEFORE UPDATE OF content ON facts BEGIN
	SELECT RAISE(ABORT, 'facts are immutable: supersede instead of editing content');
END;

CREATE VIRTUAL TABLE facts_fts USING fts5(
	content, content='facts', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER facts_ai AFTER INSERT ON facts BEGIN
	INSERT INTO facts_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER facts_ad AFTER DELETE ON facts BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;

-- Where a fact came from: the I facts merged into it and the events they cite.
CREATE TABLE fact_provenance (
	fact_id         INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	session_fact_id INTEGER REFERENCES session_facts(id) ON DELETE SET NULL,
	event_seq       INTEGER,
	session_id      TEXT,
	said_at         TEXT,
	added_at        TEXT NOT NULL
);
CREATE INDEX fact_provenance_fact ON fact_provenance(fact_id);
CREATE INDEX fact_provenance_event ON fact_provenance(event_seq);

CREATE TABLE entities (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	type       TEXT NOT NULL DEFAULT 'thing',
	name       TEXT NOT NULL,
	canonical  TEXT NOT NULL,
	fold       TEXT NOT NULL,
	is_self    INTEGER NOT NULL DEFAULT 0,
	created_at TEXT NOT NULL,
	UNIQUE (canonical, type)
);
CREATE INDEX entities_fold ON entities(fold);
CREATE UNIQUE INDEX entities_one_self ON entities(is_self) WHERE is_self = 1;

CREATE TABLE entity_aliases (
	entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
	alias     TEXT NOT NULL,
	fold      TEXT NOT NULL,
	PRIMARY KEY (entity_id, alias)
);
CREATE INDEX entity_aliases_fold ON entity_aliases(fold);

CREATE TABLE fact_entities (
	fact_id    INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	entity_id  INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
	role       TEXT NOT NULL DEFAULT 'mention',
	is_subject INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (fact_id, entity_id, role)
);
CREATE INDEX fact_entities_entity ON fact_entities(entity_id);

-- Undirected edges are stored with a_id < b_id.
CREATE TABLE entity_edges (
	a_id       INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
	b_id       INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
	relation   TEXT NOT NULL DEFAULT 'co_mention',
	strength   REAL NOT NULL DEFAULT 1,
	fact_id    INTEGER REFERENCES facts(id) ON DELETE SET NULL,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (a_id, b_id, relation)
);
CREATE INDEX entity_edges_b ON entity_edges(b_id);

-- A vector belongs to a space: (provider, model, dim).
CREATE TABLE embeddings (
	fact_id    INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	provider   TEXT NOT NULL,
	model      TEXT NOT NULL,
	dim        INTEGER NOT NULL,
	vector     BLOB NOT NULL,
	created_at TEXT NOT NULL,
	PRIMARY KEY (fact_id, provider, model, dim)
);

-- Two new facts that claimed the same old one; the loser waits here.
CREATE TABLE conflicts (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	fact_id     INTEGER REFERENCES facts(id) ON DELETE CASCADE,
	other_id    INTEGER REFERENCES facts(id) ON DELETE CASCADE,
	target_id   INTEGER REFERENCES facts(id) ON DELETE CASCADE,
	reason      TEXT,
	created_at  TEXT NOT NULL,
	resolved_at TEXT
);

-- Forgotten facts: content-free, the digest stops re-extraction.
CREATE TABLE tombstones (
	digest     TEXT PRIMARY KEY,
	fact_id    INTEGER,
	actor      TEXT NOT NULL,
	reason     TEXT,
	created_at TEXT NOT NULL
);

-- Rolling summaries written by the summarise step, read by the briefing.
CREATE TABLE summaries (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	summary      TEXT NOT NULL,
	open_threads TEXT NOT NULL DEFAULT '[]',
	created_at   TEXT NOT NULL
);
`,
	// v4 — operations: runs, model spend, stage health, the mutation log.
	`
CREATE TABLE runs (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	trigger     TEXT NOT NULL,
	started_at  TEXT NOT NULL,
	finished_at TEXT,
	summary     TEXT
);

CREATE TABLE spend (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	run_id        INTEGER,
	stage         TEXT NOT NULL,
	provider      TEXT NOT NULL,
	model         TEXT,
	input_tokens  INTEGER,
	output_tokens INTEGER,
	elapsed_ms    INTEGER NOT NULL,
	ok            INTEGER NOT NULL DEFAULT 1,
	created_at    TEXT NOT NULL
);
CREATE INDEX spend_time ON spend(created_at);

CREATE TABLE stage_health (
	stage                TEXT NOT NULL,
	provider             TEXT NOT NULL,
	consecutive_failures INTEGER NOT NULL DEFAULT 0,
	last_error           TEXT,
	last_error_at        TEXT,
	last_ok_at           TEXT,
	PRIMARY KEY (stage, provider)
);

CREATE TABLE mutation_log (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	op         TEXT NOT NULL,
	target     TEXT NOT NULL,
	actor      TEXT NOT NULL,
	reason     TEXT,
	detail     TEXT,
	created_at TEXT NOT NULL
);
CREATE INDEX mutation_log_target ON mutation_log(target);

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
`,
	// v5 — copy progress: where a rewritten transcript's earlier read ended,
	// so a re-read cut short by a crash resumes without doubling lines.
	`
ALTER TABLE source_files ADD COLUMN reread_until INTEGER NOT NULL DEFAULT 0;
`,
	// v6 — indexes for context ranking in search: facts by speaker, and a
	// conversation's facts in event order.
	`
CREATE INDEX facts_speaker ON facts(speaker);
CREATE INDEX fact_provenance_session ON fact_provenance(session_id, event_seq);
`,
	// v7 — an entity's facts in the entity arm's reading order (subject
	// first, newest first), so search reads a common entity's first few
	// hundred facts without visiting the rest. It replaces the index on
	// entity_id alone, of which it is an extension.
	`
CREATE INDEX fact_entities_entity_rank ON fact_entities(entity_id, is_subject, fact_id);
DROP INDEX fact_entities_entity;
`,
	// v8 — provenance indexes that hold the columns search reads, so a
	// fact's events and a conversation's neighbours are read from the
	// index alone. Each replaces the index it extends.
	`
CREATE INDEX fact_provenance_fact_seq ON fact_provenance(fact_id, event_seq, session_id);
DROP INDEX fact_provenance_fact;
CREATE INDEX fact_provenance_session_seq ON fact_provenance(session_id, event_seq, fact_id);
DROP INDEX fact_provenance_session;
`,
	// v9 — a sign code per stored vector (one bit per component, 96 bytes
	// for 768 dimensions) in a table of its own, so the semantic arm loads
	// every code of a space without reading the vectors, and a counter of
	// codes removed or rewritten, so an index cached in memory knows when
	// its incremental reads are no longer enough. Those reads go by id,
	// which AUTOINCREMENT never reuses and VACUUM never renumbers (a bare
	// rowid may be both). Codes follow their vectors: deleting a vector
	// deletes its code.
	`
CREATE TABLE vector_codes (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	fact_id  INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	provider TEXT NOT NULL,
	model    TEXT NOT NULL,
	dim      INTEGER NOT NULL,
	code     BLOB NOT NULL,
	UNIQUE (fact_id, provider, model, dim)
);
CREATE TABLE vector_code_changes (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	removed INTEGER NOT NULL
);
INSERT INTO vector_code_changes VALUES (1, 0);
CREATE TRIGGER vector_codes_deleted AFTER DELETE ON vector_codes BEGIN
	UPDATE vector_code_changes SET removed = removed + 1 WHERE id = 1;
END;
CREATE TRIGGER vector_codes_updated AFTER UPDATE ON vector_codes BEGIN
	UPDATE vector_code_changes SET removed = removed + 1 WHERE id = 1;
END;
CREATE TRIGGER embeddings_deleted_code AFTER DELETE ON embeddings BEGIN
	DELETE FROM vector_codes WHERE fact_id = old.fact_id AND provider = old.provider AND model = old.model AND dim = old.dim;
END;
`,
	// v10 — the dedupe keys of pruned events, so a transcript rewritten
	// (or read again from the start) after its lines were pruned does not
	// copy them back: what prune reclaimed stays reclaimed.
	`
CREATE TABLE pruned_keys (
	dedupe_key TEXT PRIMARY KEY
) WITHOUT ROWID;
`,
	// v11 — active facts in the briefing's key-fact order (most important,
	// then most confident, then oldest), so the session-start hook and
	// memory://briefing read the first ten instead of sorting every fact.
	`
CREATE INDEX facts_key_order ON facts(importance DESC, confidence DESC, id) WHERE status = 'active';
`,
	// v12 — a transcript's identity survives a rename: the dedupe identity
	// its lines were stored under and the device and inode it was read
	// from, so a moved or rotated file continues where it was. And what
	// the copier could not read, each path once with its latest reason
	// and how often it failed in a row (the retry backoff): files that are
	// not regular files, copies that failed, folders that cannot be listed.
	`
ALTER TABLE source_files ADD COLUMN identity TEXT;
ALTER TABLE source_files ADD COLUMN dev INTEGER;
ALTER TABLE source_files ADD COLUMN ino INTEGER;
CREATE INDEX source_files_inode ON source_files(dev, ino);
CREATE TABLE source_problems (
	path     TEXT PRIMARY KEY,
	kind     TEXT NOT NULL,
	problem  TEXT NOT NULL CHECK (problem IN ('not_regular_file','copy_failed','unreadable_folder')),
	detail   TEXT NOT NULL,
	failures INTEGER NOT NULL DEFAULT 1,
	first_at TEXT NOT NULL,
	last_at  TEXT NOT NULL
);
`,
	// v13 — spend as counted: a token count no call can have (negative, or
	// over a billion, as a broken host reported near 2^62) reads as
	// unknown, so one such row never overflows the sums that stats and the
	// token budgets read. New rows are refused at the door; this covers
	// rows stored before.
	`
CREATE VIEW spend_counted AS SELECT id, run_id, stage, provider, model,
	CASE WHEN input_tokens BETWEEN 0 AND 1073741824 THEN input_tokens END AS input_tokens,
	CASE WHEN output_tokens BETWEEN 0 AND 1073741824 THEN output_tokens END AS output_tokens,
	CASE WHEN elapsed_ms BETWEEN 0 AND 31536000000 THEN elapsed_ms ELSE 0 END AS elapsed_ms,
	ok, created_at
FROM spend;
`,
	// v14 — a conversation's captured facts in capture order: facts
	// captured without an event (capture_fact) are neighbours in the order
	// their session facts were stored, and search reads a hit's neighbours
	// with one seek each, however long the session.
	`
CREATE INDEX fact_provenance_session_capture ON fact_provenance(session_id, session_fact_id, fact_id) WHERE event_seq IS NULL;
`,
	// v15 — near-duplicate signatures: a few hashed content words per fact
	// (integrate/signatures.go) with the fact's size, so dedupe looks up a
	// new fact's words instead of an OR query over the whole store. Facts
	// stored before are signed by the next integrate run (up to upto).
	`
CREATE TABLE fact_signatures (
	token   INTEGER NOT NULL,
	fact_id INTEGER NOT NULL REFERENCES facts(id) ON DELETE CASCADE,
	size    INTEGER NOT NULL,
	PRIMARY KEY (token, fact_id)
) WITHOUT ROWID;
CREATE INDEX fact_signatures_fact ON fact_signatures(fact_id);
CREATE TABLE fact_signature_backfill (upto INTEGER NOT NULL);
INSERT INTO fact_signature_backfill SELECT max(id) FROM facts WHERE id IS NOT NULL HAVING count(*) > 0;
`,
	// v16 — events from Codex CLI and Gemini CLI transcripts: the source
	// CHECK widens. SQLite cannot alter a CHECK, so the table is rebuilt
	// with the same rows, seqs (and AUTOINCREMENT high-water mark), indexes
	// and full-text triggers; events_fts keeps its rows, keyed by seq.
	`
CREATE TABLE session_events_v16 (
	seq           INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id    TEXT NOT NULL REFERENCES sessions(id),
	source        TEXT NOT NULL CHECK (source IN ('claude-code','cursor','codex','gemini','record','mcp')),
	source_file   TEXT,
	source_offset INTEGER,
	role          TEXT NOT NULL CHECK (role IN ('user','assistant','system','tool')),
	speaker       TEXT,
	event_type    TEXT NOT NULL CHECK (event_type IN ('message','tool_call','tool_result','artifact')),
	content_type  TEXT NOT NULL CHECK (content_type IN ('text','json','image','audio','binary')),
	content       TEXT NOT NULL,
	content_ref   TEXT,
	metadata      TEXT,
	occurred_at   TEXT,
	recorded_at   TEXT NOT NULL,
	dedupe_key    TEXT UNIQUE
);
INSERT INTO session_events_v16 (seq, session_id, source, source_file, source_offset, role, speaker, event_type,
	content_type, content, content_ref, metadata, occurred_at, recorded_at, dedupe_key)
	SELECT seq, session_id, source, source_file, source_offset, role, speaker, event_type,
	content_type, content, content_ref, metadata, occurred_at, recorded_at, dedupe_key FROM session_events ORDER BY seq;
CREATE TABLE session_events_seq_v16 AS SELECT seq FROM sqlite_sequence WHERE name = 'session_events';
DROP TRIGGER session_events_ai;
DROP TRIGGER session_events_ad;
DROP TRIGGER session_events_au;
DROP TABLE session_events;
ALTER TABLE session_events_v16 RENAME TO session_events;
DELETE FROM sqlite_sequence WHERE name = 'session_events_v16';
DELETE FROM sqlite_sequence WHERE name = 'session_events';
INSERT INTO sqlite_sequence(name, seq)
	SELECT 'session_events', max(s) FROM (SELECT seq AS s FROM session_events_seq_v16 UNION ALL SELECT max(seq) FROM session_events)
	HAVING max(s) IS NOT NULL;
DROP TABLE session_events_seq_v16;
CREATE INDEX session_events_session ON session_events(session_id, seq);
CREATE INDEX session_events_file ON session_events(source_file, source_offset);
CREATE TRIGGER session_events_ai AFTER INSERT ON session_events BEGIN
	INSERT INTO events_fts(rowid, content) VALUES (new.seq, new.content);
END;
CREATE TRIGGER session_events_ad AFTER DELETE ON session_events BEGIN
	INSERT INTO events_fts(events_fts, rowid, content) VALUES ('delete', old.seq, old.content);
END;
CREATE TRIGGER session_events_au AFTER UPDATE OF content ON session_events BEGIN
	INSERT INTO events_fts(events_fts, rowid, content) VALUES ('delete', old.seq, old.content);
	INSERT INTO events_fts(rowid, content) VALUES (new.seq, new.content);
END;
`,
	// v17 — copy progress per machine: several daemons on several
	// machines may share one store (PostgreSQL), and two of them can follow
	// transcripts at the same absolute path. A file's row is keyed by
	// (machine, path). Rows stored before carry machine '': recorded
	// before machines were told apart, taken over by the first copier that
	// follows the path (on a SQLite store, always this machine's).
	`
CREATE TABLE source_files_v17 (
	path         TEXT NOT NULL,
	kind         TEXT NOT NULL,
	session_id   TEXT,
	fingerprint  TEXT NOT NULL DEFAULT '',
	size         INTEGER NOT NULL DEFAULT 0,
	offset       INTEGER NOT NULL DEFAULT 0,
	lines        INTEGER NOT NULL DEFAULT 0,
	missing      INTEGER NOT NULL DEFAULT 0,
	updated_at   TEXT NOT NULL,
	reread_until INTEGER NOT NULL DEFAULT 0,
	identity     TEXT,
	dev          INTEGER,
	ino          INTEGER,
	machine      TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (machine, path)
);
INSERT INTO source_files_v17 (path, kind, session_id, fingerprint, size, offset, lines, missing, updated_at, reread_until, identity, dev, ino)
	SELECT path, kind, session_id, fingerprint, size, offset, lines, missing, updated_at, reread_until, identity, dev, ino FROM source_files;
DROP TABLE source_files;
ALTER TABLE source_files_v17 RENAME TO source_files;
CREATE INDEX source_files_inode ON source_files(dev, ino);
`,
	// v18 — each indexed word's count of facts, read from the facts' own
	// full-text index (fts5vocab stores nothing), so search ranks a query's
	// rare words first and stops before the common ones (sqlite_topk.go).
	`
CREATE VIRTUAL TABLE facts_fts_vocab USING fts5vocab(facts_fts, row);
`,
	// v19 — what the copier could not read, per machine: on a store several
	// machines copy into, a path one machine cannot read may be fine on
	// another, and each clears only its own. Keyed by (machine, path) as
	// copy progress is (v17); rows stored before carry machine '' and are
	// taken as this machine's by the first copier that meets their path.
	`
CREATE TABLE source_problems_v19 (
	path     TEXT NOT NULL,
	kind     TEXT NOT NULL,
	problem  TEXT NOT NULL CHECK (problem IN ('not_regular_file','copy_failed','unreadable_folder')),
	detail   TEXT NOT NULL,
	failures INTEGER NOT NULL DEFAULT 1,
	first_at TEXT NOT NULL,
	last_at  TEXT NOT NULL,
	machine  TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (machine, path)
);
INSERT INTO source_problems_v19 (path, kind, problem, detail, failures, first_at, last_at)
	SELECT path, kind, problem, detail, failures, first_at, last_at FROM source_problems;
DROP TABLE source_problems;
ALTER TABLE source_problems_v19 RENAME TO source_problems;
`,
	// v20 — how many facts each status holds, kept by triggers as facts
	// are written, so a reader learns the store's size without counting
	// its rows. A status's count is the sum of n over its rows (one row
	// per status here; PostgreSQL's writers add rows beside each other's).
	`
CREATE TABLE fact_counts (
	status TEXT PRIMARY KEY,
	n      INTEGER NOT NULL
);
INSERT INTO fact_counts(status, n) SELECT status, count(*) FROM facts GROUP BY status;
CREATE TRIGGER facts_counted AFTER INSERT ON facts BEGIN
	INSERT INTO fact_counts(status, n) VALUES (new.status, 1) ON CONFLICT(status) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER facts_uncounted AFTER DELETE ON facts BEGIN
	UPDATE fact_counts SET n = n - 1 WHERE status = old.status;
END;
CREATE TRIGGER facts_recounted AFTER UPDATE OF status ON facts WHEN old.status IS NOT new.status BEGIN
	UPDATE fact_counts SET n = n - 1 WHERE status = old.status;
	INSERT INTO fact_counts(status, n) VALUES (new.status, 1) ON CONFLICT(status) DO UPDATE SET n = n + 1;
END;
`,
	// v21 — each signature carries its fact's content words as a 64-bit
	// set (integrate's wordMask), so a near-duplicate lookup passes over a
	// fact that cannot match without reading it. The facts stored so far
	// are signed again by the next integrate run (the marker names the
	// newest); until then their signatures, without a mask, are read.
	`
ALTER TABLE fact_signatures ADD COLUMN mask INTEGER;
DELETE FROM fact_signature_backfill;
INSERT INTO fact_signature_backfill SELECT max(id) FROM facts WHERE id IS NOT NULL HAVING count(*) > 0;
`,
	// v22 — PostgreSQL keeps how many facts hold each indexed word
	// (fact_words) for the keyword score; FTS5 keeps those counts itself
	// (facts_fts_vocab, v18), so SQLite has nothing to create.
	`
SELECT 1;
`,
	// v23 — PostgreSQL keeps each provenance row's adjacent facts on the
	// row (prev_fact, next_fact), where a search would otherwise pay a
	// round of index seeks per seed inside its one statement; SQLite seeks
	// them (Engine.Adjacent), two seeks a row at in-process cost, so it has
	// nothing to create.
	`
SELECT 1;
`,
	// v24 — PostgreSQL's index of a fact's provenance rows carries the
	// adjacent facts v23 keeps there, for index-only lookups; SQLite keeps
	// no such columns, so it has nothing to change.
	`
SELECT 1;
`,
	// v25 — a fact says what kind of knowledge it is: a decision, a fix,
	// a rule or preference, a task (open or done), a fact, or a command.
	// Readers show and filter on it; NULL is a fact stored before kinds.
	`
ALTER TABLE session_facts ADD COLUMN kind TEXT;
ALTER TABLE facts ADD COLUMN kind TEXT;
CREATE INDEX facts_kind ON facts(kind, id) WHERE status = 'active' AND kind IS NOT NULL;
`,
	// v26 — a transcript line's own id (Claude Code's and Cursor's uuid)
	// on its events, so a line already stored for a session is not stored
	// again from another file (a copied or resumed transcript).
	`
ALTER TABLE session_events ADD COLUMN line_uuid TEXT;
UPDATE session_events SET line_uuid = json_extract(metadata, '$.uuid')
	WHERE source IN ('claude-code', 'cursor') AND metadata LIKE '%"uuid"%' AND json_valid(metadata);
CREATE INDEX session_events_line_uuid ON session_events(session_id, line_uuid) WHERE line_uuid IS NOT NULL;
`,
	// v27 — forgetting a fact finds what it touches by index: the
	// extracted facts behind it (by fact and by digest) and the facts it
	// superseded.
	`
CREATE INDEX session_facts_fact ON session_facts(fact_id) WHERE fact_id IS NOT NULL;
CREATE INDEX session_facts_digest ON session_facts(digest);
CREATE INDEX facts_superseded_by ON facts(superseded_by) WHERE superseded_by IS NOT NULL;
`,
	// v28 — the random identity recollect writes into a store when it is
	// made or approved; a project store's approval records it, so a file
	// whose content was swapped in place is known.
	`
CREATE TABLE store_identity (
	id         TEXT NOT NULL,
	written_at TEXT NOT NULL
);
`,
	// v29 — Chinese, Japanese and Korean text is indexed by its
	// characters' overlapping pairs and single characters (IndexText,
	// called as recollect_index_text), since the tokenizer takes a whole
	// unspaced run as one word. The triggers index that text, and the rows
	// that hold such characters are indexed again; every other row's
	// indexed text is its content, as it was.
	`
DROP TRIGGER facts_ai;
DROP TRIGGER facts_ad;
CREATE TRIGGER facts_ai AFTER INSERT ON facts BEGIN
	INSERT INTO facts_fts(rowid, content) VALUES (new.id, recollect_index_text(new.content));
END;
CREATE TRIGGER facts_ad AFTER DELETE ON facts BEGIN
	INSERT INTO facts_fts(facts_fts, rowid, content) VALUES ('delete', old.id, recollect_index_text(old.content));
END;
INSERT INTO facts_fts(facts_fts, rowid, content) SELECT 'delete', id, content FROM facts
	WHERE recollect_index_text(content) <> content;
INSERT INTO facts_fts(rowid, content) SELECT id, recollect_index_text(content) FROM facts
	WHERE recollect_index_text(content) <> content;

DROP TRIGGER session_facts_ai;
DROP TRIGGER session_facts_ad;
DROP TRIGGER session_facts_au;
CREATE TRIGGER session_facts_ai AFTER INSERT ON session_facts BEGIN
	INSERT INTO session_facts_fts(rowid, content) VALUES (new.id, recollect_index_text(new.content));
END;
CREATE TRIGGER session_facts_ad AFTER DELETE ON session_facts BEGIN
	INSERT INTO session_facts_fts(session_facts_fts, rowid, content) VALUES ('delete', old.id, recollect_index_text(old.content));
END;
CREATE TRIGGER session_facts_au AFTER UPDATE OF content ON session_facts BEGIN
	INSERT INTO session_facts_fts(session_facts_fts, rowid, content) VALUES ('delete', old.id, recollect_index_text(old.content));
	INSERT INTO session_facts_fts(rowid, content) VALUES (new.id, recollect_index_text(new.content));
END;
INSERT INTO session_facts_fts(session_facts_fts, rowid, content) SELECT 'delete', id, content FROM session_facts
	WHERE recollect_index_text(content) <> content;
INSERT INTO session_facts_fts(rowid, content) SELECT id, recollect_index_text(content) FROM session_facts
	WHERE recollect_index_text(content) <> content;

DROP TRIGGER session_events_ai;
DROP TRIGGER session_events_ad;
DROP TRIGGER session_events_au;
CREATE TRIGGER session_events_ai AFTER INSERT ON session_events BEGIN
	INSERT INTO events_fts(rowid, content) VALUES (new.seq, recollect_index_text(new.content));
END;
CREATE TRIGGER session_events_ad AFTER DELETE ON session_events BEGIN
	INSERT INTO events_fts(events_fts, rowid, content) VALUES ('delete', old.seq, recollect_index_text(old.content));
END;
CREATE TRIGGER session_events_au AFTER UPDATE OF content ON session_events BEGIN
	INSERT INTO events_fts(events_fts, rowid, content) VALUES ('delete', old.seq, recollect_index_text(old.content));
	INSERT INTO events_fts(rowid, content) VALUES (new.seq, recollect_index_text(new.content));
END;
INSERT INTO events_fts(events_fts, rowid, content) SELECT 'delete', seq, content FROM session_events
	WHERE recollect_index_text(content) <> content;
INSERT INTO events_fts(rowid, content) SELECT seq, recollect_index_text(content) FROM session_events
	WHERE recollect_index_text(content) <> content;
`,
	// v30 — a number that changes with every write to what the search
	// caches derive from, and with no other write, so a long-lived reader
	// keeps its caches across commits that only copy transcript lines
	// (handle.KnowledgeVersion). Every insert, update and delete of the
	// facts (and with them facts_fts, which only the facts' triggers
	// write), the facts' entities, the entities and their aliases adds
	// one; so does every write to fact_provenance and every delete of an
	// event or change of its times, which a retention window's condition
	// on the facts reads (graph's factWithin). A new event changes no
	// fact's standing: provenance cites events already stored, and a seq
	// is never reused. A later migration that writes facts_fts or these
	// tables without their triggers bumps n too.
	`
CREATE TABLE knowledge_version (
	n INTEGER NOT NULL
);
INSERT INTO knowledge_version(n) VALUES (0);
CREATE TRIGGER facts_known_added AFTER INSERT ON facts BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER facts_known_changed AFTER UPDATE ON facts BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER facts_known_removed AFTER DELETE ON facts BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER fact_entities_known_added AFTER INSERT ON fact_entities BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER fact_entities_known_changed AFTER UPDATE ON fact_entities BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER fact_entities_known_removed AFTER DELETE ON fact_entities BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER entities_known_added AFTER INSERT ON entities BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER entities_known_changed AFTER UPDATE ON entities BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER entities_known_removed AFTER DELETE ON entities BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER entity_aliases_known_added AFTER INSERT ON entity_aliases BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER entity_aliases_known_changed AFTER UPDATE ON entity_aliases BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER entity_aliases_known_removed AFTER DELETE ON entity_aliases BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER fact_provenance_known_added AFTER INSERT ON fact_provenance BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER fact_provenance_known_changed AFTER UPDATE ON fact_provenance BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER fact_provenance_known_removed AFTER DELETE ON fact_provenance BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER session_events_known_changed AFTER UPDATE OF seq, occurred_at, recorded_at ON session_events BEGIN UPDATE knowledge_version SET n = n + 1; END;
CREATE TRIGGER session_events_known_removed AFTER DELETE ON session_events BEGIN UPDATE knowledge_version SET n = n + 1; END;
`,
}
