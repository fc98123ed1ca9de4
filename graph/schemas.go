package graph

import (
	"context"
	"fmt"
)

// DomainSchema is one domain the store uses, with its subdomains.
type DomainSchema struct {
	Name       string            `json:"name"`
	Active     int               `json:"active_facts"`
	Subdomains []SubdomainSchema `json:"subdomains"`
}

// SubdomainSchema is a subdomain with its active fact count.
type SubdomainSchema struct {
	Name   string `json:"name"`
	Active int    `json:"active_facts"`
}

// Schemas lists the domains this store uses (every domain integrate ever
// created, even one whose facts are all superseded) and their subdomains,
// with counts of active facts (within the retention window); most used
// first.
func (r *Reader) Schemas(ctx context.Context) ([]DomainSchema, error) {
	db := r.db
	within, wargs := r.Within("facts")
	rows, err := db.QueryContext(ctx, `SELECT name, SUM(n) total FROM (
			SELECT name, 0 n FROM domains
			UNION ALL SELECT domain, count(*) FROM facts WHERE status = 'active' AND `+within+` GROUP BY domain) d
		GROUP BY name ORDER BY total DESC, name`, wargs...)
	if err != nil {
		return nil, fmt.Errorf("list domains: %w", err)
	}
	out := []DomainSchema{}
	index := map[string]int{}
	for rows.Next() {
		var d DomainSchema
		if err := rows.Scan(&d.Name, &d.Active); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list domains: %w", err)
		}
		d.Subdomains = []SubdomainSchema{}
		index[d.Name] = len(out)
		out = append(out, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list domains: %w", err)
	}
	rows, err = db.QueryContext(ctx, `SELECT domain, subdomain, count(*) n FROM facts
		WHERE status = 'active' AND subdomain IS NOT NULL AND subdomain != '' AND `+within+`
		GROUP BY domain, subdomain ORDER BY n DESC, subdomain`, wargs...)
	if err != nil {
		return nil, fmt.Errorf("list subdomains: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var dom string
		var s SubdomainSchema
		if err := rows.Scan(&dom, &s.Name, &s.Active); err != nil {
			return nil, fmt.Errorf("list subdomains: %w", err)
		}
		if i, ok := index[dom]; ok {
			out[i].Subdomains = append(out[i].Subdomains, s)
		}
	}
	return out, rows.Err()
}
