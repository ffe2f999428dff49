// Package patterns turns log messages into templates, the error signatures
// that faultline groups, compares and ranks.
//
// # Masking
//
// [Mask] is stateless and runs at ingest on every log line. A hand-written
// scanner splits the message into whitespace-separated words and each word
// into segments at punctuation (= : , ; ( ) [ ] { } < > | and quotes). A
// segment is variable when it holds a digit (numbers, hex ids, UUIDs, IPs,
// ports, timestamps, durations like 3000ms, sizes, paths with ids), looks
// like an e-mail address, is a long run of hex letters, is a single-word
// quoted value, or is the value of key=value. A variable becomes <*>, and
// variables joined only by ':' or ',' inside one word collapse into one
// (10.0.0.1:8080 → <*>). Whitespace runs become one space. The result is
// the same in every process: no state, no randomness, no locale.
//
// # Mining
//
// [Miner] is an online template miner in the spirit of Drain. Masked
// messages are split into tokens and routed by token count and first token
// to a small list of groups; a message joins the most similar group when
// enough of its constant tokens agree, and the group's template turns the
// disagreeing positions into <*>. [Miner.Templates] then merges groups whose
// templates differ only where siblings vary, and groups with identical
// template text. Every id that [Miner.Add] ever returned still resolves,
// through [Miner.Lookup], to the final group it ended in.
package patterns
