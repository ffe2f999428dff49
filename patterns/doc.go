// Package patterns turns log messages into templates, the error signatures
// that faultline groups, compares and ranks.
//
// # Masking
//
// [Mask] is stateless and runs at ingest on every log line; it is a
// hand-written scanner, no regular expressions. It splits the message into
// whitespace-separated words and each word into segments at punctuation
// (: , ; ( ) [ ] { } < > |, quotes, runs of dots). A segment is variable
// when it holds a digit (numbers, hex ids, UUIDs, IPs, ports, timestamps,
// durations like 3000ms, sizes), looks like an e-mail address or a file
// path, or is a long run of hex letters. Whole words are variable when they
// are hex groups joined by ':', '-' or '.' (MAC and IPv6 addresses), or
// month, weekday and time-zone names next to other parts of a timestamp.
// A single-word quoted value, and the value of key=value, are variable; a
// URL keeps its scheme and host and loses its port, path and query.
// Variables become <*>; variables joined only by ':' or ',' inside one word
// collapse into one (10.0.0.1:8080 → <*>), and so do runs of words that are
// all variable. Whitespace runs become one space. The result is the same in
// every process: no state, no randomness, no locale, and masking a template
// again changes nothing.
//
// # Mining
//
// [Miner] is an online template miner that starts like Drain. Each distinct
// masked message (a leaf) is routed at once by its token count and first
// token to a small list of coarse groups, and joins the most similar one
// when at least SimThreshold of its tokens agree with the group's template
// (a wildcard agrees with a wildcard); the template turns the disagreeing
// positions into <*>.
//
// Drain's weakness is that it cannot tell a variable made of plain words
// (user names) from words that name the event (VM Paused / Resumed /
// Started). The miner resolves this when templates are asked for: in each
// coarse group, a position that took between 2 and MaxVariants distinct
// words, none of them masked, is read as part of the event and splits the
// group; a position that took more is a variable. Words that match each
// other with <*> standing for any text count as one ("()" and "(<*>)").
// Parts whose final template texts are equal merge. Because the miner
// counts, it masks less than [Mask]: plain-word values of key=value stay
// for it to judge.
//
// Ids are derived from template texts ([TemplateID]): Add returns the id of
// the masked message, which [Miner.Lookup] resolves to the final template
// it ended in, however the groups grew since.
package patterns
