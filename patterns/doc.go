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
// path ("/x", "./x", two '/' or two '\'), is a long run of hex letters, or
// is a domain or file name: dotted labels ending in a top-level domain
// (proxy.example.edu.hk, kafka.svc.cluster.local) or a common file
// extension (chrome.exe, app.log, nginx.service); Java and Go names
// (dfs.DataNode, java.lang.Error) end in neither and stay, and so does a
// dotted key (user.id=). Whole words are variable when they are hex groups
// joined by ':', '-' or '.' (MAC and IPv6 addresses, one "::" allowed), a
// bound before a number ("<1", ">=10"), or month, weekday and time-zone
// names next to other parts of a timestamp. A unit word after a number
// joins the number's variable ("3.4 MiB", "(1.2 KB)", "<1 sec", "12
// seconds"), so a size or a duration is one variable whatever its unit.
// A single-word quoted value, and the value of key=value, are variable; a
// URL keeps its scheme and host and loses its port, path and query.
// Variables become <*>; variables joined only by ':' or ',' inside one word
// collapse into one (10.0.0.1:8080, host.example.com:443 → <*>), and so do
// runs of words that are all variable. Whitespace runs become one space.
// The result is the same in every process: no state, no randomness, no
// locale, and masking a template again changes nothing.
//
// # Mining
//
// [Miner] is an online template miner that starts like Drain. Each distinct
// masked message (a leaf) is routed at once by its token count and first
// token to a small list of coarse groups, and joins the most similar one
// when at least SimThreshold of its tokens agree with the group's template;
// the template turns the disagreeing positions into <*>. A token that is
// partly variable agrees with the words it matches ("(uid=<*>)" and
// "(uid=0)"), and a position that is variable in both counts neither for
// nor against, so messages that are mostly variables neither pull each
// other in nor push a differently masked one out.
//
// A leading program or component token ("sshd[<*>]:", "kernel:",
// "[scheduler]", "chrome.exe - ...", or a lone ":" where the program was
// left empty) does not route: the message is routed
// by the first plain word after it, so the same message from another
// process meets its peers. A quoted phrase that reads as a name ('Nightly
// Backup', "Jane Doe") is one token, so that multi-word names keep the
// message's token count.
//
// Drain's weakness is that it cannot tell a variable made of plain words
// (user names) from words that name the event (VM Paused / Resumed /
// Started). The miner resolves this when templates are asked for: in each
// coarse group, a position that took between 2 and MaxVariants distinct
// words, none of them masked, is read as part of the event and splits the
// group; a position that took more is a variable. Words that match each
// other with <*> standing for any text count as one ("()" and "(<*>)"). A
// leading program token whose leaves carry a pid ("CRON[<*>]:",
// "crond[<*>]:") never splits: the process is not the event, while a
// logger's class name is. Then parts whose leaves have the same skeleton
// (the message less its optional segments: short bracketed runs holding a
// variable, all-variable tokens, the program token) in two lengths or more
// merge: a segment that comes and goes ("(1.2 KB)", "(took 3ms)", "*64")
// does not split a template. Parts whose final template texts are equal
// merge.
//
// What varies between lines of one statement is a variable whatever its
// shape, so the masks are a fast path, not the only way a word becomes a
// variable (see variable.go). A position's few words do not split it when
// at least two of them also vary in another statement (users, hosts:
// values recur, event words do not). Then parts that differ only where
// their lines vary merge: parts equal but at one position whose words are
// a variable (one of them already is, or more than MaxVariants), and parts
// whose templates match position by position with <*> standing for any
// text, empty included, or do so with one all-variable token left out. So
// a host the masker does not know ("proxyhost:80", a name under a country
// or newer domain, an IPv6 address in brackets) joins its statement even
// as the first word, and so does a line whose leading program is empty
// (": error ...") or missing. Because the miner counts, it masks less than [Mask]: plain-word
// values of key=value stay for it to judge.
//
// Ids are derived from template texts ([TemplateID]): Add returns the id of
// the masked message, which [Miner.Lookup] resolves to the final template
// it ended in, however the groups grew since.
//
// # Rules
//
// No rule names a system's tokens or messages; each is checked on the ten
// loghub-2k systems (TestLoghubGroupingAccuracy, TestLoghubLeaveOneOut,
// which picks the tunables on nine systems and measures the tenth) and on
// generated log families the miner was not tuned on (TestGeneratedFamilies,
// and TestShapeFamilies for hosts of any shape and empty fields). The
// constants of the rules below that have no tunable are the smallest that
// mean anything (two shared words), not fitted.
//
//	rule            condition                                      constant           test
//	host-or-file    dotted labels ending in a TLD or extension     isTLD, isFileExt   TestIsHostOrFile, TestMask
//	unit-fold       a unit word after a number's <*>               unitLen            TestMask "size/duration units fold"
//	bound           "<1", ">=10"                                   -                  TestMask "duration units fold"
//	ipv6            hex groups with one "::"                       -                  TestMask "ipv6"
//	windows-path    two backslashes and a letter                   -                  TestMask "windows path"
//	program-route   leading program/component token                isProgram          TestMinerLeadingProgram
//	program-split   program token with a pid never splits          -                  TestMinerLeadingProgram
//	quoted-name     quoted phrase of words, more plain than <*>    maxQuoted = 8      TestMinerQuotedNames
//	optional        same skeleton in two lengths merges            maxOptionalRun = 4 TestMinerOptionalSegment, TestSkeleton
//	event-words     2..MaxVariants plain words split a group       DefaultMaxVariants TestMinerGroups
//	recurring       two words also varying in another statement    minRecurring = 2   TestMinerRecurringValues
//	siblings        equal but at one position, whose words vary    minShared = 2      TestMinerHostOfAnyShape
//	instances       match position by position, <*> any text       minShared = 2      TestMinerHostOfAnyShape, TestMinerEmptyLeadingField
//	missing-var     the same, one all-variable token left out      minShared = 2      TestMinerEmptyLeadingField, TestMinerEventWordsStay
package patterns
