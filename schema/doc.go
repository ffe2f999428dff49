// Package schema holds the types and constants every faultline package shares:
// the normalised Record, trace and span ids, failure kinds, severities and
// the ClickHouse DDL as embedded .sql files. It imports nothing from the project.
package schema
