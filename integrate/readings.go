package integrate

import "sync"

// Readings keeps stored facts' statements as read for supersession, by
// speaker and text, so a statement is read once, not once per new fact
// that has it as a candidate: a fact naming a common entity is a
// candidate for every new fact naming it (each entity's newest 200, and
// each distinctive word's newest 100), and reading one is most of what a
// candidate costs. A reading depends on nothing but the text and speaker,
// and stored facts never change their statement, so a reading kept from
// an earlier run is the reading a later run would make.
//
// A Readings is bounded: it holds at most twice its size, the readings
// used since the last turnover and those used before it; at each turnover
// the older half is forgotten, so what recent runs used stays. The zero
// value is not usable: make one with NewReadings. It is safe for
// concurrent runs; a reading is never changed once made.
type Readings struct {
	size int

	mu       sync.Mutex
	cur, old map[[2]string]reading
	// lookups and misses count statements asked for and read anew (tests
	// read them).
	lookups, misses int
}

// DefaultReadings is the size of the Readings a long-lived process keeps
// across runs, and of a run's own when it is given none: at most twice
// this many statements are held, about 3 KB each for a two-clause
// statement (12 MB at most), as a run held before it was kept.
const DefaultReadings = 2048

// NewReadings makes a Readings holding at most 2×size statements.
func NewReadings(size int) *Readings {
	if size < 1 {
		size = 1
	}
	return &Readings{size: size, cur: map[[2]string]reading{}}
}

// get returns the reading of a stored statement, read on first use.
func (rs *Readings) get(content, speaker string) reading {
	key := [2]string{speaker, content}
	rs.mu.Lock()
	rs.lookups++
	if r, ok := rs.cur[key]; ok {
		rs.mu.Unlock()
		return r
	}
	if r, ok := rs.old[key]; ok {
		rs.put(key, r)
		rs.mu.Unlock()
		return r
	}
	rs.misses++
	rs.mu.Unlock()
	// Read outside the lock: concurrent runs reading the same statement
	// make equal readings, and either may be kept.
	r := readStatement(content, speaker)
	rs.mu.Lock()
	rs.put(key, r)
	rs.mu.Unlock()
	return r
}

// put keeps r as recently used, turning over first when the recent half
// is full. The caller holds mu.
func (rs *Readings) put(key [2]string, r reading) {
	if len(rs.cur) >= rs.size {
		rs.old, rs.cur = rs.cur, make(map[[2]string]reading, rs.size)
	}
	rs.cur[key] = r
}
